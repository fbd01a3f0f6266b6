"""R4/R5 arithmetic: per-host spacing, adaptive delay and "not before" pauses. Pure.

One :class:`HostPace` per host holds everything that decides when its next request may start;
:func:`ready_time` is the one formula, used here for the local view and by the pacing ledger
(:mod:`scrapy_walsh.store.ledger`), which alone takes slots. Times are wall-clock seconds, so
they mean the same to the next process and to a fleet. docs/requirements/r4-pacing.md says why.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy_walsh.policy.vocabulary import IntervalWhy

if TYPE_CHECKING:
    from scrapy_walsh.policy.ratelimit import HeaderLines

#: The adaptive delay never rises above this (seconds).
ADAPTIVE_MAX = 60.0
#: Weight of a new latency sample in the smoothed latency (AutoThrottle halves).
SMOOTHING = 0.5
#: A wait longer than this before a request is logged, with its reason: a crawl never waits in silence.
LOGGED_WAIT = 5.0


#: A start stamped further ahead of the store's clock than this was stamped by a clock that has
#: since been set back (a clock step): every stamp is its writer's "now" on the store's clock, so
#: nothing else puts one ahead. The minute absorbs NTP's slewing.
CLOCK_SLACK = 60.0
#: The ledger's start stamps (a pause's own is ``paused_at``; its end, ``not_before``, is judged by it).
STAMPS = ("last_start", "any_start")


def unstep(
    entry: dict[str, Any], now: float, horizon: float, slack: float = CLOCK_SLACK
) -> tuple[float, dict[str, Any] | None]:
    """A ledger entry read at ``now``, mended if a clock step left it ahead: ``(step, mended)``,
    ``(0, None)`` when nothing is ahead. A start more than ``slack`` ahead becomes
    ``now`` (the real one was earlier, so the interval still holds at the server). A pause
    stamped ahead (``paused_at``; an entry without it: its start, if ahead) keeps the length the
    site asked for, from ``now``; a pause stamped in time stays as it is, however long. A host
    lease ending more than ``horizon`` ahead (the longest pause the crawl waits for, plus the
    slack: no lease holds longer) is dropped. The Redis Lua of the ledger repeats this."""
    step, new = 0.0, dict(entry)
    stamp = _number(entry.get("paused_at"))
    last = _number(entry.get("last_start"))
    if stamp is None and last is not None and last - now > slack:
        stamp = last  # a pause written before paused_at was: no later than its start, so no shorter
    for field in STAMPS:
        value = _number(entry.get(field))
        if value is not None and value - now > slack:
            step, new[field] = max(step, value - now), now
    if stamp is not None and stamp - now > slack:
        step = max(step, stamp - now)
        if (end := _number(entry.get("not_before"))) is not None and end > now:
            new["not_before"] = end - (stamp - now)
        if "paused_at" in entry:
            new["paused_at"] = now
    leases = entry.get("sending")
    if isinstance(leases, dict):
        kept = {}
        for token, lease in leases.items():
            until = _number(lease.get("until")) if isinstance(lease, dict) else None
            if until is not None and until - now > horizon:
                step = max(step, until - now)
            else:
                kept[token] = lease
        if kept:
            new["sending"] = kept
        else:
            new.pop("sending")
    return (step, new) if step else (0.0, None)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def ready_time(last_start: float | None, not_before: float, interval: float, margin: float = 0.0) -> float:
    """When the next request to a host may start: ``interval`` after the last start, never
    before a "not before" pause, plus ``margin``; 0 for a host with neither (it goes at once).
    The one formula, used by :class:`HostPace` and by the pacing ledger's ``reserve``
    (whose Redis Lua repeats it, pinned to the same cases by the tests)."""
    ready = not_before if last_start is None else max(not_before, last_start + interval)
    return ready + margin if ready else 0.0


@dataclass
class HostPace:
    """What is known about one host's pace."""

    last_start: float | None = None
    crawl_delay: float | None = None
    #: Seconds per request, from ``Request-rate: n/Ms``.
    request_rate: float | None = None
    adaptive: float = 0.0
    not_before: float = 0.0
    #: Seconds per request the host's ``RateLimit`` / ``RateLimit-Policy`` headers ask for
    #: (:func:`scrapy_walsh.policy.ratelimit.requested_interval`).
    ratelimit: float | None = None
    #: Timeouts in a row: each doubles the host's rest
    #: (:func:`scrapy_walsh.policy.backoff.timeout_rest`); an answer resets it.
    timeouts: int = 0

    def interval(self, floor: float) -> float:
        """``max(floor, Crawl-delay, Request-rate, RateLimit, adaptive)``: every term only adds."""
        return max(floor, self.crawl_delay or 0.0, self.request_rate or 0.0, self.ratelimit or 0.0, self.adaptive)

    def ready_at(self, floor: float, margin: float = 0.0) -> float:
        """The earliest start of the next request; 0 for a host never seen."""
        return ready_time(self.last_start, self.not_before, self.interval(floor), margin)

    def to_json(self) -> dict[str, Any]:
        # every field is a number or None: no deep copy (``dataclasses.asdict``) needed, and the
        # ledger writes one per reservation
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HostPace:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


