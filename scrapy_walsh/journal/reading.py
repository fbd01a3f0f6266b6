"""Reading a journal back for a site owner (pure: no Scrapy): one host's requests and refusals,
per-day counts and gaps, robots.txt versions, a match against a server's access log, the HTML report.
"""

from __future__ import annotations

import datetime
import html
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .chain import JournalReport, published_problems, verify_path


def when(t: float) -> str:
    return datetime.datetime.fromtimestamp(t, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S") + "Z"


@dataclass
class HostView:
    """Everything the journal at one path holds about one host, oldest first."""

    host: str
    sends: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[dict[str, Any]] = field(default_factory=list)

    def gaps(self) -> list[tuple[dict[str, Any], float | None]]:
        """Each send with the time since the one before it (start to start; None for the first)."""
        out: list[tuple[dict[str, Any], float | None]] = []
        for i, entry in enumerate(self.sends):
            out.append((entry, entry["t"] - self.sends[i - 1]["t"] if i else None))
        return out

    def per_day(self) -> list[tuple[str, int, float | None]]:
        """(UTC day, requests, smallest gap that day)."""
        days: dict[str, list[float | None]] = defaultdict(list)
        for entry, gap in self.gaps():
            days[when(entry["t"])[:10]].append(gap)
        return [(d, len(g), min((x for x in g if x is not None), default=None)) for d, g in sorted(days.items())]

    def robots_versions(self) -> list[dict[str, Any]]:
        """Each robots.txt body followed (by digest): first and last use, requests decided on it."""
        found: dict[str, dict[str, Any]] = {}
        for entry in self.sends:
            robots = entry.get("robots") or {}
            digest = robots.get("digest") or f"none ({robots['verdict']})" if robots.get("verdict") else None
            if digest is None:
                continue
            version = found.setdefault(
                digest, {"digest": digest, "first": entry["t"], "last": entry["t"], "requests": 0}
            )
            version["last"] = entry["t"]
            version["requests"] += 1
        return list(found.values())


#: What a ``send`` without its ``outcome`` entry says: written before the request went on the
#: wire, its answer never recorded (the process was killed, or is still waiting for it).
UNKNOWN_OUTCOME = "unknown (sent; no outcome recorded)"


def read_journal(
    path: Path,
    keys: Mapping[str, Any] | None,
    host: str | None = None,
    since: float | None = None,
    published: Iterable[Mapping[str, Any]] = (),
) -> tuple[JournalReport, HostView]:
    """The one reader of a journal, for ``verify``, ``show``, ``match`` and ``report`` alike: the
    verification of every file and of the chain of files (and that it still holds each of the
    ``published`` heads), and what it holds about ``host`` (from ``since`` on). Only entries that
    verified count: never a torn line, nor one past a break."""
    wanted = host or ""

    def keep(entry: dict[str, Any]) -> bool:
        return entry.get("host") == wanted and (since is None or entry.get("t", 0) >= since)

    report = verify_path(path, keys, keep if host else None)
    if path.is_dir():
        report.links += published_problems(path, published)
    view = HostView(wanted)
    waiting: dict[str, dict[str, Any]] = {}
    for entry in (e for f in report.files for e in f.kept):
        kind = entry.get("kind")
        if kind == "send":
            view.sends.append(entry)
            if "id" in entry:  # written ahead: its outcome follows
                waiting[entry["id"]] = entry
        elif kind == "outcome":
            send = waiting.pop(str(entry.get("id")), None)
            if send is not None:
                _settle(send, entry)
        elif kind == "refusal":
            view.refusals.append(entry)
    for send in waiting.values():
        send["outcome"] = UNKNOWN_OUTCOME
    view.sends = sorted((e for e in view.sends if e.get("sent") is not False), key=lambda e: e["t"])
    view.refusals.sort(key=lambda e: e["t"])
    return report, view


def _settle(send: dict[str, Any], outcome: dict[str, Any]) -> None:
    """Fold a request's ``outcome`` entry into its ``send`` entry."""
    send["settled"] = outcome["t"]
    for name in ("status", "bytes", "outcome", "sent"):
        if name in outcome:
            send[name] = outcome[name]


#: Each ``why`` of a send entry (:class:`~scrapy_walsh.policy.vocabulary.IntervalWhy`), in a site owner's words.
WHY_WORDS = {
    "floor": "our minimum interval",
    "crawl-delay": "your Crawl-delay",
    "request-rate": "your Request-rate",
    "ratelimit": "your RateLimit header",
    "retry-after": "your Retry-After",
    "backoff": "our backoff after errors",
    "timeout-rest": "a rest after timeouts",
}


def interval_of(send: Mapping[str, Any]) -> tuple[float | None, str | None]:
    """A send entry's interval (seconds) and why; a journal written before ``why`` existed holds
    ``{"seconds", "by"}``; (None, None) when the entry has neither."""
    value = send.get("interval")
    if isinstance(value, dict):
        return value.get("seconds"), {"crawl_delay": "crawl-delay", "request_rate": "request-rate"}.get(
            str(value.get("by")), str(value.get("by"))
        )
    return (value, send.get("why")) if isinstance(value, int | float) else (None, None)


def interval_words(send: Mapping[str, Any]) -> str:
    seconds, why = interval_of(send)
    if seconds is None:
        return "unknown"
    return f"{seconds:g} s ({WHY_WORDS.get(str(why), str(why))})"


def refusal_words(entry: Mapping[str, Any]) -> str:
    path = _target(entry.get("url") or "")
    return (
        f"{when(entry['t'])}  {path}: not fetched, {entry.get('reason')} [{entry.get('gate')}/{entry.get('verdict')}]"
    )


def _target(url: str) -> str:
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def show(view: HostView, verified: str) -> str:
    lines = [f"Requests to {view.host} in this journal ({verified})", ""]
    lines.append("Per day (UTC): requests, smallest gap between two of our requests:")
    for day, count, gap in view.per_day():
        lines.append(f"  {day}  {count:5} requests  smallest gap {'-' if gap is None else f'{gap:.3f} s'}")
    if not view.sends:
        lines.append("  (none)")
    intervals = sorted({interval_words(e) for e in view.sends})
    if intervals:
        lines.append(f"Interval applied between two requests: {', '.join(intervals)}")
    lines += ["", "robots.txt versions followed (digest of the body the verdicts were decided on):"]
    for v in view.robots_versions():
        lines.append(f"  {v['digest']}  from {when(v['first'])} to {when(v['last'])}, {v['requests']} requests")
    lines += ["", f"Requests refused before they were sent ({len(view.refusals)}):"]
    lines += [f"  {refusal_words(r)}" for r in view.refusals] or ["  (none)"]
    return "\n".join(lines)


# ---------------------------------------------------------------------- access logs

#: The combined log format (Apache, nginx's default ``combined``).
COMBINED = re.compile(
    r'^(?P<addr>\S+) \S+ \S+ \[(?P<time>[^\]]+)\] "(?P<method>[A-Z]+) (?P<target>\S+)[^"]*" '
    r'(?P<status>\d{3}) (?P<bytes>\S+) "(?P<referer>(?:[^"\\]|\\.)*)" "(?P<ua>(?:[^"\\]|\\.)*)"'
)


@dataclass
class LogLine:
    number: int
    t: float
    method: str
    target: str
    status: int
    ua: str
    text: str


def parse_access_log(lines: Iterable[str]) -> tuple[list[LogLine], int]:
    """The parsable lines of a combined-format log, and how many were not parsable."""
    found, bad = [], 0
    for number, text in enumerate(lines, 1):
        m = COMBINED.match(text.strip())
        if not m:
            bad += bool(text.strip())
            continue
        try:
            t = datetime.datetime.strptime(m["time"], "%d/%b/%Y:%H:%M:%S %z").timestamp()
        except ValueError:
            bad += 1
            continue
        ua = m["ua"].replace('\\"', '"')
        found.append(LogLine(number, t, m["method"], m["target"], int(m["status"]), ua, text.rstrip("\n")))
    return found, bad


@dataclass
class Match:
    matched: list[tuple[LogLine, dict[str, Any]]]
    #: Lines with our User-Agent the journal does not hold (an impostor, or a gap in our records).
    not_in_journal: list[LogLine]
    #: Journal sends the log lacks.
    not_in_log: list[dict[str, Any]]
    other_agents: int


def match(view: HostView, log: list[LogLine], ua: str, tolerance: float = 2.0) -> Match:
    """Pair each log line with our User-Agent to one journal send: same method and target, and
    the log time (whole seconds, written at the start or the end of the request) within
    ``tolerance`` of the send..settle window."""
    ours = [line for line in log if line.ua == ua]
    free = list(view.sends)
    matched, missing = [], []
    for line in sorted(ours, key=lambda x: x.t):
        found = next(
            (
                e
                for e in free
                if e.get("method") == line.method
                and _target(e.get("url", "")) == line.target
                and e["t"] - tolerance - 1 <= line.t <= _settled(e) + tolerance
            ),
            None,
        )
        if found is None:
            missing.append(line)
        else:
            free.remove(found)
            matched.append((line, found))
    return Match(matched, missing, free, len(log) - len(ours))


def _settled(send: Mapping[str, Any]) -> float:
    """When a send ended; a send whose outcome is unknown may have been answered (and logged) any time later."""
    if send.get("outcome") == UNKNOWN_OUTCOME:
        return float("inf")
    return float(send.get("settled", send["t"]))


def match_words(result: Match, host: str) -> str:
    lines = [
        f"{len(result.matched)} requests with our User-Agent in the log are in the journal for {host}.",
        f"{len(result.not_in_journal)} with our User-Agent are NOT in the journal (an impostor, or a gap in our "
        "records):",
    ]
    lines += [f"  log line {x.number}: {x.text}" for x in result.not_in_journal]
    lines.append(f"{len(result.not_in_log)} requests the journal holds are NOT in the log:")
    lines += [f"  {when(e['t'])} {e.get('method')} {e.get('url')} (entry {e.get('seq')})" for e in result.not_in_log]
    lines.append(f"({result.other_agents} log lines from other User-Agents ignored.)")
    return "\n".join(lines)


# ---------------------------------------------------------------------- the HTML report


def verification_words(report: JournalReport, keyed: bool) -> str:
    problem = report.first_problem()
    if problem:
        return f"FAILED: {problem}"
    files = len(report.files)
    chains = sum(len(roots) for roots in report.chains.values())
    where = f"{files} file(s)" + (f" in {chains} chain(s)" if chains else "")
    if keyed:  # verify_lines failed every entry not covered by a signed head
        signed = sorted({k for f in report.files for k in f.keyids})
        return f"verified: {where}, hash chain intact, every entry covered by signed heads by key {', '.join(signed)}"
    return f"chain intact in {where}; signatures not checked (no public key given), so not verified"


NO_REQUESTS = '<text x="10" y="30">no requests</text>'


def timeline_svg(view: HostView, width: int = 900, height: int = 320) -> str:
    """Time across, the gap before each request up; the interval applied as a dashed line."""
    left, right, top, bottom = 60, 20, 20, 40
    points = [(e["t"], gap, interval_of(e)[0]) for e, gap in view.gaps()]
    times = [p[0] for p in points] + [r["t"] for r in view.refusals]
    if not times:
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="60">{NO_REQUESTS}</svg>'
    t0, t1 = min(times), max(times)
    span = max(t1 - t0, 1.0)
    top_value = max([g for _, g, _ in points if g is not None] + [i or 1.0 for *_, i in points] + [1.0]) * 1.2

    def x(t: float) -> float:
        return left + (t - t0) / span * (width - left - right)

    def y(v: float) -> float:
        return height - bottom - v / top_value * (height - top - bottom)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
        f'aria-label="timeline of our requests to {html.escape(view.host)}" style="background:#fff">',
        f'<line x1="{left}" y1="{y(0):.1f}" x2="{width - right}" y2="{y(0):.1f}" stroke="#000"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{y(0):.1f}" stroke="#000"/>',
        f'<text x="{left}" y="{height - 8}" font-size="12">{when(t0)}</text>',
        f'<text x="{width - right}" y="{height - 8}" font-size="12" text-anchor="end">{when(t1)}</text>',
        f'<text x="12" y="{top + 10}" font-size="12">{top_value:.1f} s</text>',
        f'<text x="12" y="{y(0):.1f}" font-size="12">0 s</text>',
    ]
    steps = [(x(t), y(i)) for t, _, i in points if i is not None]
    if steps:
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in steps)
        parts.append(f'<polyline points="{path}" fill="none" stroke="#c00" stroke-width="2" stroke-dasharray="6 4"/>')
        parts.append(
            f'<text x="{width - right}" y="{steps[-1][1] - 6:.1f}" font-size="12" fill="#c00" '
            'text-anchor="end">interval applied (Crawl-delay or 1 s floor)</text>'
        )
    for t, gap, _ in points:
        if gap is not None:
            parts.append(
                f'<circle cx="{x(t):.1f}" cy="{y(gap):.1f}" r="4" fill="#06c"><title>{when(t)}: '
                f"{gap:.3f} s after the previous request</title></circle>"
            )
    for r in view.refusals:
        parts.append(
            f'<path d="M{x(r["t"]):.1f},{y(0) + 4:.1f} l-4,8 h8 z" fill="#e80"><title>refused: '
            f"{html.escape(r.get('url', ''))}</title></path>"
        )
    parts.append("</svg>")
    return "\n".join(parts)


