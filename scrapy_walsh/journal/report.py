"""The site owner's report on one host (pure: no Scrapy): every request with the interval that
applied and why, the 429/503 answers and the pause after each, a timeline with values on both
axes, and a verification banner that says what was checked and with which key.

The HTML page is self-contained (inline SVG, no script), so it can be mailed or archived.
"""

from __future__ import annotations

import datetime
import html
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scrapy_walsh.journal import intervals
from scrapy_walsh.journal.reading import HostView, _target, when
from scrapy_walsh.verify import Banner as Banner
from scrapy_walsh.verify import banner as banner


@dataclass(frozen=True)
class Row:
    """One request as the report shows it."""

    entry: Mapping[str, Any]
    gap: float | None
    interval: float | None
    why: str | None
    #: The 429 or 503 the request before it got (this request came after the pause), else None.
    after: int | None
    #: The request before it (what a backoff followed), None for the first.
    before: Mapping[str, Any] | None = None

    @property
    def t(self) -> float:
        return float(self.entry["t"])

    @property
    def status(self) -> int | None:
        status = self.entry.get("status")
        return status if isinstance(status, int) and not isinstance(status, bool) else None

    def result(self) -> str:
        if self.status is not None:
            return str(self.status)
        return str(self.entry.get("outcome") or "unknown (no answer recorded)")

    def why_words(self) -> str:
        """The interval and why; after a pausing answer with no ``why``, what the entry allows."""
        if self.after is not None and self.why in (None, "floor") and self.gap is not None:
            return f"{self.gap:.1f} s pause after the {self.after} (your Retry-After, or our backoff)"
        if self.why == "backoff" and self.before is not None and self.interval is not None:
            return f"{round(self.interval, 3):g} s (our backoff after {intervals.backoff_cause(self.before)})"
        return intervals.words(self.entry)


def rows(view: HostView) -> list[Row]:
    out: list[Row] = []
    previous: Row | None = None
    for entry, gap in view.gaps():
        seconds, why = intervals.applied(entry)
        after = previous.status if previous is not None and previous.status in intervals.PAUSING else None
        previous = Row(entry, gap, seconds, why, after, previous.entry if previous is not None else None)
        out.append(previous)
    return out


# ---------------------------------------------------------------------- verification


# ---------------------------------------------------------------------- show --requests


def request_lines(view: HostView) -> str:
    """``show --requests``: one line per request: sent, gap, request, status, interval and why."""
    lines = [f"Requests to {view.host} ({len(view.sends)}), oldest first:"]
    for row in rows(view):
        gap = "-" if row.gap is None else f"{row.gap:.3f} s"
        request = f"{row.entry.get('method', '')} {_target(str(row.entry.get('url', '')))}"
        mark = "  <- the host asked us to slow down" if row.status in intervals.PAUSING else ""
        lines.append(f"  {when(row.t)}  gap {gap:>9}  {request}  {row.result()}  [{row.why_words()}]{mark}")
    if not view.sends:
        lines.append("  (none)")
    return "\n".join(lines)


# ---------------------------------------------------------------------- the timeline


def _ticks(top: float, count: int = 5) -> list[float]:
    """Round values from 0 up to ``top`` (1, 2, 5 x 10^n steps)."""
    raw = top / count
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    return [i * step for i in range(int(top / step) + 1)]


def _clock(t: float) -> str:
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%H:%M:%S")


NO_REQUESTS = '<text x="10" y="30">no requests</text>'


#: A gap this long, and ten times the interval applied, is idle time between crawls: drawn as a break.
IDLE_SECONDS = 60.0
#: Pixels of one break on the time axis.
BREAK = 28


@dataclass(frozen=True)
class _Chart:
    """The timeline's frame: pixels of the plot area, and the values it spans. The time axis covers
    the ``runs`` (crawl time) only, each idle gap between two runs drawn as a break."""

    t0: float
    span: float
    top_value: float
    runs: tuple[tuple[float, float], ...] = ()
    width: int = 900
    height: int = 340
    left: int = 64
    right: int = 24
    top: int = 24
    bottom: int = 48

    def x(self, t: float) -> float:
        runs = self.runs or ((self.t0, self.t0 + self.span),)
        plot = self.width - self.left - self.right - BREAK * (len(runs) - 1)
        total = sum(max(end - start, 1.0) for start, end in runs)
        done = 0.0
        for i, (start, end) in enumerate(runs):
            length = max(end - start, 1.0)
            if t <= end or i == len(runs) - 1:
                return self.left + (done + min(max(t - start, 0.0), length)) / total * plot + i * BREAK
            done += length
        return float(self.width - self.right)  # not reached: the last run takes every later time

    def y(self, v: float) -> float:
        return self.height - self.bottom - v / self.top_value * (self.height - self.top - self.bottom)