def wait_reason(pace: HostPace, floor: float) -> str:
    """Why the next request to a host waits: the term of :meth:`HostPace.ready_at` that decides,
    in words (the crawl's log and ``explain`` say the same)."""
    interval = pace.interval(floor)
    if pace.not_before and (pace.last_start is None or pace.not_before > pace.last_start + interval):
        if pace.timeouts:
            runs = f"{pace.timeouts} timeout{'s' if pace.timeouts > 1 else ''} in a row"
            return f"a rest after {runs} (no answer within DOWNLOAD_TIMEOUT; each doubles it)"
        return "a pause the host asked for (Retry-After on a 429/503, or its RateLimit fields)"
    terms = [
        (pace.crawl_delay or 0.0, f"its robots.txt Crawl-delay of {pace.crawl_delay or 0:g} s"),
        (pace.request_rate or 0.0, f"its robots.txt Request-rate (one request per {pace.request_rate or 0:g} s)"),
        (pace.ratelimit or 0.0, f"its RateLimit fields (one request per {pace.ratelimit or 0:g} s)"),
        (pace.adaptive, f"the adaptive delay of {pace.adaptive:.3g} s (errors or slow answers from it)"),
    ]
    value, words = max(terms, key=lambda term: term[0])
    return words if value > floor else f"the minimum interval of {floor:g} s (WALSH_MIN_INTERVAL)"


def interval_applied(pace: HostPace, floor: float, paused_by: IntervalWhy | None = None) -> tuple[float, IntervalWhy]:
    """The interval the next request to a host keeps after the one before it, and what set it:
    the term of :meth:`HostPace.ready_at` that decides (the request journal's ``interval`` and
    ``why``, so a site owner sees a Retry-After pause as one). A pause ("not before") that
    decides is a rest after timeouts when timeouts led to it, else ``paused_by`` (what the
    pause's caller said: Retry-After, a computed backoff, RateLimit), a backoff when unknown
    (another process of the fleet paused the host)."""
    interval = pace.interval(floor)
    if pace.not_before and pace.last_start is not None and pace.not_before > pace.last_start + interval:
        why = IntervalWhy.TIMEOUT_REST if pace.timeouts else paused_by or IntervalWhy.BACKOFF
        return pace.not_before - pace.last_start, why
    terms = [
        (pace.crawl_delay or 0.0, IntervalWhy.CRAWL_DELAY),
        (pace.request_rate or 0.0, IntervalWhy.REQUEST_RATE),
        (pace.ratelimit or 0.0, IntervalWhy.RATELIMIT),
        (pace.adaptive, IntervalWhy.BACKOFF),
    ]
    value, why = max(terms, key=lambda term: term[0])
    return interval, why if value > floor else IntervalWhy.FLOOR


def asked_ratelimit(headers: HeaderLines) -> float | None:
    """Seconds between requests a response's RateLimit fields ask for, or None
    (:func:`scrapy_walsh.policy.ratelimit.requested_interval`)."""
    from scrapy_walsh.policy.ratelimit import requested_interval  # http_sf loads on first use

    return requested_interval(headers)


