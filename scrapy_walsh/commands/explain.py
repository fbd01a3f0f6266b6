"""``scrapy walsh explain URL``: the gate-by-gate decision for one URL, with its reasons.

It answers "why was this (not) fetched?" by asking the crawl itself: explain runs a
one-request crawl of ``URL`` through the add-on's own components, with the project's
settings, in a dry run (:func:`scrapy_walsh.checkpoint.dry_run`). The target meets every
gate in the crawl's order (admission, address, blocklist, robots.txt, R8, usage, backoff,
pacing) and then the checkpoint, which evaluates its pace without reserving it and sends
it nothing. What the gates need on the way goes out exactly as in a crawl (the blocklist
and its published schema, the origin's robots.txt: through the crawler, paced in the
identity's shared ledger, signed, redirects gated, outcomes stored). So there is no
second copy of any step here (docs/architecture.md, "explain is a crawl"): this module
holds the command's arguments and the rendering of what the crawl decided.

* Settings are the project's with the add-on applied (its defaults and its audit): a
  settings module that would not start a crawl is refused, with the audit's reasons (exit 2).
* ``--offline``: the checkpoint sends nothing at all, and names are not looked up (only
  IP literals and the demo's ``*.walsh-demo.test`` table): the state store's copies (a
  robots.txt under 30 days old, the last adopted blocklist) and the given files decide.
* ``--robots-file`` / ``--blocklist-file`` stand in for the origin's robots.txt and the
  operator's list (the crawl's gates read them as if fetched).
* In the dry run the frequency gate (R8) reads its rule without claiming the target, so a
  crawl running meanwhile is not kept from it.

Exit status: 0 when the URL was explained (whatever the decision), 1 when an input
file is unreadable or invalid, 2 when the settings are refused.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

import scrapy
from scrapy.settings import SETTINGS_PRIORITIES
from twisted.internet import defer
from twisted.internet.error import DNSLookupError

from ..checkpoint import NotSent, dry_run
from ..config import config_for, parse
from ..demo.hosts import DEMO_DOMAIN
from ..demo.resolver import DemoResolver
from ..exceptions import (
    BlockedByOperator,
    PrivateAddressRefused,
    RecentlyFetched,
    WalshIgnoreRequest,
)
from ..middlewares.addresses import AddressGuardMiddleware
from ..middlewares.blocklist import BlocklistMiddleware
from ..middlewares.robots import RobotsMiddleware
from ..policy.addresses import PrivateAddressAllowance, parse_ip
from ..policy.blocklist import Blocklist, InvalidBlocklist
from ..policy.canonical import canonical_url
from ..policy.gates import (
    ADDRESS_REFUSED,
    AVAILABLE,
    DNS_FAILURE,
    UNAVAILABLE,
    AddressDecision,
    OriginRobots,
    address_decision,
    origin_of,
)
from ..policy.hostkey import url_host, url_problem
from ..policy.pacing import wait_reason
from ..policy.robots import RobotsTxt
from ..policy.vocabulary import (
    BLOCKED_BY_OPERATOR,
    BLOCKING_VERDICTS,
    NOT_BLOCKED,
    SKIPPED_RECENTLY_FETCHED,
    Gate,
    Namespace,
    Verdict,
    recommendation,
)
from ..shared_pacer import politeness_for

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from scrapy.crawler import Crawler
    from scrapy.settings import Settings

HELP = "show the gate-by-gate decision for one URL: blocklist, robots.txt group and line, pace"
SYNTAX = "URL [--robots-file F] [--blocklist-file F] [--offline] [--json]"

#: Where the crawl's gates got to when the request never reached one (refused before it).
NOT_CONSULTED = "not_consulted"
T = TypeVar("T")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", metavar="URL", help="an absolute http(s) URL")
    parser.add_argument("--robots-file", metavar="F", help="read this robots.txt instead of fetching the origin's")
    parser.add_argument("--blocklist-file", metavar="F", help="read this blocklist instead of WALSH_BLOCKLIST_URL")
    parser.add_argument(
        "--offline", action="store_true", help="send nothing: use the given files and the state store's copies only"
    )
    parser.add_argument("--json", action="store_true", help="print the explanation as one JSON object")


class OfflineResolver(DemoResolver):
    """``--offline``: IP literals and the demo's table only; no name is looked up."""

    def getHostByName(self, name: str, timeout: Sequence[int] = ()) -> defer.Deferred[str]:  # noqa: N802 - Twisted's
        key = name.lower().rstrip(".")
        if key == DEMO_DOMAIN or key.endswith("." + DEMO_DOMAIN) or parse_ip(key) is not None:
            return super().getHostByName(name, timeout)
        return defer.fail(DNSLookupError(f"{name}: not resolved (--offline)"))