def report_html(view: HostView, verification: str, agent: str) -> str:
    e = html.escape
    days = "".join(
        f"<tr><td>{d}</td><td>{n}</td><td>{'-' if g is None else f'{g:.3f} s'}</td></tr>" for d, n, g in view.per_day()
    )
    versions = "".join(
        f"<tr><td><code>{e(v['digest'])}</code></td><td>{when(v['first'])}</td><td>{when(v['last'])}</td>"
        f"<td>{v['requests']}</td></tr>"
        for v in view.robots_versions()
    )
    refusals = "".join(
        f"<tr><td>{when(r['t'])}</td><td>{e(_target(r.get('url') or ''))}</td><td>{e(str(r.get('gate')))}/"
        f"{e(str(r.get('verdict')))}</td><td>{e(str(r.get('reason')))}</td></tr>"
        for r in view.refusals
    )
    requests = "".join(
        f"<tr><td>{when(s['t'])}</td><td>{'-' if g is None else f'{g:.3f} s'}</td><td>{e(s.get('method', ''))} "
        f"{e(_target(s.get('url', '')))}</td><td>{s.get('status', e(str(s.get('outcome'))))}</td>"
        f"<td>{e(interval_words(s))}</td></tr>"
        for s, g in view.gaps()
    )
    status_class = "ok" if verification.startswith("verified") else "bad"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Requests to {e(view.host)}</title>
