"""``scrapy walsh explain``: what the crawl decided, gate by gate, read from its own components.

Each section is built from the dry run's outcome (the refusal the request met, the verdicts it
collected) and from the state of the crawl's own gates (its blocklist, robots.txt and pacer), so
the explanation is the crawl's, never a second copy of a step.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy_walsh.config import parse
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.exceptions import BlockedByOperator, PrivateAddressRefused, RecentlyFetched, WalshIgnoreRequest
from scrapy_walsh.middlewares.addresses import AddressGuardMiddleware
from scrapy_walsh.middlewares.blocklist import BlocklistMiddleware
from scrapy_walsh.middlewares.robots_gate import RobotsMiddleware
from scrapy_walsh.policy.addresses import PrivateAddressAllowance, parse_ip
from scrapy_walsh.policy.canonical import canonical_url
from scrapy_walsh.policy.gates import (
    ADDRESS_REFUSED,
    AVAILABLE,
    DNS_FAILURE,
    UNAVAILABLE,
    AddressDecision,
    OriginRobots,
    address_decision,
    origin_of,
)
from scrapy_walsh.policy.hostkey import url_host
from scrapy_walsh.policy.pacing import wait_reason
from scrapy_walsh.policy.urls import split
from scrapy_walsh.policy.vocabulary import (
    BLOCKED_BY_OPERATOR,
    BLOCKING_VERDICTS,
    NOT_BLOCKED,
    SKIPPED_RECENTLY_FETCHED,
    Gate,
    Namespace,
    Verdict,
    recommendation,
)
from scrapy_walsh.sending.checkpoint import NotSent
from scrapy_walsh.sending.pacer import SharedPacer

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

#: Where the crawl's gates got to when the request never reached one (refused before it).
NOT_CONSULTED = "not_consulted"
T = TypeVar("T")


def gate_of(crawler: Crawler, cls: type[T]) -> T:
    """The crawl's own instance of a gate (the add-on places every one)."""
    found = crawler.get_downloader_middleware(cls)
    assert found is not None, cls
    return found


def describe(crawler: Crawler, url: str, exc: BaseException, request: Any, files: dict[str, Any], offline: bool):
    """The report: each gate's section from the crawl's own components and verdicts."""
    config = CrawlContext.of(crawler).config
    host = url_host(url)
    verdicts = (request.meta.get("walsh") or {}).get("verdicts", {})
    refused_by = exc.gate if isinstance(exc, WalshIgnoreRequest) else None
    report: dict[str, Any] = {"url": url, "token": config.robots_token, "user_agent": config.user_agent}
    first = None if "blocklist" in verdicts or isinstance(exc, BlockedByOperator) else refused_by
    report["blocklist"] = blocklist_section(crawler, host, first, files)
    report["address"] = address_section(crawler, host, exc, config.allow_private_addresses, offline)
    robots, outcome = robots_section(crawler, url, verdicts, refused_by, files)
    report["robots"] = robots
    report["usage"] = usage_section(crawler, outcome, url, host)
    report["frequency"] = frequency_section(config.refetch_interval, url, exc)
    report["pacing"] = pacing_section(crawler, host, exc)
    report["cached"] = {"blocklist": report["blocklist"]["cached"], "robots": robots.get("cached", False)}
    decision: tuple[str, str | None, str | None]
    if isinstance(exc, NotSent):
        robots_verdict = verdicts.get("robots")
        if config.robots_mode == "report_only" and robots_verdict in {v.value for v in BLOCKING_VERDICTS}:
            decision = ("fetched anyway (report_only)", Gate.ROBOTS, robots_verdict)
        else:
            decision = ("fetch", None, None)
    elif isinstance(exc, WalshIgnoreRequest):
        decision = ("refused", exc.gate, exc.verdict)
    else:
        decision = ("refused", "network", f"{type(exc).__name__}: {exc}")
    report["decision"] = dict(zip(("outcome", "gate", "verdict"), decision, strict=True))
    report["notes"] = []
    return report


