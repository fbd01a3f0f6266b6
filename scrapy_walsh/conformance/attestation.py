"""The live attestation's plan and judge: each MUST of §8, decided from a server's log.

``scrapy walsh check --live`` crawls the demo site with a probe spider whose declared
targets cover each MUST (:data:`PROBE_TARGETS`), then hands the server's request log
to :func:`judge`. Nothing here trusts the crawler's own account: every verdict is
computed from what the server saw (arrival times on its monotonic clock, headers,
statuses, requests in flight). Pure: no I/O, no Scrapy calls (it borrows the
checklist's ``Finding`` so both reports render alike).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from scrapy_walsh.conformance.engine import FAIL, PASS, Finding
from scrapy_walsh.settings import BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH

#: (host key, path, what the server must see). The probe declares them all as start
#: requests, then tries to follow every link, image, stylesheet and script it gets.
PROBE_TARGETS: tuple[tuple[str, str, str], ...] = (
    ("open", "/page/1", "fetched; its links and sub-resources are not"),
    ("open", "/page/2", "fetched, >= 1 s after the last request to open"),
    ("open", "/page/3", "fetched, >= 1 s after the last request to open"),
    ("open", "/private/secret", "never requested: Disallow: /private/ for *"),
    ("open", "/static/logo.png", "never requested: a sub-resource, even when declared"),
    ("named", "/members/join", "fetched: our named group exempts what * blocks"),
    ("named", "/research-off/notes", "never requested: our named group blocks what * allows"),
    ("slow", "/page/1", "fetched, >= 2 s (Crawl-delay) after robots.txt"),
    ("slow", "/page/2", "fetched, >= 2 s (Crawl-delay) after /page/1"),
    ("busy", "/limited", "429 with Retry-After: 3 once, retried >= 3 s later"),
    ("blocked", "/page/1", "never contacted: listed in the operator blocklist"),
    ("www.blocked", "/page/1", "never contacted: subdomain of a listed domain"),
)
#: Server-clock tolerance on spacing (the test suite's, for timestamp granularity).
TOLERANCE = 0.02
MIN_INTERVAL = 1.0
SLOW_CRAWL_DELAY = 2.0  # slow's robots.txt: Crawl-delay 2 in the Walsh-Research group
BUSY_RETRY_AFTER = 3.0  # busy's /limited: 429 with Retry-After: 3, once
NOT_OBSERVED_LIVE = ("3b", "3c", "7", "8", "9")


def _ua(record: Mapping[str, Any]) -> str | None:
    for name, value in record.get("headers", {}).items():
        if name.lower() == "user-agent":
            return value
    return None


def _fetched(records: list[Mapping[str, Any]], key: str, path: str) -> list[Mapping[str, Any]]:
    return [r for r in records if r["host_key"] == key and r["path"] == path]


def _requested(n: int) -> str:
    return {0: "never requested", 1: "requested once"}.get(n, f"requested {n} times")


def _obs(row: str, ok: bool, message: str) -> Finding:
    requirement = {"1": "R1", "2": "R2", "2a": "R2", "3": "R3", "3a": "R3", "4": "R4", "5": "R5", "6": "R6"}[row]
    return Finding(row, requirement, PASS if ok else FAIL, None, message)


def judge(records: Iterable[Mapping[str, Any]], user_agent: str) -> tuple[list[Finding], dict[str, Any]]:
    """Findings for rows 1-6 and the figures behind them, from the server's records."""
    records = sorted(records, key=lambda r: r["mono"])
    figures: dict[str, Any] = {"requests": len(records)}
    if not records:
        return [
            _obs(row, False, "not observed: the crawl sent no request")
            for row in ("1", "2", "2a", "3", "3a", "4", "5", "6")
        ], figures
    return [
        *_identity(records, user_agent, figures),
        *_robots(records, figures),
        *_blocklist(records, figures),
        *_pacing(records, figures),
        *_backoff(records, figures),
        *_scope(records, figures),
    ], figures


def _identity(records: list, user_agent: str, figures: dict) -> list[Finding]:
    others = [_ua(r) for r in records if _ua(r) != user_agent]
    figures["other_user_agents"] = sorted({str(ua) for ua in others})
    if not others:
        return [_obs("1", True, f"all {len(records)} requests carried exactly {user_agent!r}")]
    return [
        _obs(
            "1",
            False,
            f"{len(others)} of {len(records)} requests carried another "
            f"User-Agent: {', '.join(repr(u) for u in figures['other_user_agents'][:3])}",
        )
    ]


