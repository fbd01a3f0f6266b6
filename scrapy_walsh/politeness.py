"""The crawl's one pacer, persisted, shared by the pacing and backoff middlewares and the queue.

``politeness_for(crawler)`` returns the same object to every component. The pacing
:class:`~scrapy_walsh.store.ledger.Ledger` (namespace ``pacing`` of the state store) is
the authority, the local :class:`Pacer` a copy: a request's slot is *reserved* in the
ledger (one atomic read-modify-write that takes the host's next slot only if it is free
now), and settles and pauses only ever raise the stored times. With sqlite that
survives restarts and covers several processes sharing the file; with Redis (fleet
mode) every process of the identity, on any machine, shares one ledger, so ten
processes still make one request per interval per host, and a pause set by one holds
for all. Stored times are the store's clock; the local pacer follows it
through the ledger's ``skew``, so comparing a stored time with "now" means the same on
every machine.

The queue refreshes only the few candidates a pop considers, in one read (``get_many``),
so it picks hosts that are free fleet-wide with a bounded number of round trips per
request, whatever the number of queued hosts (issue 17). That read is advice: when the
store is unavailable the queue chooses from the local copy, and the reservation still
decides. :meth:`Politeness.sooner_elsewhere` asks each queue's calendar (O(log H)).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .config import config_for
from .policy.pacing import HostPace, Pacer
from .policy.vocabulary import Namespace
from .store import StoreUnavailable, store_for
from .store.ledger import Ledger

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
    from .store import Reservation


class Politeness:
    def __init__(self, crawler: Crawler):
        floor = config_for(crawler).min_interval
        self.store = store_for(crawler)
        self.ledger = Ledger(self.store, NAMESPACE)
        self.pacer = Pacer(floor, margin=PACING_MARGIN, clock=self.ledger.now)
        #: The scheduler's politeness queues; their per-host sub-queues say which hosts
        #: have requests waiting (an empty sub-queue is removed at once).
        self.queues: weakref.WeakSet[Any] = weakref.WeakSet()
        for host, data in self.ledger.entries():
            self.pacer.hosts[host] = HostPace.from_json(data)

    def now(self) -> float:
        """Now on the store's clock."""
        return self.ledger.now()

    def reserve(self, host: str) -> float:
        """Take ``host``'s next slot in the ledger if it is free now (0), else the wait in
        seconds (nothing taken). The one place a request's start is decided; raises
        :class:`~scrapy_walsh.store.StoreUnavailable` when the store cannot answer."""
        pace = self.pacer.pace(host)
        interval = pace.interval(self.pacer.floor)
        reservation = self.ledger.reserve(
            host, interval, self.pacer.margin, assign=self._own(pace), ttl=interval + KEEP
        )
        self._adopt(host, reservation)
        return reservation.wait

    def settle(self, host: str) -> HostPace:
        """The answer arrived now: the next interval counts from here (never earlier)."""
        return self._adopt(
            host, self.ledger.advance(host, {"last_start": 0.0}, self._own(host), ttl=self.pacer.interval(host) + KEEP)
        )

    def pause(self, host: str, until: float) -> None:
        """R5: nothing goes to ``host`` before ``until`` (our clock, ``self.now()``), fleet-wide."""
        offset = until - self.now()
        self._adopt(
            host,
            self.ledger.advance(
                host, {"not_before": offset}, self._own(host), ttl=max(offset, 0.0) + self.pacer.interval(host) + KEEP
            ),
        )

    def ready_at(self, host: str) -> float:
        """When ``host``'s next request may start, by the local copy of the ledger."""
        return self.pacer.ready_at(host)

    def interval(self, host: str) -> float:
        return self.pacer.interval(host)

    def refresh(self, hosts: Iterable[str]) -> None:
        """Bring the shared times of ``hosts`` up to date, in one store read (advice only:
        an unavailable store leaves the local copy as it is)."""
        try:
            found = self.ledger.get_many(hosts)
        except StoreUnavailable:
            return
        for host, data in found.items():
            self._merge(self.pacer.pace(host), data)

    def sooner_elsewhere(self, host: str) -> float | None:
        """The ready time of the queued host, other than ``host``, that is ready first."""
        found = [t for queue in self.queues if (t := queue.soonest_other(host)) is not None]
        return min(found, default=None)

    def _own(self, pace: HostPace | str) -> dict[str, Any]:
        if isinstance(pace, str):
            pace = self.pacer.pace(pace)
        return {k: v for k, v in pace.to_json().items() if k not in SHARED}

    def _adopt(self, host: str, reservation: Reservation) -> HostPace:
        pace = self.pacer.pace(host)
        self._merge(pace, reservation.value)
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