def timeline_svg(view: HostView) -> str:
    """Time across, the gap before each request up (both axes with values); the interval applied
    as a labelled dashed line; a 429/503 as a red mark, and the pause after it shaded."""
    table = rows(view)
    times = [r.t for r in table] + [float(r["t"]) for r in view.refusals]
    if not times:
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="900" height="60">{NO_REQUESTS}</svg>'
    idle = _idle(table)
    values = [r.gap for r in table if r.gap is not None and r.gap < idle]
    values += [r.interval for r in table if r.interval is not None]
    runs = _runs(sorted(times), idle)
    c = _Chart(min(times), max(max(times) - min(times), 1.0), max([*values, 1.0]) * 1.15, runs)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{c.width}" height="{c.height}" role="img" '
        f'aria-label="timeline of our requests to {html.escape(view.host)}" style="background:#fff" font-size="12">',
        *_axes(c),
        *_breaks(c),
        *_pauses(c, table),
        *_interval_line(c, table),
        *_marks(c, table, view.refusals),
        "</svg>",
    ]
    return "\n".join(parts)


def _idle(table: list[Row]) -> float:
    """The gap from which on the time between two requests is idle, not crawling."""
    return max(IDLE_SECONDS, 10 * max((r.interval for r in table if r.interval is not None), default=1.0))


def _runs(times: list[float], idle: float) -> tuple[tuple[float, float], ...]:
    """The stretches of crawl time: ``times`` split where two follow each other ``idle`` apart."""
    runs, start = [], times[0]
    for before, after in zip(times, times[1:], strict=False):
        if after - before >= idle:
            runs.append((start, before))
            start = after
    return (*runs, (start, times[-1]))