# --------------------------------------------------------------------- the one-request crawl


class ExplainSpider(scrapy.Spider):
    """Declares ``url`` and hands it to the gates; the outcome is written into ``report``."""

    name = "walsh-explain"

    def __init__(self, url: str, report: dict[str, Any], files: dict[str, Any], offline: bool, **kwargs: Any):
        super().__init__(**kwargs)
        self.url, self.report, self.files, self.offline = url, report, files, offline

    async def start(self) -> AsyncIterator[scrapy.Request]:
        if "robots" in self.files:  # the crawl's robots gate reads the file as this origin's robots.txt
            origin = origin_of(self.url)
            robots = RobotsTxt.parse(self.files["robots"])
            gate = _component(self.crawler, RobotsMiddleware)
            gate.origins[origin] = OriginRobots(origin, AVAILABLE, time.time(), 200, robots=robots, source="file")
        if "blocklist" in self.files:  # and the operator's list as the fetched one, not refreshed
            listed = _component(self.crawler, BlocklistMiddleware)
            listed._adopt(self.files["blocklist"], "file")
            listed.next_refresh = float("inf")
        yield scrapy.Request(self.url, callback=self.sent, errback=self.decided, dont_filter=True)

    def sent(self, response: Any) -> None:  # never called: the checkpoint sends no target in a dry run
        raise AssertionError(f"explain's dry run sent {response.url}")

    def decided(self, failure: Any) -> None:
        self.report.update(describe(self.crawler, self.url, failure.value, failure.request, self.files, self.offline))


def _component(crawler: Crawler, cls: type[T]) -> T:
    """The crawl's own instance of a gate (the add-on places every one)."""
    found = crawler.get_downloader_middleware(cls)
    assert found is not None, cls
    return found


def crawl_settings(project: Settings, offline: bool) -> Settings:
    """The project's settings with the add-on, quiet (the report is the output)."""
    settings = project.copy()
    addons = dict(settings.getdict("ADDONS"))
    if not any(str(getattr(k, "__qualname__", k)).endswith("Addon") and "scrapy_walsh" in str(k) for k in addons):
        addons["scrapy_walsh.Addon"] = 500
        settings.set("ADDONS", addons, priority="command")
    cmdline = SETTINGS_PRIORITIES["cmdline"]
    if (settings.getpriority("LOG_LEVEL") or 0) < cmdline:  # -L / --loglevel still win
        settings.set("LOG_LEVEL", "ERROR", priority="cmdline")
    settings.set("LOGSTATS_INTERVAL", 0, priority="cmdline")
    settings.set("TELNETCONSOLE_ENABLED", False, priority="cmdline")
    if offline:
        for name in ("TWISTED_DNS_RESOLVER", "DNS_RESOLVER"):
            settings.set(name, f"{OfflineResolver.__module__}.{OfflineResolver.__qualname__}", priority="cmdline")
    return settings


# --------------------------------------------------------------------- what the crawl decided