class Pacer:
    """This process's copy of the pacing ledger (:mod:`scrapy_walsh.store.ledger`), one
    :class:`HostPace` per host, which the queue and the middlewares read.

    It is ours, not a Scrapy downloader slot: entries are never dropped while a host's
    interval may still matter, so a host with ``Crawl-delay: 120`` idle for 60 s is not
    hit early (Scrapy forgets idle slots after 60 s).
    """

    def __init__(
        self,
        floor: float,
        margin: float = 0.0,
        clock: Callable[[], float] = time.time,
        host_floors: dict[str, float] | None = None,
    ):
        self.floor = floor
        #: host -> the interval the project asks for that host (``DOWNLOAD_SLOTS`` delays):
        #: a floor of its own, never under ``floor``
        self.host_floors = dict(host_floors or {})
        #: Added to every wait: the server sees a request a little after we stamp it.
        self.margin = margin
        self.clock = clock
        self.hosts: dict[str, HostPace] = {}

    def pace(self, host: str) -> HostPace:
        pace = self.hosts.get(host)
        if pace is None:
            pace = self.hosts[host] = HostPace()
        return pace

    def seen(self, host: str) -> bool:
        pace = self.hosts.get(host)
        return pace is not None and (pace.last_start is not None or pace.not_before > 0)

    def floor_for(self, host: str) -> float:
        """The least interval of ``host``: the R4 floor, or the project's slower one for it."""
        if not self.host_floors:  # the usual case, asked several times per request
            return self.floor
        return max(self.floor, self.host_floors.get(host, 0.0))

    def interval(self, host: str) -> float:
        return self.pace(host).interval(self.floor_for(host))

    def ready_at(self, host: str) -> float:
        pace = self.hosts.get(host)
        return 0.0 if pace is None else pace.ready_at(self.floor_for(host), self.margin)

    def set_robots(self, host: str, crawl_delay: float | None, request_rate: float | None) -> None:
        pace = self.pace(host)
        pace.crawl_delay = crawl_delay
        pace.request_rate = request_rate

    def follow_ratelimit(self, host: str, headers: HeaderLines) -> float | None:
        """A response's RateLimit fields become the host's ``ratelimit`` term (a response
        without them leaves it as it was). Returns the host's whole interval when the
        fields asked for a pace, else None: the caller holds the host that long fleet-wide."""
        asked = asked_ratelimit(headers)
        if asked is None:
            return None
        pace = self.pace(host)
        pace.ratelimit = asked
        return pace.interval(self.floor_for(host))

    def observe(self, host: str, latency: float, ok: bool) -> None:
        """Follow the host's smoothed latency (AutoThrottle with a target concurrency of 1);
        on an error or a slow answer the delay can only rise."""
        pace = self.pace(host)
        if ok:
            pace.adaptive = min(ADAPTIVE_MAX, (1 - SMOOTHING) * pace.adaptive + SMOOTHING * latency)
        else:
            pace.adaptive = min(ADAPTIVE_MAX, max(pace.adaptive * 2, self.floor, latency))

    def soonest(self, hosts: Iterable[str]) -> tuple[float, str] | None:
        """The ``(ready_at, host)`` among ``hosts`` that is ready first."""
        return min(((self.ready_at(h), h) for h in hosts), default=None)


def time_left(queued: Iterable[tuple[float, int, float]], now: float) -> float:
    """Seconds until the last queued request may start, by the pacing bound (R4): hosts run side
    by side, each one request per interval, so the crawl lasts as long as its longest host.
    ``queued``: ``(ready time, requests waiting, interval)`` per host."""
    return max(
        (max(ready - now, 0.0) + (count - 1) * interval for ready, count, interval in queued if count > 0),
        default=0.0,
    )


def crawl_duration(hosts: Iterable[tuple[int, float]], latency: float = 0.0) -> float:
    """Seconds a crawl takes by the pacing bound: ``hosts`` gives each host's request count and
    interval. Requests are serial per process (R4), and a host's next request starts its
    interval after the previous answer; the queue takes the host ready soonest, so this plays
    that schedule out (O(n log H), no clock). ``latency`` is each request's time on the wire."""
    ready = [(0.0, index, count, interval) for index, (count, interval) in enumerate(hosts) if count > 0]
    heapq.heapify(ready)
    now = 0.0
    while ready:
        at, index, count, interval = heapq.heappop(ready)
        now = max(now, at) + latency
        if count > 1:
            heapq.heappush(ready, (now + interval, index, count - 1, interval))
    return now
