"""Every exception a gate raises, in one module, so an errback needs one import.

Each denial is an :class:`~scrapy.exceptions.IgnoreRequest` subclass that carries its
``gate`` and ``verdict`` (names from :mod:`scrapy_walsh.policy.vocabulary`), so errbacks
can tell a robots.txt refusal from a blocklist one, and the compliance summary counts
them per gate and verdict. All are importable from ``scrapy_walsh`` too::

    from scrapy_walsh import RobotsDenied, WalshIgnoreRequest
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NoReturn

from scrapy.exceptions import IgnoreRequest

from scrapy_walsh.outputs import typed_command
from scrapy_walsh.policy.vocabulary import Gate, StrEnum, docs_topic, requirement_name

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


class WalshDropped(IgnoreRequest):
    """A request scrapy_walsh did not send or whose answer it dropped: the base of every
    ``IgnoreRequest`` the package raises, so an errback tells the package's drops from others'.

    A gate's refusal is a :class:`WalshIgnoreRequest`, counted and journalled; the other
    drops below are not a verdict on the URL (the crawl is closing, a dry run, the stock-Scrapy
    drop-in's refusals, which keep Scrapy's own messages and stats)."""


class WalshIgnoreRequest(WalshDropped):
    """A request a scrapy_walsh gate refused.

    ``gate`` is a :class:`~scrapy_walsh.policy.vocabulary.Gate`. ``verdict`` is one of
    the seed-000 names (``disallowed_explicit``, ``unknown_unreachable`` ...) or a
    gate's own (``blocked_by_operator``). ``details`` holds what the gate knew.
    """

    gate: str = "walsh"

    def __init__(self, verdict: str, reason: str, url: str = "", **details: Any):
        self.verdict = verdict
        self.reason = reason
        self.url = url
        self.details = details
        super().__init__(f"{self.gate}: {verdict}: {reason}" + (f" <{url}>" if url else ""))


class OutOfScope(WalshIgnoreRequest):
    """R6: not a declared target (``not_declared``) or a sub-resource (``subresource``)."""

    gate = Gate.SCOPE


class PrivateAddressRefused(WalshIgnoreRequest):
    """The policy model: the request's host is, or resolves to, an address that is not public."""

    gate = Gate.ADDRESS


class BlockedByOperator(WalshIgnoreRequest):
    """R3: the host is the apex or a subdomain of an operator-blocklist entry."""

    gate = Gate.BLOCKLIST


class RobotsDenied(WalshIgnoreRequest):
    """R2: robots.txt refused this URL (``disallowed_explicit``) or could not be read
    (``unknown_unreachable``); ``details["recommendation"]`` says what the policy model recommends."""

    gate = Gate.ROBOTS


class NotModified(WalshIgnoreRequest):
    """R7: the server answered 304 to our validators: nothing new since the last fetch."""

    gate = Gate.CONDITIONAL


class RecentlyFetched(WalshIgnoreRequest):
    """R8: the target was fetched within ``WALSH_REFETCH_INTERVAL``.

    The message names the spider that fetched it (``details["fetched_by"]``; the record is
    shared by every spider of the identity, so it may be another one) and the command that
    lets the next crawl fetch it, with this URL: the way out is in the refusal itself.
    """

    gate = Gate.FREQUENCY

    def __init__(self, verdict: str, reason: str, url: str = "", **details: Any):
        by, command = details.get("fetched_by"), details.get("fetched_with")
        if command:
            reason += f"; by `scrapy {command}` (a page looked at by hand), not by a spider"
        elif by:
            when = "earlier in this crawl" if details.get("by_this_crawl") else "in an earlier run"
            reason += f"; by spider {by}" + (f" (this spider, {when})" if by == details.get("spider") else "")
        if url:
            reason += f"; `scrapy walsh state forget {url}` lets the next crawl fetch it"
        super().__init__(verdict, reason, url, **details)


class CrawlDelayExceedsCap(WalshIgnoreRequest):
    """R4: the host's Crawl-delay is over ``WALSH_MAX_CRAWL_DELAY`` (never clamped)."""

    gate = Gate.PACING


class HostPaused(WalshIgnoreRequest):
    """R5: the host asked us (Retry-After) to stay away longer than ``WALSH_BACKOFF_MAX_DELAY``."""

    gate = Gate.PACING


class UsageReserved(WalshIgnoreRequest):
    """With ``WALSH_USAGE_MODE = "respect"``, the site reserves one of ``WALSH_PURPOSES``
    for this URL already in robots.txt or tdmrep.json, so it is not fetched."""

    gate = Gate.USAGE


#: Every denial, for the reference docs and ``scrapy_walsh.__all__``.
DENIALS: tuple[type[WalshIgnoreRequest], ...] = (
    OutOfScope,
    PrivateAddressRefused,
    BlockedByOperator,
    RobotsDenied,
    NotModified,
    RecentlyFetched,
    CrawlDelayExceedsCap,
    HostPaused,
    UsageReserved,
)


