"""The crawl's one pacer, persisted, shared by the pacing and backoff middlewares and the queue.

``politeness_for(crawler)`` returns the same object to every component. The store's
ledger (namespace ``pacing``) is the authority, the local :class:`Pacer` a copy: a
request's slot is *reserved* in the store (one atomic read-modify-write that takes the
host's next slot only if it is free now), and settles and pauses only ever raise the
stored times. With sqlite that survives restarts and covers several processes sharing
the file; with Redis (fleet mode) every process of the identity, on any machine, shares
one ledger, so ten processes still make one request per interval per host, and a pause
set by one holds for all. Stored times are the store's clock; the local pacer follows it
through ``skew``, so comparing a stored time with "now" means the same on every machine.

The queue refreshes its queued hosts' entries in one read (``get_many``) per pop, so it
picks hosts that are free fleet-wide without a round trip per host.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .config import config_for
from .policy.pacing import HostPace, Pacer
from .policy.vocabulary import Namespace
from .store import store_for

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

#: Added to every computed ready time: the server sees a request a few milliseconds
#: after we stamp it, and those milliseconds vary from one request to the next.
PACING_MARGIN = 0.010
#: A ledger entry outlives the host's interval or pause by this long (its store TTL).
KEEP = 60.0
NAMESPACE = Namespace.PACING
#: Fields every process shares through the store; the robots terms and the adaptive delay
#: are also written (a restart starts from them) but each process keeps its own.
SHARED = ("last_start", "not_before")

if TYPE_CHECKING:
    from .store import Slot


class Politeness:
    def __init__(self, crawler: Crawler):
        floor = config_for(crawler).min_interval
        #: The store's clock minus ours, from the last answer (0 for sqlite).
        self.skew = 0.0
        self.pacer = Pacer(floor, margin=PACING_MARGIN, clock=self.now)
        self.store = store_for(crawler)
        #: The scheduler's politeness queues; their per-host sub-queues say which hosts
        #: have requests waiting (an empty sub-queue is removed at once).
        self.queues: weakref.WeakSet[Any] = weakref.WeakSet()
        for host, data in self.store.items(NAMESPACE):
            self.pacer.hosts[host] = HostPace.from_json(data)

    def now(self) -> float:
        """Now on the store's clock."""
        return time.time() + self.skew

    def reserve(self, host: str) -> float:
        """Take ``host``'s next slot in the store if it is free now (0), else the wait in
        seconds (nothing taken). The one place a request's start is decided."""
        pace = self.pacer.pace(host)
        interval = pace.interval(self.pacer.floor)
        slot = self.store.reserve(
            NAMESPACE, host, interval, self.pacer.margin, assign=self._own(pace), ttl=interval + KEEP
        )
        self._adopt(host, slot)
        return slot.wait

    def settle(self, host: str) -> HostPace:
        """The answer arrived now: the next interval counts from here (never earlier)."""
        return self._adopt(
            host,
            self.store.advance(
                NAMESPACE, host, {"last_start": 0.0}, self._own(host), ttl=self.pacer.interval(host) + KEEP
            ),
        )

    def pause(self, host: str, until: float) -> None:
        """R5: nothing goes to ``host`` before ``until`` (our clock, ``self.now()``), fleet-wide."""
        offset = until - self.now()
        self._adopt(
            host,
            self.store.advance(
                NAMESPACE,
                host,
                {"not_before": offset},
                self._own(host),
                ttl=max(offset, 0.0) + self.pacer.interval(host) + KEEP,
            ),
        )

    def refresh(self, hosts: Iterable[str]) -> None:
        """Bring the shared times of ``hosts`` up to date, in one store read."""
        for host, data in self.store.get_many(NAMESPACE, hosts).items():
            self._merge(self.pacer.pace(host), data)

    def sooner_elsewhere(self, host: str) -> float | None:
        """The ready time of the queued host, other than ``host``, that is ready first."""
        waiting = {h for queue in self.queues for h in queue.pqueues if h != host}
        found = self.pacer.soonest(waiting)
        return None if found is None else found[0]

    def _own(self, pace: HostPace | str) -> dict[str, Any]:
        if isinstance(pace, str):
            pace = self.pacer.pace(pace)
        return {k: v for k, v in pace.to_json().items() if k not in SHARED}

    def _adopt(self, host: str, slot: Slot) -> HostPace:
        self.skew = slot.now - time.time()
        pace = self.pacer.pace(host)
        self._merge(pace, slot.value)
        return pace

    @staticmethod
    def _merge(pace: HostPace, data: dict[str, Any]) -> None:
        """The stored times win when later (another process stamped or paused the host)."""
        for field in SHARED:
            theirs = data.get(field)
            if theirs is not None and (getattr(pace, field) is None or theirs > getattr(pace, field)):
                setattr(pace, field, theirs)


_INSTANCES: weakref.WeakKeyDictionary[Crawler, Politeness] = weakref.WeakKeyDictionary()


def politeness_for(crawler: Crawler) -> Politeness:
    found = _INSTANCES.get(crawler)
    if found is None:
        found = _INSTANCES[crawler] = Politeness(crawler)
    return found