def _robots(records: list, figures: dict) -> list[Finding]:
    first: dict[str, str] = {}
    for r in records:
        first.setdefault(r["host_key"], r["path"])
    hosts = sorted(k for k in first if k not in ("ops", "sentinel"))
    late = [k for k in hosts if first[k] != "/robots.txt"]
    private = _fetched(records, "open", "/private/secret")
    figures["robots_first_hosts"] = [k for k in hosts if k not in late]
    parts = [
        f"robots.txt requested first on {len(hosts) - len(late)} of {len(hosts)} hosts"
        + (f" (not on: {', '.join(late)})" if late else ""),
        f"open /private/secret (Disallow for *) {_requested(len(private))}",
    ]
    found = [_obs("2", not late and not private and bool(hosts), "; ".join(parts))]
    members, off = _fetched(records, "named", "/members/join"), _fetched(records, "named", "/research-off/notes")
    found.append(
        _obs(
            "2a",
            bool(members) and not off,
            f"named /members/join (blocked for *, allowed by our group) "
            f"{_requested(len(members))}; /research-off/notes (allowed for *, blocked by "
            f"our group) {_requested(len(off))}",
        )
    )
    return found


def _blocklist(records: list, figures: dict) -> list[Finding]:
    found = []
    lists = [i for i, r in enumerate(records) if r["host_key"] == "ops" and r["path"] == BLOCKLIST_PATH]
    others = [i for i, r in enumerate(records) if r["host_key"] != "ops"]
    if not lists:
        found.append(_obs("3", False, "the operator blocklist was never requested"))
    elif others and others[0] < lists[0]:
        r = records[others[0]]
        found.append(
            _obs(
                "3",
                False,
                f"{r['host_key']} {r['path']} was requested "
                f"{records[lists[0]]['mono'] - r['mono']:.3f} s before the blocklist",
            )
        )
    else:
        lead = records[others[0]]["mono"] - records[lists[0]]["mono"] if others else None
        figures["blocklist_lead_seconds"] = lead
        found.append(
            _obs(
                "3",
                True,
                "the blocklist was requested before any other host"
                + (f" ({lead:.3f} s before the first)" if lead is not None else ""),
            )
        )
    blocked = sum(r["host_key"] == "blocked" for r in records)
    www = sum(r["host_key"] == "www.blocked" for r in records)
    figures["blocked_requests"] = blocked + www
    found.append(
        _obs(
            "3a",
            blocked + www == 0,
            f"{blocked} requests to blocked (listed) and {www} to www.blocked (its subdomain), robots.txt included",
        )
    )
    return found


def _pacing(records: list, figures: dict) -> list[Finding]:
    times: dict[str, list[float]] = defaultdict(list)
    for r in records:
        times[r["host_key"]].append(r["mono"])
    gaps = {k: [b - a for a, b in zip(v, v[1:])] for k, v in times.items() if len(v) > 1}
    counted = sum(len(times[k]) for k in gaps)
    in_flight = max(r.get("in_flight", 0) for r in records)
    figures.update(max_in_flight=in_flight, min_gap=None, slow_min_gap=None)
    if not gaps:
        return [_obs("4", False, "not observed: no host received two requests")]
    host, smallest = min(((k, min(v)) for k, v in gaps.items()), key=lambda kv: kv[1])
    slow = min(gaps["slow"]) if "slow" in gaps else None
    # figures in milliseconds, and the text prints exactly the figures
    figures.update(min_gap=round(smallest, 3), slow_min_gap=None if slow is None else round(slow, 3))
    ok = in_flight <= 1 and smallest >= MIN_INTERVAL - TOLERANCE
    text = (
        f"at most {in_flight} in flight; minimum same-host gap {figures['min_gap']:.3f} s "
        f"({host}) over {counted} requests to {len(gaps)} hosts"
    )
    if slow is None:
        ok, text = False, text + "; slow (Crawl-delay 2) not observed twice"
    else:
        ok = ok and slow >= SLOW_CRAWL_DELAY - TOLERANCE
        text += f"; slow (Crawl-delay {SLOW_CRAWL_DELAY:g}): minimum gap {figures['slow_min_gap']:.3f} s"
    return [_obs("4", ok, text)]


def _backoff(records: list, figures: dict) -> list[Finding]:
    limited = _fetched(records, "busy", "/limited")
    if not limited:
        return [_obs("5", False, "not observed: busy /limited was never requested")]
    if limited[0].get("status") != 429:
        return [_obs("5", False, f"not observed: busy /limited first answered {limited[0].get('status')}")]
    if len(limited) < 2:
        return [_obs("5", False, "the 429 was never retried (R5: back off, then retry)")]
    wait = limited[1]["mono"] - limited[0]["mono"]
    figures["retry_after_wait"] = round(wait, 3)
    return [
        _obs(
            "5",
            wait >= BUSY_RETRY_AFTER - TOLERANCE,
            f"busy /limited answered 429 with Retry-After: {BUSY_RETRY_AFTER:g}; retried "
            f"{figures['retry_after_wait']:.3f} s later",
        )
    ]