#: The first words of every refusal: ``check --live`` finds the reasons in a crawl's log by them.
REFUSAL_HEADLINE = "scrapy_walsh refuses to start this crawl"


class Status(StrEnum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"


PASS, WARN, FAIL = Status.PASS, Status.WARN, Status.FAIL


@dataclass(frozen=True)
class Finding:
    """One audited fact: which checklist row, which requirement, and what was found.

    The settings audit (:mod:`scrapy_walsh.conformance`) makes them; a
    :class:`ConformanceError` carries the failing ones.
    """

    row: str
    requirement: str
    status: Status
    setting: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.setting}: " if self.setting else ""
        return f"[{self.status}] {requirement_name(self.requirement)}: {where}{self.message}"


class ConformanceError(ValueError):
    """Raised at start-up when a setting would break a MUST; names setting and requirement.

    Making one changes nothing else: where it leaves the package for Scrapy, it is said once, as
    its reasons (:mod:`scrapy_walsh.outputs.clean_refusal`)."""

    #: said as its reasons alone, never a traceback (scrapy_walsh/outputs/clean_refusal.py)
    clean_refusal = True

    def __init__(self, findings: Iterable[Finding]):
        self.findings = [f for f in findings if f.status == Status.FAIL]
        lines = "\n".join(
            f"  - {f.setting or 'the configuration'} breaks {requirement_name(f.requirement)}: {f.message}"
            for f in self.findings
        )
        super().__init__(
            f"{REFUSAL_HEADLINE}; it would break walsh-research-compliance/v1:\n{lines}\n"
            f"  what to do: {docs_topic('refused-at-start')}"
        )


logger = logging.getLogger("scrapy_walsh.denials")

#: ``gate/verdict`` -> what the user can do about it, said with the first denial of its kind.
_HINTS: Mapping[str, str] = MappingProxyType(
    {
        "scope/not_declared": "declare the page to fetch it (start_urls, start(), a StructuredSourceSpider's targets)",
        "scope/subresource": "images, scripts, styles, fonts and media are never fetched (R6)",
        "address/private_address": "a private or local address (the address rule); for a site you run, list its "
        'addresses or networks: WALSH_ALLOW_PRIVATE_ADDRESSES = ["127.0.0.1", "10.0.0.0/8"]',
        "blocklist/blocked_by_operator": "the operator blocklist lists the host: an opt-out, never contacted (R3)",
        "robots/disallowed_explicit": "the site's robots.txt disallows it (R2); `scrapy walsh explain URL` shows "
        "the line",
        "robots/unknown_unreachable": "robots.txt could not be read, so nothing is fetched from that origin (R2, "
        "RFC 9309 §2.3.1.4); try later, `scrapy walsh explain URL`",
        "frequency/skipped_recently_fetched": "fetch times are shared by every spider of the identity for "
        "WALSH_REFETCH_INTERVAL (R8); `scrapy walsh state show URL` shows the record",
        "pacing/crawl_delay_exceeds_cap": "the site's Crawl-delay is over WALSH_MAX_CRAWL_DELAY (R4)",
        "pacing/host_paused_beyond_max_delay": "the site asked us (Retry-After) to stay away longer than "
        "WALSH_BACKOFF_MAX_DELAY (R5)",
    }
)

#: the troubleshooting section of each kind of denial (any other: "a-url-is-denied")
_HINT_SECTIONS: Mapping[str, str] = MappingProxyType(
    {
        "scope/not_declared": "links-yield-nothing",
        "frequency/skipped_recently_fetched": "a-second-run-yields-nothing",
    }
)
#: What the first denial of a kind is logged with: a gate's hint and its troubleshooting section, or the checkpoint's.
HINTS: Mapping[str, str] = MappingProxyType(
    {kind: f"{hint}; see {docs_topic(_HINT_SECTIONS.get(kind, 'a-url-is-denied'))}" for kind, hint in _HINTS.items()}
    | {
        "checkpoint/not_admitted": "it reached the network without passing every gate (a path around the "
        "middlewares, such as engine.download or a late middleware's rewrite)",
        "checkpoint/host_header_mismatch": "a Host header must name the URL's own host",
        "checkpoint/proxy_refused": "the proxy is blocklisted or a private address: it is sent nothing",
        "checkpoint/scheme_not_allowed": "only http and https URLs are fetched",
    }
)


#: Signal sent by :func:`refuse` for every refusal (args: ``exception``, ``spider``);
#: the request journal appends a ``refusal`` entry on it.
denial_recorded = object()

#: Signal sent when an answer came back and was refused (args: ``request``, ``exception``, a
#: :class:`ResponseTooLarge`): the server was hit, so R8 counts the target as fetched.
answer_refused = object()


