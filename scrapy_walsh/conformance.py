"""The settings audit: each rule maps a Scrapy setting onto a row of the §8 checklist.

One set of rules serves two callers: the add-on, which refuses to start a crawl when
any rule fails (fail closed on the MUSTs), and the ``scrapy walsh check`` command, which
prints every row. A rule reports ``fail`` only where a MUST would break; ``warn`` is
for choices that are legal but surprising (a ``USER_AGENT`` that will be overridden).
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from scrapy.settings import SETTINGS_PRIORITIES, BaseSettings
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import load_object

from .policy.addresses import PrivateAddressAllowance
from .policy.vocabulary import Namespace
from .settings import MIN_INTERVAL_FLOOR, ROBOTS_CACHE_SECONDS, SETTINGS_BY_NAME, SPEC_VERSION
from .store import parse_state_uri, state_location

logger = logging.getLogger(__name__)

PASS, WARN, FAIL = "pass", "warn", "fail"

#: RFC 9309 §2.2.1: a product token is letters, "_" and "-" only.
PRODUCT_TOKEN = re.compile(r"[A-Za-z_-]+")

IDENTITY_MIDDLEWARE = "scrapy_walsh.middlewares.identity.IdentityMiddleware"
SCRAPY_ROBOTS_MIDDLEWARE = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"
ROBOTS_MIDDLEWARE = "scrapy_walsh.middlewares.robots.RobotsMiddleware"
BLOCKLIST_MIDDLEWARE = "scrapy_walsh.middlewares.blocklist.BlocklistMiddleware"
ROBOTS_MODES = ("respect", "report_only", "ignore")
PACING_MIDDLEWARE = "scrapy_walsh.middlewares.pacing.PacingMiddleware"
BACKOFF_MIDDLEWARE = "scrapy_walsh.middlewares.backoff.BackoffMiddleware"
SCRAPY_RETRY_MIDDLEWARE = "scrapy.downloadermiddlewares.retry.RetryMiddleware"
POLITENESS_QUEUE = "scrapy_walsh.queue.PolitenessAwarePriorityQueue"


@dataclass(frozen=True)
class Finding:
    """One audited fact: which checklist row, which requirement, and what was found."""

    row: str
    requirement: str
    status: str
    setting: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.setting}: " if self.setting else ""
        return f"[{self.status}] #{self.row} {self.requirement} {where}{self.message}"


class ConformanceError(ValueError):
    """Raised at start-up when a setting would break a MUST; names setting and requirement."""

    def __init__(self, findings: list[Finding]):
        self.findings = [f for f in findings if f.status == FAIL]
        lines = "\n".join(
            f"  - {f.setting or 'configuration'} breaks {f.requirement} (checklist #{f.row}): {f.message}"
            for f in self.findings
        )
        super().__init__(
            f"scrapy_walsh refuses to start this crawl; it would break walsh-research-compliance/v1:\n{lines}"
        )


Rule = Callable[[BaseSettings], Iterator[Finding]]
RULES: list[Rule] = []


def rule(fn: Rule) -> Rule:
    RULES.append(fn)
    return fn


def audit_settings(settings: BaseSettings) -> list[Finding]:
    """Run every rule against effective settings; never raises on bad input.

    A rule that cannot read a malformed value fails closed: its row becomes a
    ``fail`` naming the error, instead of a crash or a silent pass.
    """
    findings: list[Finding] = []
    for check in RULES:
        try:
            findings.extend(check(settings))
        except Exception as exc:  # noqa: BLE001 - any unreadable value must refuse the crawl
            findings.append(
                Finding("-", "configuration", FAIL, None, f"{check.__name__.strip('_')}: cannot audit: {exc!r}")
            )
    return findings


def enforce(settings: BaseSettings, log_warnings: bool = True) -> list[Finding]:
    """Audit, log the warnings, and raise :class:`ConformanceError` on any failure."""
    findings = audit_settings(settings)
    if any(f.status == FAIL for f in findings):
        raise ConformanceError(findings)
    if log_warnings:
        for f in findings:
            if f.status == WARN:
                logger.warning("scrapy_walsh: %s", f)
    return findings


class ConformanceGuard:
    """Extension that re-audits the final, frozen settings before the engine starts.

    The add-on audits when it runs, but add-ons listed after it may still change
    settings; this guard sees the frozen, final values.
    Raising from ``from_crawler`` stops the crawl before any request is sent.
    """

    def __init__(self, findings: list[Finding]):
        self.findings = findings

    @classmethod
    def from_crawler(cls, crawler: Any) -> ConformanceGuard:
        findings = enforce(crawler.settings)
        counts = {status: sum(f.status == status for f in findings) for status in (PASS, WARN)}
        logger.info(
            "scrapy_walsh: %s active for %r; settings audit: %d passed, %d warnings; state: %s",
            SPEC_VERSION,
            crawler.settings.get("WALSH_ROBOTS_TOKEN"),
            counts[PASS],
            counts[WARN],
            state_location(crawler.settings).uri,
        )
        return cls(findings)


def user_set(settings: BaseSettings, name: str) -> bool:
    """True when ``name`` was set above Scrapy's defaults (project, spider, cmdline)."""
    return (settings.getpriority(name) or 0) > SETTINGS_PRIORITIES["default"]


def _number(settings: BaseSettings, name: str) -> float | None:
    try:
        return settings.getfloat(name)
    except (TypeError, ValueError):
        return None


