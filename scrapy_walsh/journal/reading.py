"""Reading a journal back for a site owner (pure: no Scrapy): one host's requests and refusals,
per-day counts and gaps, robots.txt versions, a match against a server's access log, the HTML report.
"""

from __future__ import annotations

import datetime
import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scrapy_walsh.journal.chain import JournalReport, verify_path
from scrapy_walsh.journal.intervals import words as interval_words
from scrapy_walsh.policy.urls import split
from scrapy_walsh.verify import when as when


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
    seen: Callable[[str, bytes], None] | None = None,
) -> tuple[JournalReport, HostView]:
    """The one reader of a journal, for ``verify``, ``show``, ``match`` and ``report`` alike: the
    verification of every file and of the chain of files, and what it holds about ``host`` (from
    ``since`` on). Only entries that verified count: never a torn line, nor one past a break.
    ``seen``: as for :func:`~scrapy_walsh.journal.chain.verify_path`."""
    wanted = host or ""

    def keep(entry: dict[str, Any]) -> bool:
        return entry.get("host") == wanted and (since is None or entry.get("t", 0) >= since)

    report = verify_path(path, keys, keep if host else None, seen)
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


def refusal_words(entry: Mapping[str, Any]) -> str:
    path = _target(entry.get("url") or "")
    return (
        f"{when(entry['t'])}  {path}: not fetched, {entry.get('reason')} [{entry.get('gate')}/{entry.get('verdict')}]"
    )


def _target(url: str) -> str:
    try:
        parts = split(url)
    except ValueError:  # a URL no client could send: shown as it was written
        return url
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def show(view: HostView, verified: str) -> str:
    lines = [f"Requests to {view.host} in this journal ({verified})", ""]
    lines.append("Per day (timezone.utc): requests, smallest gap between two of our requests:")
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
    #: The request's Signature header, from a JSON log that carries it ("" when the request had
    #: none); None from a log that does not (the combined format).
    signature: str | None = None
    #: What a JSON log carries to verify the request's signature again: ``host``, ``signature``,
    #: ``signature-input`` and ``signature-agent`` (empty from the combined format).
    signed: dict[str, str] = field(default_factory=dict)


def parse_access_log(lines: Iterable[str]) -> tuple[list[LogLine], int]:
    """The parsable lines of a combined-format or JSON log, and how many were not parsable."""
    found, bad = [], 0
    for number, text in enumerate(lines, 1):
        if text.lstrip().startswith("{"):
            line = _json_line(number, text)
            bad += line is None
            found += [line] if line is not None else []
            continue
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


#: The fields of the JSON log a request's signature is verified from (docs/journal.md).
SIGNED_FIELDS = ("host", "signature", "signature_input", "signature_agent")


def _json_line(number: int, text: str) -> LogLine | None:
    """One line of the JSON log docs/journal.md gives for nginx (``msec`` or an ISO 8601 ``time``,
    ``method``, ``uri``, ``status``, ``ua``, ``signature``); None when it is not one."""
    try:
        row = json.loads(text)
        t = float(row["msec"]) if "msec" in row else datetime.datetime.fromisoformat(str(row["time"])).timestamp()
        status = int(row.get("status", 0))
        signature = row.get("signature")
        signed = {name.replace("_", "-"): str(row[name]) for name in SIGNED_FIELDS if row.get(name)}
        return LogLine(
            number, t, str(row["method"]), str(row["uri"]), status, str(row.get("ua", "")), text.rstrip("\n"),
            None if signature is None else str(signature), signed,
        )  # fmt: skip
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


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
    ``tolerance`` of the send..settle window. A log that carries the Signature header pairs a
    line only with the send that holds that very signature: an impostor's line, unsigned or
    signed otherwise, is named as one even inside our send window."""
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
                and (line.signature is None or "signature" not in e or e["signature"] == line.signature)
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


def match_words(result: Match, host: str, ours: Mapping[int, str] | None = None) -> str:
    """What ``match`` says; ``ours``: log line number -> the keyid of ours whose signature that line
    carries and verifies (a request we sent, which the journal does not hold)."""
    ours = ours or {}
    lines = [
        f"{len(result.matched)} requests with our User-Agent in the log are in the journal for {host}.",
        f"{len(result.not_in_journal)} with our User-Agent are NOT in the journal (an impostor, or a gap in our "
        "records):",
    ]
    lines += [
        f"  log line {x.number}: {x.text}"
        + (
            f"\n    its signature verifies under our key {ours[x.number]}: we sent it, and the journal does not hold it"
            if x.number in ours
            else ""
        )
        for x in result.not_in_journal
    ]
    lines.append(f"{len(result.not_in_log)} requests the journal holds are NOT in the log:")
    lines += [f"  {when(e['t'])} {e.get('method')} {e.get('url')} (entry {e.get('seq')})" for e in result.not_in_log]
    lines.append(f"({result.other_agents} log lines from other User-Agents ignored.)")
    return "\n".join(lines)