def _breaks(c: _Chart) -> list[str]:
    """A zigzag across the time axis at each idle gap, labelled with its length."""
    parts = []
    for (_, end), (start, _) in zip(c.runs, c.runs[1:], strict=False):
        x, y = (c.x(end) + c.x(start)) / 2, c.y(0)
        parts.append(
            f'<g class="idle-break"><path d="M{x - 6:.1f},{c.top} L{x + 6:.1f},{c.top} M{x:.1f},{c.top} '
            f'L{x:.1f},{y:.1f}" stroke="#999" stroke-dasharray="3 3" fill="none"/>'
            f'<path d="M{x - 7:.1f},{y + 4:.1f} l5,-8 l4,8 l5,-8" stroke="#555" fill="#fff"/>'
            f'<text x="{x:.1f}" y="{c.top - 6}" text-anchor="middle" fill="#555">idle {_duration(start - end)}'
            "</text></g>"
        )
    return parts


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{int(seconds // 60)} min" if seconds >= 60 else f"{seconds:.0f} s"


def _axes(c: _Chart) -> list[str]:
    parts = []
    for value in _ticks(c.top_value):  # the vertical axis: seconds since our previous request
        parts.append(
            f'<line x1="{c.left}" y1="{c.y(value):.1f}" x2="{c.width - c.right}" y2="{c.y(value):.1f}" '
            'stroke="#e4e4e4"/>'
            f'<text x="{c.left - 6}" y="{c.y(value) + 4:.1f}" text-anchor="end" class="y-tick">{value:g} s</text>'
        )
    for t, anchor in _time_ticks(c):  # the horizontal axis: UTC time, crawl time only
        parts.append(
            f'<line x1="{c.x(t):.1f}" y1="{c.y(0):.1f}" x2="{c.x(t):.1f}" y2="{c.y(0) + 5:.1f}" stroke="#000"/>'
            f'<text x="{c.x(t):.1f}" y="{c.y(0) + 18:.1f}" text-anchor="{anchor}" class="x-tick">{_clock(t)}</text>'
        )
    middle = c.top + (c.height - c.top - c.bottom) / 2
    return parts + [
        f'<line x1="{c.left}" y1="{c.y(0):.1f}" x2="{c.width - c.right}" y2="{c.y(0):.1f}" stroke="#000"/>',
        f'<line x1="{c.left}" y1="{c.top}" x2="{c.left}" y2="{c.y(0):.1f}" stroke="#000"/>',
        f'<text x="{(c.left + c.width - c.right) / 2:.0f}" y="{c.height - 6}" text-anchor="middle">'
        f"time (timezone.utc), {when(c.t0)[:10]}</text>",
        f'<text x="14" y="{middle:.0f}" text-anchor="middle" transform="rotate(-90 14 {middle:.0f})">'
        "seconds since our previous request</text>",
    ]


def _time_ticks(c: _Chart) -> list[tuple[float, str]]:
    """Five ticks across one run; the start and the end of each run when there are several."""
    if len(c.runs) <= 1:
        return [(c.t0 + c.span * i / 4, a) for i, a in enumerate(("start", "middle", "middle", "middle", "end"))]
    kept: list[tuple[float, str]] = []
    for t, anchor in sorted([(start, "start") for start, _ in c.runs] + [(end, "end") for _, end in c.runs]):
        if kept and c.x(t) - c.x(kept[-1][0]) < TICK_ROOM:  # a short run: its end's label would overlap
            continue
        kept.append((t, anchor))
    return kept


#: The least room between two time labels, in pixels (HH:MM:SS at the chart's 12 px font is ~50).
TICK_ROOM = 60
#: The width of a character of the chart's 12 px font, a little over its average (for laying labels out).
CHAR_WIDTH = 6.5


def _pauses(c: _Chart, table: list[Row]) -> list[str]:
    """Each pause, shaded and labelled with its cause and length: after a 429/503, and each backoff
    or Retry-After the next request kept."""
    parts = []
    #: the right end of the last label on each line of labels (a label goes on the first line it fits)
    lines: list[float] = []
    for row, nxt in zip(table, table[1:], strict=False):
        cause = _pause_cause(row, nxt)
        if cause is None:
            continue
        label = f"{cause}: {nxt.t - row.t:.1f} s"
        half = len(label) * CHAR_WIDTH / 2
        middle = min(max((c.x(row.t) + c.x(nxt.t)) / 2, c.left + half), c.width - c.right - half)
        line = next((i for i, end in enumerate(lines) if end + 6 <= middle - half), len(lines))
        if line == len(lines):
            lines.append(middle + half)
        else:
            lines[line] = middle + half
        parts.append(
            f'<rect class="pause" x="{c.x(row.t):.1f}" y="{c.top}" width="{max(c.x(nxt.t) - c.x(row.t), 1):.1f}" '
            f'height="{c.y(0) - c.top:.1f}" fill="#f6c9c9" opacity="0.55"><title>{html.escape(label)} until our next '
            f"request</title></rect>"
            f'<text class="pause-label" x="{middle:.1f}" y="{c.top + 14 + 14 * line}" text-anchor="middle" '
            f'fill="#a00">{html.escape(label)}</text>'
        )
    return parts


def _pause_cause(row: Row, nxt: Row) -> str | None:
    """What made the pause between ``row`` and the next request: your Retry-After, our backoff
    (after an error answer, a slow answer, or no answer), or a 429/503 whose entry does not say."""
    if nxt.why == "retry-after":
        return f"your Retry-After after the {row.status}" if row.status in intervals.PAUSING else "your Retry-After"
    if nxt.why == "backoff":
        return f"our backoff after {intervals.backoff_cause(row.entry)}"
    if row.status in intervals.PAUSING:
        return f"pause after the {row.status}"
    return None


def _interval_line(c: _Chart, table: list[Row]) -> list[str]:
    """The interval applied, dashed, labelled with its last value and what set it."""
    steps = [(c.x(r.t), c.y(r.interval), r.interval, r.why, r.gap) for r in table if r.interval is not None]
    if not steps:
        return []
    idle, lines, path = _idle(table), list[list[str]](), list[str]()
    for px, py, _, _, gap in steps:  # one line per run: none across idle time
        if path and gap is not None and gap >= idle:
            lines.append(path)
            path = []
        path.append(f"{px:.1f},{py:.1f}")
    _, last_y, last_value, last_why, _ = steps[-1]
    words = intervals.WHY_WORDS.get(last_why or "", last_why or "why unknown")
    return [
        *(
            f'<polyline points="{" ".join(points)}" fill="none" stroke="#c00" stroke-width="2" stroke-dasharray="6 4"/>'
            for points in [*lines, path]
        ),
        f'<text class="interval-label" x="{c.width - c.right}" y="{last_y - 6:.1f}" fill="#c00" text-anchor="end">'
        f"interval applied: {last_value:g} s ({html.escape(words)})</text>",
    ]


def _marks(c: _Chart, table: list[Row], refusals: list[dict[str, Any]]) -> list[str]:
    """A dot per request, a red square per 429/503, a triangle per refusal."""
    e = html.escape
    parts = []
    idle = _idle(table)
    for row in table:
        title = f"{when(row.t)}: answer {row.result()}"
        gap = row.gap if row.gap is not None and row.gap < idle else None  # after idle time: a run's first
        height = gap if gap is not None else 0.0  # the first request has no gap: on the axis
        if gap is not None:
            title = f"{when(row.t)}: {row.gap:.3f} s after the previous request; answer {row.result()}"
        if row.status in intervals.PAUSING:
            parts.append(
                f'<rect class="pausing-answer" x="{c.x(row.t) - 5:.1f}" y="{c.y(height) - 5:.1f}" width="10" '
                f'height="10" fill="#c00"><title>{e(title)}: the host asked us to slow down</title></rect>'
            )
        elif gap is not None:
            parts.append(
                f'<circle cx="{c.x(row.t):.1f}" cy="{c.y(height):.1f}" r="4" fill="#06c">'
                f"<title>{e(title)}</title></circle>"
            )
    for r in refusals:
        parts.append(
            f'<path d="M{c.x(r["t"]):.1f},{c.y(0) + 4:.1f} l-4,8 h8 z" fill="#e80"><title>refused: '
            f"{e(str(r.get('url', '')))}</title></path>"
        )
    return parts


# ---------------------------------------------------------------------- the page

STYLE = """body{font-family:sans-serif;margin:2em;color:#111}table{border-collapse:collapse;margin:.5em 0 1.5em}
td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;font-size:14px}
.banner{padding:.5em .8em;border-radius:4px;font-weight:bold}
.verified{background:#e3f4e3;color:#064}.unverified{background:#fff4d6;color:#750}.failed{background:#fde2e2;color:#a00}
tr.pausing td{background:#fde2e2}tr.after-pause td{background:#fff1f1}"""


def report_html(view: HostView, verification: Banner, agent: str) -> str:
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
    table = rows(view)
    requests = "".join(
        f'<tr class="{_row_class(row)}"><td>{when(row.t)}</td><td>{"-" if row.gap is None else f"{row.gap:.3f} s"}</td>'
        f"<td>{e(str(row.entry.get('method', '')))} {e(_target(str(row.entry.get('url', ''))))}</td>"
        f"<td>{e(row.result())}</td><td>{e(row.why_words())}</td></tr>"
        for row in table
    )
    pauses = sum(row.status in intervals.PAUSING for row in table)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Requests to {e(view.host)}</title>
<style>{STYLE}</style>
</head><body>
<h1>Requests to {e(view.host)}</h1>
<p>From <code>{e(agent)}</code>: {len(view.sends)} requests sent, {len(view.refusals)} refused before sending,
{pauses} answered 429 or 503 (each followed by a pause).</p>
<p class="banner {verification.state}" data-verification="{verification.state}">Journal verification:
{e(verification.words)}</p>
<h2>Timeline</h2>
<p>Each dot is one request, at its send time, at the height of the gap since our previous request to this
host. The dashed line is the interval we applied, with its value and what set it. A red square is an answer
429 or 503. A shaded band is a pause until our next request, labelled with its cause (your Retry-After, or
our backoff after an error answer, a slow answer or no answer) and its length. Triangles under the axis are
requests we refused to send. The time axis covers crawl time only: a zigzag marks idle time between two
crawls, with its length.</p>
{timeline_svg(view)}
<h2>Requests per day (timezone.utc)</h2>
<table><tr><th>day</th><th>requests</th><th>smallest gap</th></tr>{days}</table>
<h2>robots.txt versions followed</h2>
<table><tr><th>digest</th><th>first</th><th>last</th><th>requests</th></tr>{versions}</table>
<h2>Refusals</h2>
<table><tr><th>time</th><th>target</th><th>rule</th><th>reason</th></tr>{refusals}</table>
<h2>Every request</h2>
<table><tr><th>sent</th><th>gap</th><th>request</th><th>status</th><th>interval applied, and why</th></tr>
{requests}</table>
</body></html>
"""


def _row_class(row: Row) -> str:
    if row.status in intervals.PAUSING:
        return "pausing"
    return "after-pause" if row.after is not None else "request"
