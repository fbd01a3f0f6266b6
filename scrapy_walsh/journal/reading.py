"""Reading a journal back for a site owner (pure: no Scrapy): one host's requests and refusals,
per-day counts and gaps, robots.txt versions, a match against a server's access log, the HTML report.
"""

from __future__ import annotations

import datetime
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .chain import JournalReport, entries, journal_files
from .intervals import words as interval_words


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


def load_host(path: Path, host: str, since: float | None = None) -> HostView:
    view = HostView(host)
    for file in journal_files(path):
        for entry in entries(file.read_bytes()):
            if entry.get("host") != host or (since is not None and entry.get("t", 0) < since):
                continue
            if entry.get("kind") == "send":
                view.sends.append(entry)
            elif entry.get("kind") == "refusal":
                view.refusals.append(entry)
    view.sends.sort(key=lambda e: e["t"])
    view.refusals.sort(key=lambda e: e["t"])
    return view


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
                and e["t"] - tolerance - 1 <= line.t <= e.get("settled", e["t"]) + tolerance
            ),
            None,
        )
        if found is None:
            missing.append(line)
        else:
            free.remove(found)
            matched.append((line, found))
    return Match(matched, missing, free, len(log) - len(ours))


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


# ---------------------------------------------------------------------- verification


def verification_words(report: JournalReport, keyed: bool) -> str:
    problem = report.first_problem()
    if problem:
        return f"FAILED: {problem}"
    signed = sorted({k for f in report.files for k in f.keyids})
    files = len(report.files)
    if signed:
        return f"verified: {files} file(s), hash chain intact, signed heads by key {', '.join(signed)}"
    if keyed:
        return f"chain intact in {files} file(s), but no signed head (no signing key configured)"
    return f"chain intact in {files} file(s); signatures not checked (no public key given)"
