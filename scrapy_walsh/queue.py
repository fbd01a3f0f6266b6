"""R4: a scheduler priority queue that always hands out the host that is ready first.

Requests wait in one sub-queue per host (the URL's hostname), each a Scrapy
``ScrapyPriorityQueue``, so request priority still orders requests within a host and
``JOBDIR`` disk queues work as with Scrapy's ``DownloaderAwarePriorityQueue``, which
this class extends. ``pop()`` picks, among hosts ready now, the one with the most
waiting work (queued requests × interval: the host that bounds the crawl's length);
when none is ready, the one ready soonest. It never returns nothing while it holds
requests.

The ready times are the shared ledger's: each choice first refreshes the queued hosts'
entries from the state store in one read (``get_many``: one sqlite query, one Redis
``MGET``), so in a fleet a process picks hosts that no other process has just taken.
The choice is advice; the pacing middleware's reservation is what decides. Among equally
loaded ready hosts the tie is broken by host name, except in a fleet (a Redis store):
there each process breaks ties in its own random order, so processes holding the same
targets spread over the hosts instead of all racing for the same one.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy.pqueues import DownloaderAwarePriorityQueue, ScrapyPriorityQueue

from .policy.hostkey import url_host
from .politeness import politeness_for

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy import Request
    from scrapy.crawler import Crawler


def host_directory(host: str) -> str:
    """A host's ``JOBDIR`` sub-directory name: path-unsafe characters replaced by ``_``,
    plus the MD5 of the host against collisions. The names Scrapy's own queue gives its
    slot directories, so a ``JOBDIR`` written before keeps resuming."""
    safe = "".join(c if c.isalnum() or c in "-._" else "_" for c in host)
    return f"{safe}-{hashlib.md5(host.encode('utf8')).hexdigest()}"  # noqa: S324 - a name, not security


class PolitenessAwarePriorityQueue(DownloaderAwarePriorityQueue):
    def __init__(
        self,
        crawler: Crawler,
        downstream_queue_cls: Any,
        key: str,
        slot_startprios: dict[str, Any] | None = None,
        **kwargs: Any,
    ):
        self.politeness = politeness_for(crawler)
        #: Scrapy's queue for start requests, passed on to each host's queue (see pqfactory).
        self.start_queue_cls = kwargs.get("start_queue_cls")
        super().__init__(crawler, downstream_queue_cls, key, slot_startprios, **kwargs)
        # pacing asks which hosts wait here (with JOBDIR, in the memory and the disk queue)
        self.politeness.queues.add(self)
        #: this process's tie-break order among equally loaded hosts (fleet mode only)
        self._salt = os.urandom(8) if self.politeness.store.fleet else b""

    def _next_host(self) -> str | None:
        if not self.pqueues:
            return None
        self.politeness.refresh(self.pqueues)
        pacer = self.politeness.pacer
        now = pacer.clock()
        ready = [h for h in self.pqueues if pacer.ready_at(h) <= now]
        if ready:
            return max(ready, key=lambda h: (len(self.pqueues[h]) * pacer.interval(h), self._tie(h)))
        found = pacer.soonest(self.pqueues)
        assert found is not None
        return found[1]

    def pqfactory(self, slot: str, startprios: Iterable[int] = ()) -> ScrapyPriorityQueue:
        """One host's queue, in its own ``JOBDIR`` sub-directory (:func:`host_directory`)."""
        return ScrapyPriorityQueue(
            self.crawler,
            self.downstream_queue_cls,
            f"{self.key}/{host_directory(slot)}",
            startprios,
            start_queue_cls=self.start_queue_cls,
        )

    def _tie(self, host: str) -> int | str:
        return zlib.crc32(self._salt + host.encode()) if self._salt else host

    def push(self, request: Request) -> None:
        host = url_host(request.url)
        if host not in self.pqueues:
            self.pqueues[host] = self.pqfactory(host)
        self.pqueues[host].push(request)

    def pop(self) -> Request | None:
        host = self._next_host()
        if host is None:
            return None
        queue = self.pqueues[host]
        request = queue.pop()
        if len(queue) == 0:
            del self.pqueues[host]
            queue.close()
            if self.key:  # reclaim the JOBDIR sub-directory, as Scrapy's queue does
                with suppress(OSError):
                    Path(self.key, host_directory(host)).rmdir()
        return request

    def peek(self) -> Request | None:
        host = self._next_host()
        return None if host is None else self.pqueues[host].peek()