def _scope(records: list, figures: dict) -> list[Finding]:
    declared = {(k, p) for k, p, _ in PROBE_TARGETS if not p.startswith("/static/")}
    allowed = declared | {("ops", BLOCKLIST_PATH), ("ops", BLOCKLIST_SCHEMA_PATH)}
    beyond = [r for r in records if r["path"] != "/robots.txt" and (r["host_key"], r["path"]) not in allowed]
    subresources = [r for r in beyond if r["path"].startswith("/static/")]
    figures.update(beyond_targets=len(beyond), subresources=len(subresources))
    text = (
        f"{len(beyond)} requests beyond the {len(declared)} declared targets, robots.txt and the "
        f"blocklist (the probe yielded every link, image, stylesheet and script it got); "
        f"{len(subresources)} sub-resources (a declared /static/logo.png included)"
    )
    if beyond:
        text += "; e.g. " + ", ".join(f"{r['host_key']} {r['path']}" for r in beyond[:3])
    return [_obs("6", not beyond, text)]


# --------------------------------------------------------------------- the hostile probe

#: (host key, path, what the server must see): the hostile probe's declared targets. A key
#: ending in "." is that host spelled with a trailing dot (the server files it under the host).
HOSTILE_TARGETS: tuple[tuple[str, str, str], ...] = (
    ("open", "/page/1", "fetched once; its callback forges meta, calls engine.download, sets proxies and a Host"),
    ("open.", "/page/2", "fetched >= 1 s after open /page/1: a trailing dot is the same host"),
    ("down", "/page/1", "denied (robots.txt 503); its errback yields a request marked walsh_declared"),
    ("llmsonly", "/page/1", "never requested: its robots.txt redirects to a file:// URL"),
)
#: Undeclared URLs the hostile probe hands to ``crawler.engine.download``.
HOSTILE_ENGINE: tuple[tuple[str, str], ...] = (
    ("named", "/page/engine"),
    ("slow", "/page/engine"),
    ("gone", "/page/engine"),
)
#: The User-Agent a late user middleware sets on every request.
HOSTILE_UA = "EvilBot/1.0"
#: Paths the hostile probe yields or downloads that must never reach any server.
HOSTILE_NEVER = (
    ("open", "/private/secret", "meta walsh_internal on a disallowed path"),
    ("open", "/static/logo.png", "meta walsh_internal on a sub-resource"),
    ("named", "/page/errback", "meta walsh_declared on a request yielded from an errback"),
    ("open", "/page/proxy-blocked", "a proxy on a blocked host"),
    ("open", "/page/proxy-private", "a proxy on 127.0.0.1"),
    ("open", "/page/host-header", "a Host header naming a blocked host"),
    ("llmsonly", "/page/1", "a robots.txt redirected to a file:// URL (unreachable: blocks)"),
    *((key, path, "crawler.engine.download of an undeclared URL") for key, path in HOSTILE_ENGINE),
)
#: The largest item the MetadataOnlyPipeline may let through, for this judge (the chunked
#: item carries 50,000 characters).
HOSTILE_ITEM_CHARS = 50_000


def _hostile_obs(row: str, ok: bool, message: str) -> Finding:
    requirement = {"1": "R1", "2": "R2", "3a": "R3", "4": "R4", "6": "R6", "8": "R8", "-": "configuration"}[row]
    return Finding(row, requirement, PASS if ok else FAIL, None, f"hostile probe: {message}")


def _path_of(record: Mapping[str, Any]) -> str:
    """The path of a record; a proxied request's target is an absolute URL."""
    path = str(record.get("path", ""))
    if "://" in path:
        path = "/" + path.split("://", 1)[1].partition("/")[2]
    return path.split("?", 1)[0]