def describe(crawler: Crawler, url: str, exc: BaseException, request: Any, files: dict[str, Any], offline: bool):
    """The report: each gate's section from the crawl's own components and verdicts."""
    config = config_for(crawler)
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
    gate = _component(crawler, BlocklistMiddleware)
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
    gate = _component(crawler, RobotsMiddleware)
    parts = urlsplit(url)
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
    token = config_for(crawler).robots_token
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
    politeness = politeness_for(crawler)
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
    if isinstance(exc, NotSent) and exc.wait > 0:  # no silent wait, in the crawl's words
        section["wait"] = {"seconds": round(exc.wait, 3), "reason": wait_reason(pace, politeness.pacer.floor_for(host))}
    capped = politeness.capped_delay(host)
    if capped is not None:
        section["cap"] = f"Crawl-delay {capped:g} s > WALSH_MAX_CRAWL_DELAY {politeness.cap:g} s"
    return section


# --------------------------------------------------------------------- report


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _secs(value: float | None, line: int | None) -> str:
    if value is None:
        return "none"
    return f"{value:g} s (line {line})"


def render(report: dict[str, Any]) -> str:
    """The explanation for people, one gate per paragraph."""
    b, a, r, p, d = report["blocklist"], report["address"], report["robots"], report["pacing"], report["decision"]
    out = [f"URL          {report['url']}", f"identity     {report['user_agent']} (token {report['token']})", ""]
    if b["verdict"] == BLOCKED_BY_OPERATOR:
        line = f"BLOCKED by entry {b['domain']!r} (added {b['added']}: {b['reason']})"
    elif b["verdict"] == NOT_CONSULTED:
        line = b["reason"]
    else:
        line = "not blocked: no entry covers this host"
    entries = f"{b['entries']} entr{'y' if b['entries'] == 1 else 'ies'}"
    out += [f"blocklist    {line}", f"             list: {b['source']}; {entries}", ""]
    if "verdict" in a:
        where = f" ({a['address']})" if "address" in a else ""
        out += [f"address      {a['host']}{where}: " + ("allowed" if a["verdict"] == "allowed" else a["reason"]), ""]
    out.append(f"robots.txt   {r.get('url', '')}".rstrip())
    out.append(f"             source: {r['source']}")
    if "mode" in r and r["mode"] != "respect":
        out.append(f"             mode: {r['mode']}")
    if "groups" in r:
        label = {"named": "group naming us", "*": "the * group (none names us)", "none": "no group"}[r["selected"]]
        out.append(f"             selected: {label}")
        out += [f"               {g}" for g in r["groups"]]
        out += [f"               (overrides {g})" for g in r["overridden"]]
        out.append(f"             rule: {r['rule'] or 'none matches: nothing disallows this path'}")
        if r.get("parse_error"):
            out.append(f"             not a robots.txt: {r['parse_error']}")
        out.append(
            f"             Crawl-delay: {_secs(r['crawl_delay'], r['crawl_delay_line'])}; "
            f"Request-rate: {_secs(r['request_rate'], r['request_rate_line'])}"
        )
    if "verdict" in r:
        out.append(f"             verdict: {r['verdict']} -> {r['recommendation']}")
    out += render_usage(report["usage"])
    f = report["frequency"]
    if f["verdict"] == SKIPPED_RECENTLY_FETCHED:
        out += ["", f"R8           {f['target']}: {f['reason']}"]
    terms = [
        f"WALSH_MIN_INTERVAL {p['floor']:g} s",
        *([f"DOWNLOAD_SLOTS delay {p['host_interval']:g} s"] if p.get("host_interval") else []),
        f"Crawl-delay {p['crawl_delay']:g} s" if p["crawl_delay"] is not None else "Crawl-delay -",
        f"Request-rate {p['request_rate']:g} s" if p["request_rate"] is not None else "Request-rate -",
    ]
    if p["adaptive"]:
        terms.append(f"adaptive {p['adaptive']:.3g} s (stored ledger)")
    out += ["", f"pacing       {p['interval']:g} s between requests to this host = max({', '.join(terms)})"]
    if p["paused_for"]:
        out.append(f"             paused for {p['paused_for']:.0f} s more (R5 backoff, stored ledger)")
    if "wait" in p:
        out.append(f"wait         {p['wait']['seconds']:.1f} s before the next request: {p['wait']['reason']}")
    if "cap" in p:
        out.append(f"             {p['cap']}: the host is not crawled")
    cached = report["cached"]
    out.append(
        f"cached       blocklist: {'yes' if cached['blocklist'] else 'no'}; "
        f"robots.txt: {'yes' if cached['robots'] else 'no'}"
    )
    out += [f"note         {n}" for n in report["notes"]]
    if d["outcome"] == "fetch":
        out += ["", "decision     FETCH (every gate allows it)"]
    else:
        out += ["", f"decision     {d['outcome'].upper()} by the {d['gate']} gate ({d['verdict']})"]
    return "\n".join(out)