def _floor(settings: BaseSettings) -> float:
    """``WALSH_MIN_INTERVAL``, or the R4 floor when it is unreadable (its own rule fails then)."""
    return _number(settings, "WALSH_MIN_INTERVAL") or MIN_INTERVAL_FLOOR


def _whole_number(value: Any) -> int | None:
    """A non-negative whole number as a setting may hold it (``5`` or ``"5"``), else None."""
    return None if isinstance(value, bool) or not str(value).isdigit() else int(value)


def enabled_components(settings: BaseSettings, setting: str) -> list[Any]:
    """The component list exactly as Scrapy's middleware managers build it."""
    with_base = getattr(settings, "get_component_priority_dict_with_base", None)
    compdict = with_base(setting) if with_base else settings.getwithbase(setting)
    return build_component_list(compdict)


def component_enabled(settings: BaseSettings, setting: str, path: str) -> bool:
    """True when a component is enabled in a ``*_MIDDLEWARES``-style dict (with its base)."""
    return _index(enabled_components(settings, setting), path) is not None


def _index(components: list[Any], path: str) -> int | None:
    """Where the component at ``path`` stands in an ordered component list, or None."""
    target = load_object(path)
    for i, component in enumerate(components):
        try:
            if load_object(component) is target:
                return i
        except (ImportError, NameError, ValueError):
            continue
    return None


# --- unknown WALSH_* names --------------------------------------------------------