<style>body{{font-family:sans-serif;margin:2em;color:#111}}table{{border-collapse:collapse;margin:.5em 0 1.5em}}
td,th{{border:1px solid #ccc;padding:2px 8px;text-align:left;font-size:14px}}.ok{{color:#070}}.bad{{color:#c00}}</style>
</head><body>
<h1>Requests to {e(view.host)}</h1>
<p>From <code>{e(agent)}</code>: {len(view.sends)} requests sent, {len(view.refusals)} refused before sending.</p>
<p>Journal verification: <strong class="{status_class}">{e(verification)}</strong></p>
<h2>Timeline</h2>
<p>Each dot is one request, placed at its send time, at the height of the gap since our previous request
to this host. The dashed line is the interval we applied (your Crawl-delay, or our 1 s floor); a dot on
or above it kept the interval. Triangles under the axis are requests we refused to send.</p>
{timeline_svg(view)}
<h2>Requests per day (UTC)</h2>
<table><tr><th>day</th><th>requests</th><th>smallest gap</th></tr>{days}</table>
<h2>robots.txt versions followed</h2>
<table><tr><th>digest</th><th>first</th><th>last</th><th>requests</th></tr>{versions}</table>
<h2>Refusals</h2>
<table><tr><th>time</th><th>target</th><th>rule</th><th>reason</th></tr>{refusals}</table>
<h2>Every request</h2>
<table><tr><th>sent</th><th>gap</th><th>request</th><th>status</th><th>interval</th></tr>{requests}</table>
</body></html>
"""