# ------------------------------------------------------------------------------ usage preferences


def usage_section(crawler: Crawler, outcome: OriginRobots | None, url: str, host: str) -> dict[str, Any]:
    """Per declared purpose, what the selected robots.txt group says (the crawl's own model,
    :func:`~scrapy_walsh.policy.preferences.usage_decision`), and the host's RateLimit term
    in the crawl's pacer. tdmrep.json and the response's headers are known only at fetch."""
    from ..policy.preferences import usage_decision

    settings = crawler.settings
    token = config_for(crawler).robots_token
    purposes = parse(settings, "WALSH_PURPOSES")
    lines = outcome.robots.usage_lines(token) if outcome is not None and outcome.robots is not None else []
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    decision = usage_decision(path, purposes, robots=lines, token=token)
    return {
        "mode": parse(settings, "WALSH_USAGE_MODE"),
        "declared": settings.getpriority("WALSH_PURPOSES") not in (None, 0),
        **decision.as_dict(),
        "ratelimit": politeness_for(crawler).pacer.pace(host).ratelimit,
    }


def render_usage(u: dict[str, Any]) -> list[str]:
    declared = "" if u["declared"] else " (WALSH_PURPOSES not declared: every purpose)"
    out = ["", f"usage        mode {u['mode']}{declared}; from robots.txt (tdmrep.json and headers: at fetch)"]
    for d in u["decisions"]:
        out.append(f"             {d['purpose']:<9} {d['preference']:<9}" + (f" {d['source']}" if d["source"] else ""))
    out += [f"             licence/policy: {ref}" for ref in u["references"]]
    if u["ratelimit"]:
        out.append(f"             RateLimit: {u['ratelimit']:g} s between requests (stored ledger)")
    return out


def run(args: argparse.Namespace, settings: Settings) -> int:
    from scrapy.crawler import CrawlerProcess

    from ..addon import Addon

    if problem := url_problem(args.url):
        print(f"error: {problem}", file=sys.stderr)
        return 1
    files: dict[str, Any] = {}
    try:
        if args.robots_file:
            files.update(robots=Path(args.robots_file).read_bytes(), robots_path=args.robots_file)
        if args.blocklist_file:
            listed = Blocklist.from_document(Path(args.blocklist_file).read_bytes())
            files.update(blocklist=listed, blocklist_path=args.blocklist_file)
    except (OSError, InvalidBlocklist) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    project = crawl_settings(settings, args.offline)
    try:
        Addon().update_settings(project.copy())  # the crawl's own audit, before anything starts
    except ValueError as exc:
        print(f"error: these settings would not start a crawl, so there is nothing to explain:\n{exc}", file=sys.stderr)
        return 2
    report: dict[str, Any] = {}
    process = CrawlerProcess(project)
    crawler = process.create_crawler(ExplainSpider)
    dry_run(crawler, offline=args.offline)
    process.crawl(crawler, url=args.url, report=report, files=files, offline=args.offline)
    process.start()
    if not report:
        print(f"error: the crawl of {args.url} ended without reaching a decision (see the log above)", file=sys.stderr)
        return 1
    report["explained_at"] = datetime.now(UTC).replace(microsecond=0).isoformat()
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0
