"""``scrapy walsh explain URL``: the gate-by-gate decision for one URL, with its reasons.

It answers "why was this (not) fetched?" the way the crawl decides it, in the crawl's
order: the operator blocklist (R3), the address rule (seed 000: no private or loopback
targets unless ``WALSH_ALLOW_PRIVATE_ADDRESSES`` permits them), robots.txt (R2: the
selected groups and their lines, the deciding rule, verdict and recommendation), R8
(a target fetched within ``WALSH_REFETCH_INTERVAL``, from the store), then the pace (R4).
Every decision is the crawl's own function (:mod:`scrapy_walsh.policy.gates`); this
module is only the transport. Decisions where the issue is silent:

* Settings are the project's with the add-on applied (its defaults and its audit), so
  a settings module that would not start a crawl is refused here too, with the audit's
  reasons (exit 2).
* Online, each resource is asked for once, with the exact User-Agent, directly from
  this process (no Scrapy engine): the blocklist from ``WALSH_BLOCKLIST_URL`` and the
  origin's robots.txt, each following at most 5 redirects, every hop checked against
  the blocklist and the address rule first. No retries. A host the blocklist covers
  is never contacted, not even for robots.txt, exactly as in a crawl. More than 5
  robots.txt redirects mean "unavailable" (RFC 9309 §2.3.1.2), as in a crawl.
* A name that does not resolve is not a private address: the address gate lets it
  through (its connections fail), so robots.txt is unreachable, as in a crawl.
* explain shares the crawl's state store (by default the identity's one per machine,
  issue 17): each request it sends first *reserves* the host's slot in the same pacing
  ledger as a crawl (waiting when another process of the identity holds it) and settles
  it when the answer arrives, so a crawl and explain together keep R4; a robots.txt it
  fetches is stored as a crawl stores it (a crawl starting next reads it instead of
  fetching it again), and while another process is fetching that robots.txt, explain
  waits for its copy. When the store can't be opened, nothing is sent (as ``--offline``).
* Cached copies come from that state store: a robots.txt outcome younger than
  ``WALSH_ROBOTS_CACHE_SECONDS`` is used instead of
  a fetch (the crawl would use it too); a stored copy under 30 days old stands in for
  an unreachable robots.txt, and the last adopted blocklist for one that can't be
  fetched. The output says which copy was used. ``--offline`` uses stored copies and
  the given files only and sends nothing.
* ``*.walsh-demo.test`` names are resolved through the demo's table when the project's
  resolver setting (``TWISTED_DNS_RESOLVER`` / ``DNS_RESOLVER``) is the demo resolver,
  as the crawl would; any other name through the system resolver. The connection goes
  to the address that was checked, so a second lookup can't change it.
* The blocklist is validated with the bundled schema (the crawl prefers the published
  one; both are the same contract).

Exit status: 0 when the URL was explained (whatever the decision), 1 when an input
file is unreadable or invalid, 2 when the settings are refused.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import sys
import time
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from ..policy.addresses import PrivateAddressAllowance, parse_ip
from ..policy.blocklist import MAX_DOCUMENT_BYTES, Blocklist, InvalidBlocklist, from_stored
from ..policy.canonical import canonical_url
from ..policy.gates import (
    ADDRESS_ALLOWED,
    ADDRESS_REFUSED,
    AVAILABLE,
    DNS_FAILURE,
    FETCHED_NAMESPACE,
    MAX_REDIRECTS,
    ROBOTS_NAMESPACE,
    STALE_LIMIT,
    UNAVAILABLE,
    UNREACHABLE,
    AddressDecision,
    OriginRobots,
    RobotsFetch,
    address_decision,
    crawl_delay_over_cap,
    follow_redirect,
    is_redirect,
    origin_of,
    recently_fetched,
    recently_fetched_reason,
    record,
    restore,
    robots_outcome,
    usable_copy,
    with_stale_copy,
)
from ..policy.hostkey import host_key
from ..policy.pacing import HostPace
from ..policy.robots import MAX_BYTES, RobotsTxt
from ..policy.vocabulary import (
    BLOCKED_BY_OPERATOR,
    BLOCKING_VERDICTS,
    CRAWL_DELAY_EXCEEDS_CAP,
    NOT_BLOCKED,
    PRIVATE_ADDRESS,
    SKIPPED_RECENTLY_FETCHED,
    USAGE_RESERVED,
    Gate,
    Namespace,
    Verdict,
    recommendation,
)
from ..store import fetching
from ..store.base import StateStoreError

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings, Settings

    from ..store import StateStore

HELP = "show the gate-by-gate decision for one URL: blocklist, robots.txt group and line, pace"
SYNTAX = "URL [--robots-file F] [--blocklist-file F] [--offline] [--json]"

TIMEOUT = 10.0
DEMO_RESOLVER = "scrapy_walsh.demo.resolver.DemoResolver"
BLOCKLIST_NAMESPACE, PACING_NAMESPACE = Namespace.BLOCKLIST, Namespace.PACING


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", metavar="URL", help="an absolute http(s) URL")
    parser.add_argument("--robots-file", metavar="F", help="read this robots.txt instead of fetching the origin's")
    parser.add_argument("--blocklist-file", metavar="F", help="read this blocklist instead of WALSH_BLOCKLIST_URL")
    parser.add_argument(
        "--offline", action="store_true", help="send nothing: use the given files and the state store's copies only"
    )
    parser.add_argument("--json", action="store_true", help="print the explanation as one JSON object")


class Refused(Exception):
    """A fetch the crawl itself would not make; the message says which rule."""


class Offline(Exception):
    """``--offline`` and the answer needs the network (a DNS lookup)."""


class Unresolved(Exception):
    """The name has no address: the DNS lookup failed (the crawl's connection would fail too)."""


# --------------------------------------------------------------------- settings


@dataclass
class Context:
    settings: BaseSettings
    token: str
    user_agent: str
    floor: float
    max_crawl_delay: float
    mode: str
    cache_seconds: float
    allowance: PrivateAddressAllowance
    demo_names: bool
    blocklist_url: str
    extra: list[str]
    offline: bool
    refetch_interval: float = 0.0
    pace_by: str = "host"
    #: host -> the project's own interval for it (DOWNLOAD_SLOTS delays)
    host_intervals: dict[str, float] = field(default_factory=dict)
    store: StateStore | None = None
    #: host -> (ledger key, interval) of a slot taken and not yet settled
    reserved: dict[str, tuple[str, float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @classmethod
    def from_settings(cls, project: Settings, offline: bool) -> Context:
        """The project's settings as a crawl sees them: add-on defaults, preset and audit
        (``ConformanceError``, a ``ValueError``, when they would not start a crawl)."""
        from ..addon import Addon
        from ..config import WalshConfig, host_intervals

        settings = project.copy()
        Addon().update_settings(settings)
        config = WalshConfig.from_settings(settings)
        resolver = settings.get("TWISTED_DNS_RESOLVER") or settings.get("DNS_RESOLVER")
        resolver_path = resolver if isinstance(resolver, str) else f"{resolver.__module__}.{resolver.__qualname__}"
        return cls(
            settings=settings,
            token=config.robots_token,
            user_agent=config.user_agent,
            floor=config.min_interval,
            max_crawl_delay=config.max_crawl_delay,
            mode=config.robots_mode,
            cache_seconds=config.robots_cache_seconds,
            allowance=config.allow_private_addresses,
            demo_names=resolver_path == DEMO_RESOLVER,
            blocklist_url=config.blocklist_url,
            extra=list(config.blocklist_extra),
            refetch_interval=config.refetch_interval,
            pace_by=getattr(config, "pace_by", "host"),
            host_intervals=host_intervals(settings),
            offline=offline,
        )

    def open_store(self) -> None:
        """The crawl's state store (created when missing, unless ``--offline``): explain
        reserves its requests in its pacing ledger. Unusable: nothing is sent."""
        from ..store import StateStoreError, open_store, state_location

        location = state_location(self.settings)
        if self.offline and location.scheme == "sqlite" and not location.path.exists():
            self.notes.append(f"no state store at {location.uri}: no cached copies")
            return
        try:
            self.store = open_store(location, self.token)
        except StateStoreError as exc:
            self.notes.append(f"state store unusable ({exc}): no cached copies, and nothing sent (offline)")
            self.offline = True

    def floor_for(self, host: str) -> float:
        return max(self.floor, self.host_intervals.get(host, 0.0))

    def reserve(self, host: str, address: str) -> None:
        """Wait for ``host``'s slot in the shared pacing ledger and take it, as a crawl's
        pacing middleware does (same key, interval and margin); ``Refused`` without a store."""
        from ..shared_pacer import KEEP, PACING_MARGIN, pace_key
        from ..store import Ledger, StateStoreError

        if self.store is None:
            raise Refused(f"{host}: no state store to reserve a pacing slot in: not sent")
        ledger = Ledger(self.store, PACING_NAMESPACE)
        key = pace_key(host, address, self.pace_by)
        try:
            while True:
                saved = self.store.get(PACING_NAMESPACE, key) or {}
                interval = HostPace.from_json(saved).interval(self.floor_for(host))
                done = ledger.reserve(key, interval, PACING_MARGIN, ttl=interval + KEEP)
                if not done.wait:
                    self.reserved[host] = (key, interval)
                    return
                self.notes.append(f"waited {done.wait:.2f} s for {host}'s pacing slot (shared ledger, R4)")
                time.sleep(done.wait)
        except StateStoreError as exc:
            raise Refused(f"{host}: the pacing ledger can't be reached ({exc}): not sent") from exc

    def settle(self, host: str) -> None:
        """The answer arrived: the next interval counts from now (the crawl's settle)."""
        from ..shared_pacer import KEEP
        from ..store import Ledger, StateStoreError

        found = self.reserved.pop(host, None)
        if found is None or self.store is None:
            return
        key, interval = found
        try:
            Ledger(self.store, PACING_NAMESPACE).advance(key, {"last_start": 0.0}, ttl=interval + KEEP)
        except StateStoreError:
            pass  # the reservation already holds the slot


# --------------------------------------------------------------------- network


def resolve(host: str, ctx: Context) -> list[str]:
    """Every address a crawl's resolver gives ``host`` (the first is connected to)."""
    ip = parse_ip(host)
    if ip is not None:
        return [str(ip)]
    if ctx.demo_names:
        from ..demo.hosts import DEMO_DOMAIN, lookup

        if host == DEMO_DOMAIN or host.endswith("." + DEMO_DOMAIN):
            demo = lookup(host)
            if demo is None:
                raise Unresolved(f"{host}: no such demo host")
            return [demo.ip]
    if ctx.offline:
        raise Offline(host)
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except OSError as exc:
        raise Unresolved(f"{host}: DNS lookup failed: {exc}") from None
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def check_address(host: str, ctx: Context) -> AddressDecision:
    """The crawl's address rule (:func:`scrapy_walsh.policy.gates.address_decision`) on
    ``host``'s addresses: allowed, ``private_address`` or ``dns_failure`` (``Offline``
    is raised under ``--offline``)."""
    try:
        addresses = resolve(host, ctx)
    except Unresolved:
        return AddressDecision(DNS_FAILURE)
    return address_decision(addresses, ctx.allowance)


def refusal_text(decision: AddressDecision, ctx: Context) -> str:
    allowed = (
        ctx.allowance.describe() if len(ctx.allowance.networks) <= 3 else (f"{len(ctx.allowance.networks)} networks")
    )
    return (
        f"{decision.address} is a {(decision.address_class or '').replace('_', ' ')} address and "
        f"WALSH_ALLOW_PRIVATE_ADDRESSES ({allowed}) does not permit it (the address rule)"
    )


def _pinned(address: str, port: int) -> Any:
    """http.client's connect hook, pinned to ``address`` whatever the URL's name."""

    def connect(_address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        return socket.create_connection((address, port), *args, **kwargs)

    return connect


@dataclass
class Fetched:
    url: str
    status: int
    body: bytes
    address: str
    #: The answer is a redirect left unfollowed: more than MAX_REDIRECTS in a row.
    has_location: bool = False


def fetch_once(url: str, ctx: Context, limit: int, blocklist: Blocklist | None) -> Fetched:
    """GET ``url`` once per hop with our exact User-Agent, following at most
    :data:`~scrapy_walsh.policy.gates.MAX_REDIRECTS` redirects (the last answer is returned
    as it is); every hop meets the blocklist and the address rule first."""
    hops = 0
    while True:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise Refused(f"{url}: not an http(s) URL")
        host = parts.hostname
        if blocklist is not None and (entry := blocklist.match(host)) is not None:
            raise Refused(f"{host} is covered by blocklist entry {entry.domain!r}: never contacted (R3)")
        decision = address_decision(resolve(host, ctx), ctx.allowance)  # Unresolved: a DNS failure
        if decision.verdict != ADDRESS_ALLOWED:
            raise Refused(refusal_text(decision, ctx))
        address = decision.address or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        conn_cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        conn = conn_cls(host, port, timeout=TIMEOUT)
        # connect to the address checked above; Host header and TLS SNI stay the name
        conn._create_connection = _pinned(address, port)  # type: ignore[attr-defined]
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        ctx.reserve(host_key(host), address)  # R4: the identity's one ledger, as a crawl
        try:
            conn.request("GET", path, headers={"User-Agent": ctx.user_agent, "Accept-Encoding": "identity"})
            response = conn.getresponse()
            body = response.read(limit + 1)
            location = response.getheader("Location")
            status = response.status
        finally:
            conn.close()
            ctx.settle(host_key(host))
        if follow_redirect(status, bool(location), hops):
            url = urljoin(url, location or "")
            hops += 1
            continue
        return Fetched(url, status, body[:limit], address, is_redirect(status, bool(location)))


# --------------------------------------------------------------------- the gates


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def blocklist_gate(args: argparse.Namespace, ctx: Context, url: str) -> tuple[dict[str, Any], Blocklist | None]:
    """(the report section, the list in force) for the blocklist gate."""
    section: dict[str, Any] = {"cached": False}
    blocklist = None
    if args.blocklist_file:
        blocklist = Blocklist.from_document(Path(args.blocklist_file).read_bytes())
        section["source"] = f"file {args.blocklist_file}"
    else:
        failure = "offline" if ctx.offline else None
        if not ctx.offline:
            try:
                got = fetch_once(ctx.blocklist_url, ctx, MAX_DOCUMENT_BYTES, None)
                if got.has_location:
                    failure = f"more than {MAX_REDIRECTS} redirects"
                elif got.status != 200:
                    failure = f"HTTP {got.status}"
                else:
                    blocklist = Blocklist.from_document(got.body)
                    section["source"] = f"fetched {ctx.blocklist_url}"
            except (Refused, Unresolved, OSError, http.client.HTTPException, InvalidBlocklist) as exc:
                failure = f"{type(exc).__name__}: {exc}" if not isinstance(exc, (Refused, Unresolved)) else str(exc)
        if blocklist is None:
            saved = ctx.store.get(BLOCKLIST_NAMESPACE, ctx.blocklist_url) if ctx.store else None
            if saved:
                blocklist = from_stored(saved)[0]  # under the schema it was adopted with (issue 16)
                section["cached"] = True
                section["source"] = (
                    f"stored copy adopted {_age(time.time() - saved['adopted'])} ago (state store; {failure})"
                )
            else:
                section["source"] = f"none ({failure}; nothing stored): empty list, as a crawl's first run"
    listed = blocklist or Blocklist.empty()
    if ctx.extra:
        listed = listed.with_extra(ctx.extra)
    section["entries"] = len(listed)
    entry = listed.match(url)
    if entry is None:
        section["verdict"] = NOT_BLOCKED
    else:
        section.update(
            verdict=BLOCKED_BY_OPERATOR,
            domain=entry.domain,
            added=entry.added.isoformat() if entry.added else None,
            reason=entry.reason,
        )
    return section, listed


def robots_source(
    args: argparse.Namespace, ctx: Context, url: str, blocklist: Blocklist | None
) -> tuple[dict[str, Any], OriginRobots | None, Verdict | None]:
    """(the report section, the origin's outcome, a verdict that needs no outcome) for
    robots.txt, decided by the crawl's own rules (:mod:`scrapy_walsh.policy.gates`)."""
    origin = origin_of(url)
    parts = urlsplit(url)
    robots_url = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}/robots.txt"  # never a userinfo
    section: dict[str, Any] = {"mode": ctx.mode, "url": robots_url, "cached": False}
    if args.robots_file:
        section["source"] = f"file {args.robots_file}"
        parsed = RobotsTxt.parse(Path(args.robots_file).read_bytes())
        return section, OriginRobots(origin, AVAILABLE, time.time(), robots=parsed, source="file"), None
    if ctx.mode == "ignore":
        section["source"] = "not consulted (WALSH_ROBOTS_MODE = 'ignore')"
        return section, None, Verdict.SKIPPED_BY_USER_POLICY

    def from_saved(result: OriginRobots, why: str) -> tuple[dict[str, Any], OriginRobots, None]:
        age = time.time() - result.fetched_at
        section.update(cached=True, source=f"stored copy fetched {_age(age)} ago ({why})", status=result.status)
        return section, result, None

    now = time.time()
    saved = ctx.store.get(ROBOTS_NAMESPACE, origin) if ctx.store else None
    if saved is not None and usable_copy(saved, now, ctx.cache_seconds):
        why = f"state store, younger than WALSH_ROBOTS_CACHE_SECONDS = {ctx.cache_seconds:.0f}"
        return from_saved(restore(origin, saved, "cache"), why)
    if ctx.offline:
        if saved is not None and usable_copy(saved, now, STALE_LIMIT):
            return from_saved(restore(origin, saved, "stale"), "state store, --offline")
        section["source"] = "not fetched (--offline) and nothing stored"
        return section, None, None
    if ctx.store is not None and not fetching.claim(ctx.store, f"robots {origin}"):
        # another process of the identity is fetching it: wait for its copy
        deadline = time.monotonic() + fetching.CLAIM_TTL
        while time.monotonic() < deadline and fetching.held(ctx.store, f"robots {origin}"):
            time.sleep(fetching.POLL)
        saved = ctx.store.get(ROBOTS_NAMESPACE, origin)
        if saved is not None and usable_copy(saved, time.time(), ctx.cache_seconds):
            why = "state store: another process of the identity just read it"
            return from_saved(restore(origin, saved, "cache"), why)
        fetching.claim(ctx.store, f"robots {origin}")
    try:
        got = fetch_once(robots_url, ctx, MAX_BYTES, blocklist)
    except (Refused, Unresolved) as exc:
        fetch = RobotsFetch(error=str(exc))
    except (OSError, http.client.HTTPException) as exc:
        fetch = RobotsFetch(error=f"{type(exc).__name__}: {exc}")
    else:
        fetch = RobotsFetch(got.status, got.body, got.has_location)
        section.update(status=got.status, address=got.address)
    finally:
        if ctx.store is not None:
            fetching.release(ctx.store, f"robots {origin}")
    result = robots_outcome(origin, fetch, now)
    if result.outcome != UNREACHABLE and fetch.status is not None and ctx.store is not None:
        saved_now = record(result, fetch.body or b"")
        if saved_now is not None:  # stored as a crawl stores it: the next crawl reads it
            with suppress(StateStoreError):
                ctx.store.set(ROBOTS_NAMESPACE, origin, saved_now, ttl=STALE_LIMIT)
    if result.outcome == AVAILABLE:
        section["source"] = f"fetched now ({got.url}: HTTP {got.status}, {len(got.body)} bytes)"
        return section, result, None
    if result.outcome == UNAVAILABLE:
        section["source"] = f"fetched now ({result.reason}: no robots.txt, nothing is disallowed)"
        return section, result, None
    stale = with_stale_copy(result, saved, now)
    if stale.source == "stale":
        return from_saved(stale, f"unreachable now: {result.reason}; RFC 9309 §2.3.1.4 allows a copy under 30 days")
    section["source"] = f"unreachable ({result.reason}), nothing stored"
    return section, result, None


def recently_fetched_section(ctx: Context, url: str) -> dict[str, Any]:
    """R8 as the crawl decides it: the target's time in the store's ``fetched`` namespace."""
    interval = ctx.refetch_interval
    target = canonical_url(url)
    fetched_at = ctx.store.get(FETCHED_NAMESPACE, target) if ctx.store else None
    now = time.time()
    section: dict[str, Any] = {"target": target, "interval": interval, "fetched_at": fetched_at}
    if recently_fetched(fetched_at, now, interval):
        section.update(verdict=SKIPPED_RECENTLY_FETCHED, reason=recently_fetched_reason(fetched_at, now, interval))
    else:
        section["verdict"] = "not_recent" if interval > 0 else "disabled"
    return section


# --------------------------------------------------------------------- report


def explain(args: argparse.Namespace, ctx: Context) -> dict[str, Any]:
    url = args.url
    report: dict[str, Any] = {"url": url, "token": ctx.token, "user_agent": ctx.user_agent}
    gate, blocklist = blocklist_gate(args, ctx, url)
    report["blocklist"] = gate
    decision: tuple[str, str, str] | None = None
    if gate["verdict"] == BLOCKED_BY_OPERATOR:
        decision = ("refused", "blocklist", BLOCKED_BY_OPERATOR)
    host = urlsplit(url).hostname or ""
    address: dict[str, Any] = {"host": host}
    if decision is None:
        try:
            checked = check_address(host, ctx)
        except Offline:
            address.update(verdict="unchecked", reason="not resolved (--offline)")
        else:
            address["verdict"] = checked.verdict
            if checked.address is not None:
                address["address"] = checked.address
            if checked.verdict == ADDRESS_REFUSED:
                address.update(address_class=checked.address_class, reason=refusal_text(checked, ctx))
                decision = ("refused", Gate.ADDRESS, PRIVATE_ADDRESS)
            elif checked.verdict == DNS_FAILURE:
                address["reason"] = "does not resolve (DNS failure): not refused by this gate; connections to it fail"
    report["address"] = address
    robots: dict[str, Any]
    outcome: OriginRobots | None
    if decision is not None and not args.robots_file:
        robots = {"source": f"not fetched: refused by the {decision[1]} gate first"}
        outcome, verdict = None, None
    else:
        robots, outcome, verdict = robots_source(args, ctx, url, blocklist)
    delay = rate = None
    if outcome is not None:
        # the gate's own verdict (a body that isn't a robots.txt is allowed, with a warning)
        verdict = outcome.verdict(url, ctx.token)
        parsed = outcome.robots
        if parsed is not None:
            why = parsed.explain(url, ctx.token)
            robots.update(
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
            delay, rate = why.crawl_delay, why.request_rate
    if verdict is not None:
        robots.update(verdict=verdict.value, recommendation=recommendation(verdict).value)
        if decision is None and verdict in BLOCKING_VERDICTS:
            decision = (
                ("fetched anyway (report_only)" if ctx.mode == "report_only" else "refused"),
                Gate.ROBOTS,
                verdict.value,
            )
    report["robots"] = robots
    report["usage"] = usage_section(ctx, outcome, url)
    if report["usage"]["mode"] == "respect" and report["usage"]["reserved"]:
        decision = decision or ("refused", Gate.USAGE, USAGE_RESERVED)
    frequency = recently_fetched_section(ctx, url)
    if frequency["verdict"] == SKIPPED_RECENTLY_FETCHED:
        decision = decision or ("refused", Gate.FREQUENCY, SKIPPED_RECENTLY_FETCHED)
    report["frequency"] = frequency
    # the crawl's ledger entry for this host, when a crawl left one: its adaptive delay and any pause
    saved = ctx.store.get(PACING_NAMESPACE, host) if ctx.store else None
    pace = HostPace.from_json(saved) if saved else HostPace()
    pace.crawl_delay, pace.request_rate = delay, rate
    pacing: dict[str, Any] = {
        "interval": pace.interval(ctx.floor_for(host)),
        "floor": ctx.floor,
        "host_interval": ctx.host_intervals.get(host),
        "crawl_delay": delay,
        "request_rate": rate,
        "adaptive": pace.adaptive or None,
        "paused_for": max(0.0, pace.not_before - time.time()) or None,
    }
    if crawl_delay_over_cap(delay, ctx.max_crawl_delay):
        pacing["cap"] = f"Crawl-delay {delay:g} s > WALSH_MAX_CRAWL_DELAY {ctx.max_crawl_delay:g} s"
        decision = decision or ("refused", Gate.PACING, CRAWL_DELAY_EXCEEDS_CAP)
    report["pacing"] = pacing
    report["cached"] = {"blocklist": gate["cached"], "robots": robots.get("cached", False)}
    report["decision"] = {
        "outcome": (decision or ("fetch",))[0],
        "gate": decision[1] if decision else None,
        "verdict": decision[2] if decision else None,
    }
    report["notes"] = ctx.notes
    return report


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


# --------------------------------------------------------------------- usage preferences (issue 20)


def usage_section(ctx: Context, outcome: OriginRobots | None, url: str) -> dict[str, Any]:
    """Per declared purpose, what the selected robots.txt group says (the crawl's own model,
    :func:`~scrapy_walsh.policy.preferences.usage_decision`), and the host's stored RateLimit
    term. tdmrep.json and the response's headers are known only when the crawl fetches."""
    from ..config import parse
    from ..policy.preferences import usage_decision

    purposes = parse(ctx.settings, "WALSH_PURPOSES")
    lines = outcome.robots.usage_lines(ctx.token) if outcome is not None and outcome.robots is not None else []
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    decision = usage_decision(path, purposes, robots=lines, token=ctx.token)
    saved = ctx.store.get(PACING_NAMESPACE, urlsplit(url).hostname or "") if ctx.store else None
    return {
        "mode": parse(ctx.settings, "WALSH_USAGE_MODE"),
        "declared": ctx.settings.getpriority("WALSH_PURPOSES") not in (None, 0),
        **decision.as_dict(),
        "ratelimit": HostPace.from_json(saved).ratelimit if saved else None,
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
    parts = urlsplit(args.url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        print(f"error: {args.url!r} is not an absolute http(s) URL", file=sys.stderr)
        return 1
    try:
        ctx = Context.from_settings(settings, args.offline)
    except ValueError as exc:
        print(f"error: these settings would not start a crawl, so there is nothing to explain:\n{exc}", file=sys.stderr)
        return 2
    ctx.open_store()
    try:
        report = explain(args, ctx)
    except (OSError, InvalidBlocklist) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        if ctx.store is not None:
            ctx.store.close()
    report["explained_at"] = datetime.now(UTC).replace(microsecond=0).isoformat()
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0