def judge_hostile(
    records: Iterable[Mapping[str, Any]],
    items: Sequence[Mapping[str, Any]],
    canary: str,
    blocked_ips: Iterable[str],
    refused_nan: tuple[int, int],
    user_agent: str,
) -> tuple[list[Finding], dict[str, Any]]:
    """Findings for the hostile probe: the server saw none of its attempts.

    ``items`` is what reached the feed, ``canary`` the text of the ``file://`` start URL's
    file, ``blocked_ips`` the addresses of listed hosts (a proxied request arrives there
    under another Host), ``refused_nan`` the NaN start's (exit status, requests the
    server saw)."""
    records = sorted(records, key=lambda r: r["mono"])
    blocked_ips = set(blocked_ips)
    figures: dict[str, Any] = {"requests": len(records)}
    found: list[Finding] = []

    evil = [r for r in records if _ua(r) != user_agent]
    found.append(
        _hostile_obs(
            "1",
            not evil,
            f"{len(evil)} of {len(records)} requests went out with another User-Agent "
            f"(a middleware at priority 10001 sets {HOSTILE_UA!r})",
        )
    )

    found += _hostile_never_sent(records, blocked_ips, figures)
    found.append(_hostile_pacing(records, figures))

    pages = sum(1 for r in records if r["host_key"] == "open" and _path_of(r) == "/page/1")
    found.append(
        _hostile_obs("8", pages == 1, f"open /page/1 {_requested(pages)} (retry, claim and redirect meta forged)")
    )

    leaked = [i for i in items if canary in str(i)]
    large = [i for i in items if len(str(i.get("body", ""))) >= HOSTILE_ITEM_CHARS]
    figures.update(file_items=len(leaked), chunked_items=len(large))
    found.append(
        _hostile_obs(
            "6",
            not leaked and not large,
            f"a file:// start URL put {len(leaked)} items in the feed; an item of {HOSTILE_ITEM_CHARS:,} "
            f"characters in 1,000-character strings reached it {len(large)} times",
        )
    )

    status, seen = refused_nan
    found.append(
        _hostile_obs(
            "-",
            status != 0 and seen == 0,
            f"WALSH_BACKOFF_MAX_DELAY=nan: the crawl exited {status} and the server saw {seen} requests",
        )
    )
    return found, figures


def _hostile_never_sent(
    records: list[Mapping[str, Any]], blocked_ips: set[str], figures: dict[str, Any]
) -> list[Finding]:
    """Rows 6 and 3a: no forged or undeclared request, and nothing to the blocked host or the
    private address, reached a server."""
    found: list[Finding] = []
    reached = []
    for key, path, how in HOSTILE_NEVER:
        if any(r["host_key"] == key and _path_of(r) == path for r in records):
            reached.append(f"{how} ({key} {path})")
    blocked = [r for r in records if r["host_key"] in ("blocked", "www.blocked") or r.get("ip") in blocked_ips]
    sentinel = [r for r in records if r["host_key"] == "sentinel"]
    figures.update(forged_reached=len(reached), blocked_contacted=len(blocked), private_contacted=len(sentinel))
    found.append(
        _hostile_obs(
            "6",
            not reached and not sentinel,
            f"{len(HOSTILE_NEVER) - len(reached)} of {len(HOSTILE_NEVER)} forged or undeclared requests "
            f"never reached a server; 127.0.0.1 (as a proxy) contacted {len(sentinel)} times"
            + (f"; reached: {'; '.join(reached[:3])}" if reached else ""),
        )
    )
    found.append(
        _hostile_obs(
            "3a",
            not blocked,
            f"the blocked host was contacted {len(blocked)} times "
            "(forged meta, a proxy on it, a Host header naming it)",
        )
    )
    return found


def _hostile_pacing(records: list[Mapping[str, Any]], figures: dict[str, Any]) -> Finding:
    """Row 4: one robots.txt and one page per host spelling, the gaps, one request in flight."""
    open_times = [r["mono"] for r in records if r["host_key"] == "open"]
    gaps = [b - a for a, b in zip(open_times, open_times[1:])]
    robots = sum(1 for r in records if r["host_key"] == "open" and _path_of(r) == "/robots.txt")
    in_flight = max((r.get("in_flight", 0) for r in records), default=0)
    smallest = min(gaps, default=None)
    figures.update(open_min_gap=None if smallest is None else round(smallest, 3), max_in_flight=in_flight)
    dotted = sum(1 for r in records if r["host_key"] == "open" and _path_of(r) == "/page/2")
    ok = in_flight <= 1 and robots == 1 and dotted == 1
    ok = ok and smallest is not None and smallest >= MIN_INTERVAL - TOLERANCE
    return _hostile_obs(
        "4",
        ok,
        f"open and 'open.' (trailing dot): robots.txt requested {robots} times, 'open.' /page/2 "
        f"{_requested(dotted)}, minimum gap "
        + ("none" if smallest is None else f"{smallest:.3f} s")
        + f"; at most {in_flight} in flight (engine.download on three hosts included)",
    )