def blocklist_section(crawler: Crawler, host: str, refused_first: str | None, files: dict[str, Any]) -> dict[str, Any]:
    gate = gate_of(crawler, BlocklistMiddleware)
    listed = gate.blocklist
    section: dict[str, Any] = {"cached": gate.source == "stored", "entries": len(listed)}
    if gate.source == "file":
        section["source"] = f"file {files['blocklist_path']}"
    elif gate.source == "fetched":
        section["source"] = f"fetched {gate.url}"
    elif gate.source == "stored":
        saved = gate.store.get(Namespace.BLOCKLIST, gate.url) or {}
        adopted = saved.get("adopted")
        when = f"{_age(time.time() - adopted)} ago " if isinstance(adopted, (int, float)) else ""
        section["source"] = f"stored copy adopted {when}(state store; {gate.url} not fetched now)"
    elif gate.source == "refused":
        section["source"] = "none usable: the stored list passes no schema and no fresh list came (R3 fails closed)"
    else:
        section["source"] = f"none ({gate.url} not fetched; nothing stored): empty list, as a crawl's first run"
    if refused_first is not None:
        section.update(verdict=NOT_CONSULTED, reason=f"not consulted: refused by the {refused_first} gate first")
        return section
    entry = listed.match(host)
    if entry is None:
        section["verdict"] = NOT_BLOCKED
    else:
        added = entry.added.isoformat() if entry.added else None
        section.update(verdict=BLOCKED_BY_OPERATOR, domain=entry.domain, added=added, reason=entry.reason)
    return section


def address_section(
    crawler: Crawler, host: str, exc: BaseException, allowance: PrivateAddressAllowance, offline: bool
) -> dict[str, Any]:
    section: dict[str, Any] = {"host": host}
    if isinstance(exc, PrivateAddressRefused):
        checked = AddressDecision(ADDRESS_REFUSED, exc.details.get("address"), exc.details.get("address_class"))
    else:
        addresses = _looked_up(crawler, host)
        checked = address_decision(addresses, allowance) if addresses else AddressDecision(DNS_FAILURE)
    section["verdict"] = checked.verdict
    if checked.address is not None:
        section["address"] = checked.address
    if checked.verdict == ADDRESS_REFUSED:
        section.update(address_class=checked.address_class, reason=refusal_text(checked, allowance))
    elif checked.verdict == DNS_FAILURE and offline:
        section.update(verdict="unchecked", reason="not resolved (--offline)")
    elif checked.verdict == DNS_FAILURE:
        section["reason"] = "does not resolve (DNS failure): not refused by this gate; connections to it fail"
    return section


def _looked_up(crawler: Crawler, host: str) -> list[str]:
    """The addresses the address gate saw for ``host`` (its resolver's cached answer)."""
    ip = parse_ip(host)
    if ip is not None:
        return [str(ip)]
    guard = crawler.get_downloader_middleware(AddressGuardMiddleware)
    if guard is None or guard.reactorless:
        return []
    found: list[str] = []
    guard.guard.lookup(host).addCallbacks(found.extend, lambda _failure: None)
    return found


def refusal_text(decision: AddressDecision, allowance: PrivateAddressAllowance) -> str:
    allowed = allowance.describe() if len(allowance.networks) <= 3 else (f"{len(allowance.networks)} networks")
    return (
        f"{decision.address} is a {(decision.address_class or '').replace('_', ' ')} address and "
        f"WALSH_ALLOW_PRIVATE_ADDRESSES ({allowed}) does not permit it (the address rule)"
    )