def refuse(crawler: Crawler, exc: WalshIgnoreRequest) -> NoReturn:
    """The one way a gate refuses a request: record ``exc``, then raise it.

    Recording counts it under ``walsh/denied``, per gate and per gate+verdict, logs it, and
    sends :data:`denial_recorded` (the request journal's ``refusal`` entry). The first denial
    of each gate and verdict in a crawl is logged at WARNING with what the user can do about
    it, so it survives ``-L WARNING``; later ones at INFO.
    """
    typed_command.refused(crawler, str(exc))  # `scrapy fetch`/`parse`: on stderr even with --nolog, and exit 1
    _record(crawler.stats, exc, crawler.spider)
    raise exc


def _record(stats: Any, exc: WalshIgnoreRequest, spider: Any = None) -> None:
    kind = f"{exc.gate}/{exc.verdict}"
    stats.inc_value("walsh/denied")
    stats.inc_value(f"walsh/denied/{exc.gate}")
    stats.inc_value(f"walsh/denied/{kind}")
    if stats.get_value(f"walsh/denied/{kind}") == 1:
        hint = HINTS.get(kind)
        logger.warning(
            "%s%s (the first %s refusal of this crawl; later ones are logged at INFO and counted in walsh/denied/%s)",
            exc,
            f". {hint[0].upper()}{hint[1:]}" if hint else "",
            kind,
            kind,
            extra={"spider": spider},
        )
    else:
        logger.info("%s", exc, extra={"spider": spider})
    crawler = getattr(spider, "crawler", None)
    if crawler is not None:
        crawler.signals.send_catch_log(signal=denial_recorded, exception=exc, spider=spider)


class CheckpointRefused(WalshIgnoreRequest):
    """The checkpoint before the network refused it: a gate's stamp missing (``not_admitted``),
    a foreign ``Host`` header, a refused proxy, or a scheme other than http(s)."""

    gate = Gate.CHECKPOINT


class ResponseTooLarge(WalshIgnoreRequest):
    """The response's body is over its bound after decompression
    (``details["bound"]`` bytes, ``details["kind"]`` of fetch). The request was sent; its body
    was dropped as soon as it went over, so a hostile server never takes the memory."""

    gate = Gate.BOUNDS


DENIALS = (*DENIALS, CheckpointRefused, ResponseTooLarge)


class CrawlClosing(WalshDropped):
    """Not sent: the crawl is closing because the state store or the request journal failed
    (or the store was still unreachable when the crawl stopped). Counted in the store's or
    the journal's own stats, not as a denial: it is no verdict on the URL."""


class CrawlStopping(CrawlClosing):
    """Not sent: the crawl is stopping (Ctrl-C, SIGTERM, a fault, a ``CLOSESPIDER_*`` limit) and the
    request's wait ended with it, or it reached the checkpoint after the stop. No verdict on the
    URL and nothing recorded as fetched: a target goes back to the scheduler, where a graceful stop
    leaves what it did not send (kept in ``JOBDIR`` when there is one); only an own fetch ends
    with this exception."""


class NotSent(WalshDropped):
    """Explain's dry run: every gate and the checkpoint let the target through; it was not sent.
    ``wait`` is how long its host's slot is still taken (evaluated, not reserved)."""

    def __init__(self, url: str, wait: float):
        self.wait = wait
        super().__init__(f"dry run: {url} would be sent" + (f" in {wait:.3f} s" if wait else ""))


class OfflineNotSent(WalshDropped):
    """``scrapy walsh explain --offline``: the package's own fetch (robots.txt, the blocklist)
    is not sent; the gate reads what the state store holds instead."""


class RobotsTxtForbidden(WalshDropped):
    """The stock-Scrapy drop-in (``scrapy_walsh.RobotsTxtMiddleware``, without the add-on):
    robots.txt disallows the URL, or could not be read (RFC 9309 §2.3.1.4). Its message and
    stats are Scrapy's own ``RobotsTxtMiddleware``'s."""


#: The package's other drops (not a gate's verdict), for the reference docs.
NOT_SENT: tuple[type[WalshDropped], ...] = (CrawlClosing, CrawlStopping, NotSent, OfflineNotSent, RobotsTxtForbidden)


class NotYourTurn(Exception):  # noqa: N818 - not an error: "wait, then ask again"
    """Not a refusal: the host's slot was taken when the request reached the checkpoint (nothing
    was sent); the pacing middleware turns it into a wait or a requeue."""

    def __init__(self, host: str, wait: float):
        self.host, self.wait = host, wait
        super().__init__(f"{host}: its next slot is {wait:.3f} s away")


class DecisionStale(NotYourTurn):
    """Not a refusal: an input of the request's gate decisions (its origin's robots.txt, the
    operator's list, its host's pause) changed while it waited at the checkpoint
    (:mod:`scrapy_walsh.sending.decision_inputs`); nothing was sent, and it walks the gates again."""

    def __init__(self, host: str, kind: str):
        self.kind = kind
        super().__init__(host, 0.0)
        self.args = (f"{host}: its {kind} decision is stale; the gates decide again",)