@rule
def _unknown_walsh_settings(settings: BaseSettings) -> Iterator[Finding]:
    for name in settings:
        if name.startswith("WALSH_") and name not in SETTINGS_BY_NAME:
            close = difflib.get_close_matches(name, SETTINGS_BY_NAME, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            yield Finding(
                "-",
                "configuration",
                FAIL,
                name,
                f"unknown scrapy_walsh setting{hint} A misspelt policy setting would silently not apply.",
            )


# --- R1 identity ------------------------------------------------------------------


@rule
def _identity(settings: BaseSettings) -> Iterator[Finding]:
    ua = settings.get("WALSH_USER_AGENT")
    token = settings.get("WALSH_ROBOTS_TOKEN")
    if not isinstance(ua, str) or not ua.strip() or not (ua.isascii() and ua.isprintable()):
        yield Finding("1", "R1", FAIL, "WALSH_USER_AGENT", f"must be one non-empty line of printable ASCII, got {ua!r}")
        return
    if not isinstance(token, str) or not PRODUCT_TOKEN.fullmatch(token):
        yield Finding(
            "1", "R1", FAIL, "WALSH_ROBOTS_TOKEN", f"{token!r} is not an RFC 9309 product token (letters, '_' and '-')"
        )
        return
    if token.lower() not in ua.lower():
        yield Finding(
            "1",
            "R1",
            WARN,
            "WALSH_ROBOTS_TOKEN",
            f"{token!r} does not appear in WALSH_USER_AGENT {ua!r}; site owners "
            "cannot tell which robots.txt group applies to this crawler",
        )
    enforced = component_enabled(settings, "DOWNLOADER_MIDDLEWARES", IDENTITY_MIDDLEWARE)
    if user_set(settings, "USER_AGENT") and settings.get("USER_AGENT") != ua:
        if enforced:
            yield Finding(
                "1",
                "R1",
                WARN,
                "USER_AGENT",
                f"{settings.get('USER_AGENT')!r} is overridden on every request by WALSH_USER_AGENT {ua!r}",
            )
        else:
            yield Finding(
                "1", "R1", FAIL, "USER_AGENT", f"{settings.get('USER_AGENT')!r} is sent as is: it is not {ua!r}"
            )
    if not enforced:
        yield Finding(
            "1",
            "R1",
            FAIL,
            "DOWNLOADER_MIDDLEWARES",
            f"{IDENTITY_MIDDLEWARE} is disabled; nothing enforces the exact UA",
        )
    else:
        yield Finding("1", "R1", PASS, "WALSH_USER_AGENT", f"every request sends {ua!r}")


# --- R2 robots.txt ----------------------------------------------------------------


@rule
def _scrapy_robots(settings: BaseSettings) -> Iterator[Finding]:
    if component_enabled(settings, "DOWNLOADER_MIDDLEWARES", SCRAPY_ROBOTS_MIDDLEWARE):
        yield Finding(
            "2",
            "R2",
            FAIL,
            "DOWNLOADER_MIDDLEWARES",
            "Scrapy's RobotsTxtMiddleware is enabled: it matches groups against "
            "the full User-Agent header and treats a network error as allow-all",
        )
    else:
        yield Finding("2", "R2", PASS, "DOWNLOADER_MIDDLEWARES", "Scrapy's RobotsTxtMiddleware is disabled")


def _gate_removed(
    settings: BaseSettings, row: str, req: str, path: str, what: str, setting: str = "DOWNLOADER_MIDDLEWARES"
) -> Iterator[Finding]:
    if not component_enabled(settings, setting, path):
        yield Finding(row, req, FAIL, setting, f"{path} is disabled; nothing consults {what}")


def _is_http_url(value: Any) -> bool:
    parts = urlsplit(value) if isinstance(value, str) else None
    return bool(parts and parts.scheme in {"http", "https"} and parts.hostname)


@rule
def _robots_gate(settings: BaseSettings) -> Iterator[Finding]:
    yield from _gate_removed(settings, "2", "R2", ROBOTS_MIDDLEWARE, "robots.txt")
    mode = settings.get("WALSH_ROBOTS_MODE")
    if mode not in ROBOTS_MODES:
        yield Finding("2", "R2", FAIL, "WALSH_ROBOTS_MODE", f"{mode!r} is not one of {', '.join(ROBOTS_MODES)}")
    elif mode != "respect":
        yield Finding(
            "2",
            "R2",
            WARN,
            "WALSH_ROBOTS_MODE",
            f"{mode!r}: robots.txt is {'not fetched' if mode == 'ignore' else 'recorded but not obeyed'}; "
            "this crawl does NOT meet R2. Use it only on sites you run.",
        )
    elif component_enabled(settings, "DOWNLOADER_MIDDLEWARES", ROBOTS_MIDDLEWARE):
        yield Finding("2", "R2", PASS, "WALSH_ROBOTS_MODE", "respect: disallowed and unreachable block")
    seconds = _number(settings, "WALSH_ROBOTS_CACHE_SECONDS")
    if seconds is None or not 0 < seconds <= ROBOTS_CACHE_SECONDS:
        yield Finding(
            "2",
            "R2",
            FAIL,
            "WALSH_ROBOTS_CACHE_SECONDS",
            f"must be a number of seconds in (0, {ROBOTS_CACHE_SECONDS}], got "
            f"{settings.get('WALSH_ROBOTS_CACHE_SECONDS')!r} (RFC 9309 §2.4: at most 24 h)",
        )


# --- R3 blocklist -----------------------------------------------------------------


@rule
def _blocklist_url(settings: BaseSettings) -> Iterator[Finding]:
    url = settings.get("WALSH_BLOCKLIST_URL")
    if not _is_http_url(url):
        yield Finding(
            "3",
            "R3",
            FAIL,
            "WALSH_BLOCKLIST_URL",
            f"must be an absolute http(s) URL, got {url!r}; every tool MUST consult the operator blocklist",
        )
    else:
        yield Finding("3", "R3", PASS, "WALSH_BLOCKLIST_URL", url)


@rule
def _blocklist_gate(settings: BaseSettings) -> Iterator[Finding]:
    from .policy.blocklist import Blocklist

    yield from _gate_removed(settings, "3", "R3", BLOCKLIST_MIDDLEWARE, "the blocklist")
    schema_url = settings.get("WALSH_BLOCKLIST_SCHEMA_URL")
    if schema_url is not None and not _is_http_url(schema_url):
        yield Finding(
            "3",
            "R3",
            FAIL,
            "WALSH_BLOCKLIST_SCHEMA_URL",
            f"must be an absolute http(s) URL or None, got {schema_url!r}",
        )
    extra = settings.get("WALSH_BLOCKLIST_EXTRA")
    if isinstance(extra, str):
        extra = [d for d in extra.split(",") if d.strip()]
    try:
        if not isinstance(extra, (list, tuple)):
            raise ValueError(f"expected a list of domains, got {extra!r}")
        Blocklist.empty().with_extra(list(extra))
    except ValueError as exc:
        yield Finding("3", "R3", FAIL, "WALSH_BLOCKLIST_EXTRA", str(exc))


@rule
def _state_uri(settings: BaseSettings) -> Iterator[Finding]:
    try:
        location = parse_state_uri(settings.get("WALSH_STATE_URI"), "unused")
    except ValueError as exc:
        yield Finding("3b", "R3", FAIL, "WALSH_STATE_URI", f"{exc} (the last-known blocklist must survive restarts)")
    else:
        yield Finding(
            "3b",
            "R3",
            PASS,
            "WALSH_STATE_URI",
            "a shared Redis (fleet mode)" if location.scheme == "redis" else "a persistent sqlite location",
        )


# --- R4 pacing --------------------------------------------------------------------


@rule
def _serial(settings: BaseSettings) -> Iterator[Finding]:
    value = settings.get("CONCURRENT_REQUESTS")
    try:
        ok = int(value) == 1
    except (TypeError, ValueError):
        ok = False
    if not ok:
        yield Finding(
            "4",
            "R4",
            FAIL,
            "CONCURRENT_REQUESTS",
            f"CONCURRENT_REQUESTS={value} allows concurrent requests; R4 requires "
            "requests to be serial per process (set 1, or leave it to the add-on)",
        )
    else:
        yield Finding("4", "R4", PASS, "CONCURRENT_REQUESTS", "1: requests are serial")


@rule
def _delay_floor(settings: BaseSettings) -> Iterator[Finding]:
    floor = _number(settings, "WALSH_MIN_INTERVAL")
    if floor is None or floor < MIN_INTERVAL_FLOOR:
        yield Finding(
            "4",
            "R4",
            FAIL,
            "WALSH_MIN_INTERVAL",
            f"{settings.get('WALSH_MIN_INTERVAL')!r} is under the R4 floor of "
            f"{MIN_INTERVAL_FLOOR} s between requests to a host (it may be raised, "
            "never lowered)",
        )
        return
    delay = _number(settings, "DOWNLOAD_DELAY")
    if delay is None or delay < floor:
        yield Finding(
            "4",
            "R4",
            FAIL,
            "DOWNLOAD_DELAY",
            f"DOWNLOAD_DELAY={settings.get('DOWNLOAD_DELAY')} is under "
            f"WALSH_MIN_INTERVAL={floor}; R4 allows at most one request per "
            "second per host (remove it, or raise it)",
        )
    jitter = effective_jitter(settings)
    if jitter:
        name = (
            "RANDOMIZE_DOWNLOAD_DELAY"
            if (settings.getpriority("RANDOMIZE_DOWNLOAD_DELAY") or 0)
            > (settings.getpriority("DOWNLOAD_DELAY_JITTER") or 0)
            else "DOWNLOAD_DELAY_JITTER"
        )
        yield Finding(
            "4",
            "R4",
            FAIL,
            name,
            f"a jitter of ±{jitter:g} draws delays down to "
            f"{max(0.0, (delay or 0) * (1 - jitter)):g} s, under the R4 floor; "
            "set DOWNLOAD_DELAY_JITTER = 0",
        )
    slots = settings.getdict("DOWNLOAD_SLOTS")
    for key, conf in slots.items():
        if not isinstance(conf, dict):
            continue
        slot_delay = conf.get("delay")
        if slot_delay is not None and float(slot_delay) < floor:
            yield Finding(
                "4",
                "R4",
                FAIL,
                "DOWNLOAD_SLOTS",
                f"slot {key!r} has delay {slot_delay}, under the R4 floor of {floor} s",
            )
        if conf.get("jitter") or conf.get("randomize_delay"):
            yield Finding(
                "4", "R4", FAIL, "DOWNLOAD_SLOTS", f"slot {key!r} randomises its delay, which can go under the R4 floor"
            )
    if delay is not None and delay >= floor and not jitter:
        yield Finding("4", "R4", PASS, "DOWNLOAD_DELAY", f"{delay:g} s between requests to a host, no jitter")


@rule
def _pacing_gate(settings: BaseSettings) -> Iterator[Finding]:
    yield from _gate_removed(settings, "4", "R4", PACING_MIDDLEWARE, "the per-host ledger")
    floor = _floor(settings)
    cap = _number(settings, "WALSH_MAX_CRAWL_DELAY")
    if cap is None or cap < floor:
        yield Finding(
            "4",
            "R4",
            FAIL,
            "WALSH_MAX_CRAWL_DELAY",
            f"must be a number of seconds >= WALSH_MIN_INTERVAL ({floor:g}), got "
            f"{settings.get('WALSH_MAX_CRAWL_DELAY')!r}",
        )
    queue = settings.get("SCHEDULER_PRIORITY_QUEUE")
    try:
        ours = load_object(queue) is load_object(POLITENESS_QUEUE)
    except (ImportError, NameError, ValueError, TypeError):
        ours = False
    if not ours:
        yield Finding(
            "4",
            "R4",
            WARN,
            "SCHEDULER_PRIORITY_QUEUE",
            f"{queue!r} is not the politeness-aware queue: spacing still holds, but one "
            "host's delay can idle the whole crawl",
        )


@rule
def _backoff(settings: BaseSettings) -> Iterator[Finding]:
    yield from _gate_removed(settings, "5", "R5", BACKOFF_MIDDLEWARE, "429/503 backoff")
    try:
        codes = {int(c) for c in settings.getlist("WALSH_BACKOFF_HTTP_CODES")}
    except (TypeError, ValueError):
        codes = set()
    if not {429, 503} <= codes:
        yield Finding(
            "5",
            "R5",
            FAIL,
            "WALSH_BACKOFF_HTTP_CODES",
            f"must include 429 and 503, got {settings.get('WALSH_BACKOFF_HTTP_CODES')!r}",
        )
    base, cap = _number(settings, "WALSH_BACKOFF_BASE"), _number(settings, "WALSH_BACKOFF_MAX_DELAY")
    if base is None or base <= 0:
        yield Finding(
            "5",
            "R5",
            FAIL,
            "WALSH_BACKOFF_BASE",
            f"must be a positive number of seconds, got {settings.get('WALSH_BACKOFF_BASE')!r}",
        )
    if cap is None or cap < _floor(settings):
        yield Finding(
            "5",
            "R5",
            FAIL,
            "WALSH_BACKOFF_MAX_DELAY",
            f"must be seconds >= WALSH_MIN_INTERVAL, got {settings.get('WALSH_BACKOFF_MAX_DELAY')!r}",
        )
    retries = settings.get("WALSH_BACKOFF_MAX_RETRIES")
    if _whole_number(retries) is None:
        yield Finding("5", "R5", FAIL, "WALSH_BACKOFF_MAX_RETRIES", f"must be a whole number >= 0, got {retries!r}")
    if component_enabled(settings, "DOWNLOADER_MIDDLEWARES", SCRAPY_RETRY_MIDDLEWARE) and settings.getbool(
        "RETRY_ENABLED"
    ):
        both = sorted(codes & {int(c) for c in settings.getlist("RETRY_HTTP_CODES")})
        if both:
            yield Finding(
                "5",
                "R5",
                FAIL,
                "RETRY_HTTP_CODES",
                f"Scrapy's RetryMiddleware would retry {both} at once, ignoring "
                "Retry-After; leave them to WALSH_BACKOFF_HTTP_CODES",
            )


# --- R6-R8 scope and data handling --------------------------------------------------


@rule
def _scope(settings: BaseSettings) -> Iterator[Finding]:
    yield from _gate_removed(
        settings,
        "6",
        "R6",
        "scrapy_walsh.middlewares.scope.DeclaredTargetsMiddleware",
        "the declared targets",
        "SPIDER_MIDDLEWARES",
    )
    yield from _gate_removed(
        settings, "6", "R6", "scrapy_walsh.middlewares.scope.SubresourceMiddleware", "sub-resources"
    )
    yield from _gate_removed(
        settings, "6", "R6", "scrapy_walsh.pipelines.metadata.MetadataOnlyPipeline", "item contents", "ITEM_PIPELINES"
    )
    if settings.getbool("HTTPCACHE_ENABLED"):
        yield Finding(
            "6",
            "R6",
            FAIL,
            "HTTPCACHE_ENABLED",
            "Scrapy's HTTP cache stores every page body on disk (R6: store no content); "
            "conditional requests (R7) replace it",
        )
    from scrapy.pipelines.media import MediaPipeline

    for path in enabled_components(settings, "ITEM_PIPELINES"):
        try:
            component = load_object(path)
        except (ImportError, NameError, ValueError):
            continue
        if isinstance(component, type) and issubclass(component, MediaPipeline):
            yield Finding(
                "6",
                "R6",
                FAIL,
                "ITEM_PIPELINES",
                f"{getattr(component, '__name__', path)} downloads images or files: "
                "R6 forbids sub-resources and stored content",
            )
    limit = settings.get("WALSH_MAX_FIELD_CHARS")
    if not _whole_number(limit):
        yield Finding("6", "R6", FAIL, "WALSH_MAX_FIELD_CHARS", f"must be a positive whole number, got {limit!r}")


@rule
def _freshness(settings: BaseSettings) -> Iterator[Finding]:
    yield from _gate_removed(
        settings, "7", "R7", "scrapy_walsh.middlewares.conditional.ConditionalMiddleware", "stored validators"
    )
    yield from _gate_removed(
        settings, "7", "R7", "scrapy_walsh.pipelines.dedup.DedupPipeline", "items already emitted", "ITEM_PIPELINES"
    )
    yield from _gate_removed(
        settings, "8", "R8", "scrapy_walsh.middlewares.frequency.FrequencyMiddleware", "the last fetch times"
    )
    interval = _number(settings, "WALSH_REFETCH_INTERVAL")
    if interval is None or interval < 0:
        yield Finding(
            "8",
            "R8",
            FAIL,
            "WALSH_REFETCH_INTERVAL",
            f"must be seconds >= 0, got {settings.get('WALSH_REFETCH_INTERVAL')!r}",
        )
    elif interval == 0:
        yield Finding(
            "8",
            "R8",
            WARN,
            "WALSH_REFETCH_INTERVAL",
            "0 disables the frequency guard: R8 (do not hit a source more than once a "
            "day) is not enforced in this crawl",
        )
    elif component_enabled(
        settings, "DOWNLOADER_MIDDLEWARES", "scrapy_walsh.middlewares.frequency.FrequencyMiddleware"
    ):
        yield Finding("8", "R8", PASS, "WALSH_REFETCH_INTERVAL", f"{interval:g} s between fetches of a target")


def effective_jitter(settings: BaseSettings) -> float:
    """The jitter Scrapy will apply, mirroring its own precedence of the two settings.

    ``RANDOMIZE_DOWNLOAD_DELAY`` (deprecated) wins only when set at a higher priority
    than ``DOWNLOAD_DELAY_JITTER``; it then means ±50 %.
    """
    randomize_priority = settings.getpriority("RANDOMIZE_DOWNLOAD_DELAY") or 0
    if randomize_priority > SETTINGS_PRIORITIES["default"] and randomize_priority > (
        settings.getpriority("DOWNLOAD_DELAY_JITTER") or 0
    ):
        return 0.5 if settings.getbool("RANDOMIZE_DOWNLOAD_DELAY") else 0.0
    return _number(settings, "DOWNLOAD_DELAY_JITTER") or 0.0


# --- seed 000 address guard -------------------------------------------------------


@rule
def _private_addresses(settings: BaseSettings) -> Iterator[Finding]:
    try:
        allowance = PrivateAddressAllowance.parse(settings.get("WALSH_ALLOW_PRIVATE_ADDRESSES"))
    except ValueError as exc:
        yield Finding("9", "seed 000", FAIL, "WALSH_ALLOW_PRIVATE_ADDRESSES", str(exc))
        return
    if allowance.allow_all or allowance.networks:
        yield Finding(
            "9",
            "seed 000",
            WARN,
            "WALSH_ALLOW_PRIVATE_ADDRESSES",
            f"private/loopback targets allowed: {allowance.describe()} (for local demos and tests only)",
        )


ADDRESS_GUARD_MIDDLEWARE = "scrapy_walsh.middlewares.addresses.AddressGuardMiddleware"
CONNECT_REFUSAL_MIDDLEWARE = "scrapy_walsh.middlewares.addresses.ConnectRefusalMiddleware"
#: Download handlers that connect through the reactor's name resolver, which the
#: address guard wraps; others (httpx, aiohttp) resolve names where it can't see.
REACTOR_RESOLVED_HANDLERS = (
    "scrapy.core.downloader.handlers.http11.HTTP11DownloadHandler",
    "scrapy.core.downloader.handlers.http2.H2DownloadHandler",
)


@rule
def _address_guard(settings: BaseSettings) -> Iterator[Finding]:
    yield from _gate_removed(settings, "9", "seed 000", ADDRESS_GUARD_MIDDLEWARE, "the addresses a request goes to")
    yield from _gate_removed(
        settings, "9", "seed 000", CONNECT_REFUSAL_MIDDLEWARE, "connect-time address refusals (they would be retried)"
    )
    if PrivateAddressAllowance.parse(settings.get("WALSH_ALLOW_PRIVATE_ADDRESSES")).allow_all:
        return
    handlers = settings.getwithbase("DOWNLOAD_HANDLERS")
    for scheme in ("http", "https"):
        path = handlers.get(scheme)
        if path is None:
            continue
        try:
            handler = load_object(path) if isinstance(path, str) else path
        except (ImportError, NameError, ValueError, AttributeError):
            continue  # Scrapy itself reports a handler it cannot load
        mro = getattr(handler, "__mro__", ())
        if not any(f"{c.__module__}.{c.__qualname__}" in REACTOR_RESOLVED_HANDLERS for c in mro):
            yield Finding(
                "9",
                "seed 000",
                WARN,
                "DOWNLOAD_HANDLERS",
                f"{scheme}: {getattr(handler, '__name__', path)} does not resolve names "
                "through the reactor: private addresses are refused when a request is "
                "checked, but not again at connect time (a DNS-rebinding window); "
                "Scrapy's HTTP11DownloadHandler and H2DownloadHandler close it",
            )


# --- §8 checklist rows (``scrapy walsh check``) -----------------------------------
#
# The rules above report what breaks; these report, for every row of the checklist,
# what holds, so a self-audit shows each row as pass, warn or fail with its reason.
# A "holds" finding is emitted only when the row's own failure rules found nothing.

MUST, SHOULD = "MUST", "SHOULD"


@dataclass(frozen=True)
class ChecklistRow:
    """One row of seed 001 §8."""

    row: str
    requirement: str
    level: str
    title: str


#: Seed 001 §8, in its order. Row 9 mixes SHOULD (markdown, llms.txt) and MUST NOT
#: (scrape HTML); a fail there is always the MUST NOT.
CHECKLIST: tuple[ChecklistRow, ...] = (
    ChecklistRow("1", "R1", MUST, "Exact User-Agent string"),
    ChecklistRow("2", "R2", MUST, "robots.txt fetched + obeyed, RFC 9309 group selection"),
    ChecklistRow("2a", "R2", MUST, "Named Walsh-Research group overrides *"),
    ChecklistRow("3", "R3", MUST, "Operator blocklist consulted, checked before robots"),
    ChecklistRow("3a", "R3", MUST, "apex + subdomain match"),
    ChecklistRow("3b", "R3", MUST, "retain last list on fetch failure"),
    ChecklistRow("3c", "R3", SHOULD, "validate against schema; reject invalid"),
    ChecklistRow("4", "R4", MUST, "serial; <= 1 req/s/domain; honor Crawl-delay"),
    ChecklistRow("5", "R5", MUST, "429/503 exponential backoff + jitter; Retry-After"),
    ChecklistRow("6", "R6", MUST, "no recursion, no sub-resources, metadata-only"),
    ChecklistRow("7", "R7", SHOULD, "conditional fetch + dedup"),
    ChecklistRow("8", "R8", SHOULD, "infrequent"),
    ChecklistRow("9", "R9", MUST, "feed-less: content-neg markdown / llms.txt; never scrape HTML"),
)
#: Findings not tied to one row (unknown WALSH_* names, a missing add-on, unreadable values).
GENERAL_ROW = ChecklistRow("-", "configuration", MUST, "the configuration can be audited")
_STATUS_RANK = {PASS: 0, WARN: 1, FAIL: 2}


@dataclass(frozen=True)
class RowResult:
    """A checklist row with its findings; its status is the worst of them."""

    row: ChecklistRow
    findings: tuple[Finding, ...]

    @property
    def status(self) -> str:
        if not self.findings:
            return WARN  # no rule audited it: never a silent pass
        return max((f.status for f in self.findings), key=_STATUS_RANK.__getitem__)


def checklist(findings: list[Finding]) -> list[RowResult]:
    """Every §8 row with its findings, in checklist order (general findings first)."""
    rows = [RowResult(r, tuple(f for f in findings if f.row == r.row)) for r in CHECKLIST]
    known = {r.row for r in CHECKLIST}
    general = tuple(f for f in findings if f.row not in known)
    return ([RowResult(GENERAL_ROW, general)] if general else []) + rows


def overall(rows: list[RowResult]) -> str:
    """``fail`` when any row fails (a MUST breaks, or the add-on would refuse to start)."""
    return max((r.status for r in rows), key=_STATUS_RANK.__getitem__, default=PASS)


def _holds(settings: BaseSettings, *failure_rules: Rule) -> bool:
    """True when none of ``failure_rules`` reports a failure on these settings."""
    return not any(f.status == FAIL for check in failure_rules for f in check(settings))


@rule
def _named_group(settings: BaseSettings) -> Iterator[Finding]:
    token = settings.get("WALSH_ROBOTS_TOKEN")
    if not component_enabled(settings, "DOWNLOADER_MIDDLEWARES", ROBOTS_MIDDLEWARE):
        yield Finding(
            "2a",
            "R2",
            FAIL,
            "DOWNLOADER_MIDDLEWARES",
            f"{ROBOTS_MIDDLEWARE} is disabled; no robots.txt group is selected at all",
        )
    elif not isinstance(token, str) or not PRODUCT_TOKEN.fullmatch(token):
        yield Finding(
            "2a", "R2", FAIL, "WALSH_ROBOTS_TOKEN", f"{token!r} is not a product token; no named group can match it"
        )
    elif settings.get("WALSH_ROBOTS_MODE") == "respect":
        yield Finding(
            "2a",
            "R2",
            PASS,
            "WALSH_ROBOTS_TOKEN",
            f"groups are selected by the token {token!r}: a group naming it overrides * both ways (RFC 9309 §2.2.1)",
        )


@rule
def _blocklist_first(settings: BaseSettings) -> Iterator[Finding]:
    chain = enabled_components(settings, "DOWNLOADER_MIDDLEWARES")
    blocklist, robots = _index(chain, BLOCKLIST_MIDDLEWARE), _index(chain, ROBOTS_MIDDLEWARE)
    if blocklist is None or robots is None:
        return  # the gate rules fail the row
    if blocklist > robots:
        yield Finding(
            "3",
            "R3",
            FAIL,
            "DOWNLOADER_MIDDLEWARES",
            "BlocklistMiddleware runs after RobotsMiddleware: robots.txt would be "
            "fetched from a host the operator blocked",
        )
    else:
        yield Finding(
            "3",
            "R3",
            PASS,
            "DOWNLOADER_MIDDLEWARES",
            "BlocklistMiddleware runs before RobotsMiddleware (a blocked host is never contacted)",
        )


@rule
def _blocklist_matching(settings: BaseSettings) -> Iterator[Finding]:
    if not component_enabled(settings, "DOWNLOADER_MIDDLEWARES", BLOCKLIST_MIDDLEWARE):
        yield Finding(
            "3a", "R3", FAIL, "DOWNLOADER_MIDDLEWARES", f"{BLOCKLIST_MIDDLEWARE} is disabled; no domain is matched"
        )
        yield Finding(
            "3b", "R3", FAIL, "DOWNLOADER_MIDDLEWARES", f"{BLOCKLIST_MIDDLEWARE} is disabled; no list is retained"
        )
        yield Finding(
            "3c", "R3", FAIL, "DOWNLOADER_MIDDLEWARES", f"{BLOCKLIST_MIDDLEWARE} is disabled; no list is validated"
        )
        return
    extra = settings.getlist("WALSH_BLOCKLIST_EXTRA")
    yield Finding(
        "3a",
        "R3",
        PASS,
        "WALSH_BLOCKLIST_EXTRA",
        f"a listed domain blocks itself and every subdomain; {len(extra)} local entries added to the operator's list",
    )
    yield Finding(
        "3b",
        "R3",
        PASS,
        "DOWNLOADER_MIDDLEWARES",
        "a failed fetch keeps the list in force; the last adopted list is stored",
    )
    schema = settings.get("WALSH_BLOCKLIST_SCHEMA_URL")
    if schema is None or _is_http_url(schema):
        where = schema if schema else "the bundled schema only"
        yield Finding(
            "3c",
            "R3",
            PASS,
            "WALSH_BLOCKLIST_SCHEMA_URL",
            f"validated against {where} (fallback: last stored copy, then bundled); an invalid list is never adopted",
        )


@rule
def _autothrottle(settings: BaseSettings) -> Iterator[Finding]:
    if not settings.getbool("AUTOTHROTTLE_ENABLED"):
        return
    floor = _floor(settings)
    cap = _number(settings, "AUTOTHROTTLE_MAX_DELAY")
    if cap is None or cap < floor:
        yield Finding(
            "4",
            "R4",
            FAIL,
            "AUTOTHROTTLE_MAX_DELAY",
            f"AUTOTHROTTLE_MAX_DELAY={settings.get('AUTOTHROTTLE_MAX_DELAY')} caps "
            f"AutoThrottle's delay under the R4 floor of {floor:g} s",
        )
    target = _number(settings, "AUTOTHROTTLE_TARGET_CONCURRENCY")
    if target is None or target > 1:
        yield Finding(
            "4",
            "R4",
            WARN,
            "AUTOTHROTTLE_TARGET_CONCURRENCY",
            f"AUTOTHROTTLE_TARGET_CONCURRENCY={settings.get('AUTOTHROTTLE_TARGET_CONCURRENCY')} "
            "aims at concurrent requests; R4 allows one at a time (CONCURRENT_REQUESTS=1 "
            "still holds, so it only shortens AutoThrottle's delays toward the floor)",
        )


@rule
def _spec_identity(settings: BaseSettings) -> Iterator[Finding]:
    from .settings import USER_AGENT

    ua = settings.get("WALSH_USER_AGENT")
    if isinstance(ua, str) and ua.strip() and ua != USER_AGENT:
        yield Finding(
            "1",
            "R1",
            WARN,
            "WALSH_USER_AGENT",
            f"{ua!r} is not the {SPEC_VERSION} identity {USER_AGENT!r}: this crawl speaks for another operator",
        )


@rule
def _backoff_holds(settings: BaseSettings) -> Iterator[Finding]:
    if _holds(settings, _backoff):
        codes = ", ".join(str(c) for c in settings.getlist("WALSH_BACKOFF_HTTP_CODES"))
        yield Finding(
            "5",
            "R5",
            PASS,
            "WALSH_BACKOFF_HTTP_CODES",
            f"{codes} pause the host: Retry-After wins, else exponential backoff with "
            f"jitter, at most {settings.get('WALSH_BACKOFF_MAX_RETRIES')} retries",
        )


@rule
def _scope_holds(settings: BaseSettings) -> Iterator[Finding]:
    if _holds(settings, _scope):
        yield Finding(
            "6",
            "R6",
            PASS,
            "SPIDER_MIDDLEWARES",
            "declared targets only, no sub-resources, items metadata-only "
            f"(strings up to {settings.get('WALSH_MAX_FIELD_CHARS')} characters)",
        )


@rule
def _conditional_holds(settings: BaseSettings) -> Iterator[Finding]:
    chain = enabled_components(settings, "DOWNLOADER_MIDDLEWARES")
    pipelines = enabled_components(settings, "ITEM_PIPELINES")
    if (
        _index(chain, "scrapy_walsh.middlewares.conditional.ConditionalMiddleware") is not None
        and _index(pipelines, "scrapy_walsh.pipelines.dedup.DedupPipeline") is not None
    ):
        yield Finding(
            "7",
            "R7",
            PASS,
            "DOWNLOADER_MIDDLEWARES",
            "stored validators sent (304 = no new data); items deduped by canonical URL",
        )


# --- the spider itself --------------------------------------------------------------

_SELECTORS = re.compile(r"\.(?:css|xpath)\(")
_FOLLOWS = re.compile(r"\.follow(?:_all)?\(")


def audit_spider(spidercls: type) -> list[Finding]:
    """What a spider's class and source show against rows 1, 6 and 9.

    Runtime gates already drop followed links (R6); a spider *written* to recurse
    still fails its row, because only its start URLs will ever be fetched. Link
    extraction and selectors warn: recording links as metadata is allowed, per-site
    HTML scraping (R9) is not, and only a reader can tell the two apart.
    """
    import inspect

    from scrapy.spiders import CrawlSpider

    name = getattr(spidercls, "name", spidercls.__name__)
    findings: list[Finding] = []
    user_agent = getattr(spidercls, "user_agent", None)
    if user_agent:
        findings.append(
            Finding(
                "1",
                "R1",
                WARN,
                f"spider {name}.user_agent",
                f"{user_agent!r}: only the add-on's IdentityMiddleware keeps it from being sent",
            )
        )
    rules = getattr(spidercls, "rules", None)
    if issubclass(spidercls, CrawlSpider) and rules:
        findings.append(
            Finding(
                "6",
                "R6",
                FAIL,
                f"spider {name}.rules",
                f"a CrawlSpider with {len(rules)} rule(s) is written to follow links; "
                "R6 forbids recursion (each request the rules yield is dropped, so "
                "only the start URLs are fetched): use scrapy.Spider with declared targets",
            )
        )
    try:
        source = inspect.getsource(spidercls)
    except (OSError, TypeError):
        findings.append(
            Finding("6", "R6", WARN, f"spider {name}", "source not available; links, follows and selectors not audited")
        )
        return findings
    if "LinkExtractor" in source:
        findings.append(
            Finding(
                "6",
                "R6",
                WARN,
                f"spider {name}",
                "uses a LinkExtractor: recording links as metadata is fine, but "
                "every request built from them is dropped (R6)",
            )
        )
    if _FOLLOWS.search(source):
        findings.append(
            Finding("6", "R6", WARN, f"spider {name}", "calls response.follow(): followed requests are dropped (R6)")
        )
    if not any(f.row == "6" for f in findings):
        findings.append(Finding("6", "R6", PASS, f"spider {name}", "no rules, link extractors or follow() calls"))
    if _SELECTORS.search(source):
        findings.append(
            Finding(
                "9",
                "R9",
                WARN,
                f"spider {name}",
                "extracts with CSS/XPath selectors: R9 forbids per-site HTML "
                "scraping; keep them generic (title, headings, links)",
            )
        )
    else:
        findings.append(Finding("9", "R9", PASS, f"spider {name}", "no CSS/XPath selectors"))
    return findings


def probe_state_store(settings: BaseSettings) -> Finding:
    """Row 3b, for real: can this crawl write its state store?

    An existing store gets a probe key written, read back and deleted, in a namespace
    of its own (no real key is read or changed). A store that does not exist yet is
    not created: its directory (or nearest existing parent) must be writable.
    """
    import os
    import uuid

    from .store import StateStoreError, open_store

    try:
        location = state_location(settings)
    except ValueError as exc:
        return Finding("3b", "R3", FAIL, "WALSH_STATE_URI", str(exc))
    if location.scheme == "sqlite" and not location.path.exists():
        parent = location.path.resolve().parent
        while not parent.exists():
            parent = parent.parent
        if parent.is_dir() and os.access(parent, os.W_OK | os.X_OK):
            return Finding(
                "3b", "R3", PASS, "WALSH_STATE_URI", f"{location.uri} does not exist yet; {parent} is writable"
            )
        return Finding(
            "3b",
            "R3",
            FAIL,
            "WALSH_STATE_URI",
            f"{location.uri} cannot be created: {parent} is not a writable directory",
        )
    key = f"probe-{uuid.uuid4().hex}"
    try:
        store = open_store(location, settings.get("WALSH_ROBOTS_TOKEN") or "Walsh-Research")
        try:
            store.set(Namespace.CHECK, key, True, ttl=60)
            ok = store.get(Namespace.CHECK, key) is True
            store.delete(Namespace.CHECK, key)
        finally:
            store.close()
    except (StateStoreError, OSError) as exc:
        return Finding("3b", "R3", FAIL, "WALSH_STATE_URI", f"cannot write the state store: {exc}")
    if not ok:
        return Finding("3b", "R3", FAIL, "WALSH_STATE_URI", f"{location.uri}: a probe key did not read back")
    return Finding("3b", "R3", PASS, "WALSH_STATE_URI", f"{location.uri} is writable (probe key written and deleted)")