def robots_section(
    crawler: Crawler, url: str, verdicts: dict[str, str], refused_by: str | None, files: dict[str, Any]
) -> tuple[dict[str, Any], OriginRobots | None]:
    """What the crawl's robots gate knew of the origin, and why."""
    gate = gate_of(crawler, RobotsMiddleware)
    parts = split(url)
    section: dict[str, Any] = {"mode": gate.mode, "url": f"{parts.scheme}://{parts.netloc}/robots.txt", "cached": False}
    if gate.mode == "ignore":
        skipped = Verdict.SKIPPED_BY_USER_POLICY
        section.update(source="not consulted (WALSH_ROBOTS_MODE = 'ignore')", verdict=skipped.value)
        section["recommendation"] = recommendation(skipped).value
        return section, None
    known = gate.origins.get(origin_of(url))
    outcome = known if isinstance(known, OriginRobots) else None
    if outcome is None:
        section["source"] = f"not fetched: refused by the {refused_by} gate first"
        return section, None
    age = _age(time.time() - outcome.fetched_at)
    if outcome.source == "file":
        section["source"] = f"file {files['robots_path']}"
    elif outcome.source == "cache":
        section.update(cached=True, status=outcome.status)
        section["source"] = (
            f"stored copy fetched {age} ago (state store, younger than "
            f"WALSH_ROBOTS_CACHE_SECONDS = {gate.cache_seconds:.0f})"
        )
    elif outcome.source == "stale":
        section.update(cached=True, status=outcome.status)
        section["source"] = (
            f"stored copy fetched {age} ago (unreachable now; RFC 9309 §2.3.1.4 allows a copy under 30 days)"
        )
    elif outcome.outcome == AVAILABLE:
        section.update(status=outcome.status, source=f"fetched now ({section['url']}: HTTP {outcome.status})")
    elif outcome.outcome == UNAVAILABLE:
        section.update(
            status=outcome.status, source=f"fetched now ({outcome.reason}: no robots.txt, nothing is disallowed)"
        )
    else:
        section.update(status=outcome.status, source=f"unreachable ({outcome.reason}), nothing stored")
    token = CrawlContext.of(crawler).config.robots_token
    parsed = outcome.robots
    if parsed is not None:
        why = parsed.explain(url, token)
        section.update(
            groups=[g.describe() for g in why.groups] or ["no group for us and no * group"],
            selected="named" if why.named else ("*" if why.groups else "none"),
            overridden=[g.describe() for g in why.overridden],
            rule=why.rule.describe() if why.rule else None,
            crawl_delay=why.crawl_delay,
            crawl_delay_line=why.crawl_delay_line,
            request_rate=why.request_rate,
            request_rate_line=why.request_rate_line,
            parse_error=why.parse_error,
            sitemaps=parsed.sitemaps,
        )
    verdict = Verdict(verdicts.get("robots") or outcome.verdict(url, token))
    section.update(verdict=verdict.value, recommendation=recommendation(verdict).value)
    return section, outcome


def frequency_section(interval: float, url: str, exc: BaseException) -> dict[str, Any]:
    """R8 as the crawl's frequency gate decided it."""
    section: dict[str, Any] = {"target": canonical_url(url), "interval": interval}
    if isinstance(exc, RecentlyFetched):
        section.update(verdict=SKIPPED_RECENTLY_FETCHED, reason=exc.reason, fetched_at=exc.details.get("fetched_at"))
    else:
        section["verdict"] = "not_recent" if interval > 0 else "disabled"
    return section


def pacing_section(crawler: Crawler, host: str, exc: BaseException) -> dict[str, Any]:
    """The crawl's pacer for ``host`` (its ledger entry, under the crawl's pacing key)."""
    politeness = CrawlContext.of(crawler).get(SharedPacer)
    pace = politeness.pacer.pace(host)
    section: dict[str, Any] = {
        "key": politeness.key(host),
        "interval": politeness.pacer.interval(host),
        "floor": politeness.pacer.floor,
        "host_interval": politeness.pacer.host_floors.get(host),
        "crawl_delay": pace.crawl_delay,
        "request_rate": pace.request_rate,
        "adaptive": pace.adaptive or None,
        "paused_for": max(0.0, (pace.not_before or 0.0) - politeness.now()) or None,
    }
    if isinstance(exc, NotSent) and exc.wait > 0:  # no silent wait: say why, in the crawl's words
        section["wait"] = {"seconds": round(exc.wait, 3), "reason": wait_reason(pace, politeness.pacer.floor_for(host))}
    capped = politeness.capped_delay(host)
    if capped is not None:
        section["cap"] = f"Crawl-delay {capped:g} s > WALSH_MAX_CRAWL_DELAY {politeness.cap:g} s"
    return section


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def usage_section(crawler: Crawler, outcome: OriginRobots | None, url: str, host: str) -> dict[str, Any]:
    """Per declared purpose, what the selected robots.txt group says (the crawl's own model,
    :func:`~scrapy_walsh.policy.preferences.usage_decision`), and the host's RateLimit term
    in the crawl's pacer. tdmrep.json and the response's headers are known only at fetch."""
    from scrapy_walsh.policy.preferences import usage_decision

    settings = crawler.settings
    token = CrawlContext.of(crawler).config.robots_token
    purposes = parse(settings, "WALSH_PURPOSES")
    lines = outcome.robots.usage_lines(token) if outcome is not None and outcome.robots is not None else []
    parts = split(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    decision = usage_decision(path, purposes, robots=lines, token=token)
    return {
        "mode": parse(settings, "WALSH_USAGE_MODE"),
        "declared": settings.getpriority("WALSH_PURPOSES") not in (None, 0),
        **decision.as_dict(),
        "ratelimit": CrawlContext.of(crawler).get(SharedPacer).pacer.pace(host).ratelimit,
    }
