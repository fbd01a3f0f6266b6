"""The crawl's one pacer, persisted, shared by the pacing and backoff middlewares and the queue.

``politeness_for(crawler)`` returns the same object to every component. Each stamp and
pause is written to the state store (namespace ``pacing``) with a TTL covering the
host's interval or pause, so a restarted crawl still knows when each host was last
asked and until when it is paused: no host is hit early because a process died.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from .pacing import HostPace, Pacer
from .settings import MIN_INTERVAL_FLOOR
from .store import store_for

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

#: Added to every computed ready time: the server sees a request a few milliseconds
#: after we stamp it, and those milliseconds vary from one request to the next.
PACING_MARGIN = 0.010
NAMESPACE = "pacing"


class Politeness:
    def __init__(self, crawler: Crawler):
        floor = max(MIN_INTERVAL_FLOOR, crawler.settings.getfloat("WALSH_MIN_INTERVAL"))
        self.pacer = Pacer(floor, margin=PACING_MARGIN)
        self.store = store_for(crawler)
        #: The scheduler's politeness queues; their per-host sub-queues say which hosts
        #: have requests waiting (an empty sub-queue is removed at once).
        self.queues: weakref.WeakSet[Any] = weakref.WeakSet()
        for host, data in self.store.items(NAMESPACE):
            self.pacer.hosts[host] = HostPace.from_json(data)

    def save(self, host: str) -> None:
        self.store.set(NAMESPACE, host, self.pacer.pace(host).to_json(), ttl=self.pacer.keep_for(host))

    def stamp(self, host: str) -> HostPace:
        pace = self.pacer.stamp(host)
        self.save(host)
        return pace

    def settle(self, host: str) -> HostPace:
        pace = self.pacer.settle(host)
        self.save(host)
        return pace

    def pause(self, host: str, until: float) -> None:
        self.pacer.pause(host, until)
        self.save(host)

    def sooner_elsewhere(self, host: str) -> float | None:
        """The ready time of the queued host, other than ``host``, that is ready first."""
        waiting = {h for queue in self.queues for h in queue.pqueues if h != host}
        found = self.pacer.soonest(waiting)
        return None if found is None else found[0]


_INSTANCES: weakref.WeakKeyDictionary[Crawler, Politeness] = weakref.WeakKeyDictionary()


def politeness_for(crawler: Crawler) -> Politeness:
    found = _INSTANCES.get(crawler)
    if found is None:
        found = _INSTANCES[crawler] = Politeness(crawler)
    return found
