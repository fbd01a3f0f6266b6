"""R4/R5 arithmetic: per-host spacing, adaptive delay and "not before" pauses. Pure.

One :class:`HostPace` per host holds everything that decides when the next request to
that host may start: the last start, the robots Crawl-delay and Request-rate, the
adaptive (latency-following) delay, and a "not before" time set by backoff (R5). The
:class:`Pacer` turns them into a ready time and reserves slots. The pacing middleware,
the backoff middleware and the politeness-aware queue all read and write the same
pacer, so a paused host is paused for all three.

Times are wall-clock seconds (``time.time``), so a ledger persisted by one process
means the same thing to the next one, and later to every process of a fleet.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any

#: The adaptive delay never rises above this (seconds).
ADAPTIVE_MAX = 60.0
#: Weight of a new latency sample in the smoothed latency (AutoThrottle halves).
SMOOTHING = 0.5


def ready_time(last_start: float | None, not_before: float, interval: float, margin: float = 0.0) -> float:
    """When the next request to a host may start: ``interval`` after the last start, never
    before a "not before" pause, plus ``margin``; 0 for a host with neither (it goes at once).
    The one formula, used by the :class:`Pacer` and by the stores' atomic ``reserve``."""
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

    def interval(self, floor: float) -> float:
        """``max(floor, Crawl-delay, Request-rate, adaptive)``: every term only adds."""
        return max(floor, self.crawl_delay or 0.0, self.request_rate or 0.0, self.adaptive)

    def ready_at(self, floor: float) -> float:
        """The earliest start of the next request; 0 for a host never seen."""
        return ready_time(self.last_start, self.not_before, self.interval(floor))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HostPace:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


class Pacer:
    """The per-host ledger of one crawl (or, through a shared store, one fleet).

    It is ours, not a Scrapy downloader slot: entries are never dropped while a host's
    interval may still matter, so a host with ``Crawl-delay: 120`` idle for 60 s is not
    hit early (Scrapy forgets idle slots after 60 s).
    """

    def __init__(self, floor: float, margin: float = 0.0, clock: Callable[[], float] = time.time):
        self.floor = floor
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

    def interval(self, host: str) -> float:
        return self.pace(host).interval(self.floor)

    def ready_at(self, host: str) -> float:
        pace = self.hosts.get(host)
        if pace is None:
            return 0.0
        return ready_time(pace.last_start, pace.not_before, pace.interval(self.floor), self.margin)

    def wait(self, host: str) -> float:
        """Seconds until ``host`` may be sent to; 0 when it may go now."""
        return max(0.0, self.ready_at(host) - self.clock())

    def stamp(self, host: str) -> HostPace:
        """Record that a request to ``host`` starts now (after any wait)."""
        pace = self.pace(host)
        pace.last_start = self.clock()
        return pace

    def settle(self, host: str) -> HostPace:
        """Record that the answer to the last request arrived now: the server saw that
        request at the latest now, so the interval is counted from here. Counting only
        from the send stamp would let a stall between stamp and socket (a GC pause, a
        busy reactor) shorten the gap the server sees."""
        pace = self.pace(host)
        pace.last_start = max(pace.last_start or 0.0, self.clock())
        return pace

    def set_robots(self, host: str, crawl_delay: float | None, request_rate: float | None) -> None:
        pace = self.pace(host)
        pace.crawl_delay = crawl_delay
        pace.request_rate = request_rate

    def observe(self, host: str, latency: float, ok: bool) -> None:
        """Follow the host's smoothed latency (AutoThrottle with a target concurrency of 1);
        on an error or a slow answer the delay can only rise."""
        pace = self.pace(host)
        if ok:
            pace.adaptive = min(ADAPTIVE_MAX, (1 - SMOOTHING) * pace.adaptive + SMOOTHING * latency)
        else:
            pace.adaptive = min(ADAPTIVE_MAX, max(pace.adaptive * 2, self.floor, latency))

    def pause(self, host: str, until: float) -> None:
        """R5: nothing goes to ``host`` before ``until`` (a later pause never shortens one)."""
        pace = self.pace(host)
        pace.not_before = max(pace.not_before, until)

    def soonest(self, hosts: Iterable[str]) -> tuple[float, str] | None:
        """The ``(ready_at, host)`` among ``hosts`` that is ready first."""
        return min(((self.ready_at(h), h) for h in hosts), default=None)

    def keep_for(self, host: str) -> float:
        """How long the ledger entry still matters (its store TTL)."""
        pace = self.pace(host)
        return max(self.interval(host), pace.not_before - self.clock(), 0.0) + 60.0
