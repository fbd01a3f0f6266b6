"""R4: a scheduler priority queue that always hands out the host that is ready first.

Requests wait in one Scrapy sub-queue per host; ``pop()`` picks, among hosts ready now, the one
with the most waiting work, else the one ready soonest, passing over a host with a request in
the downloader already. Two lazily invalidated heaps keep every operation O(log H) in the
number H of queued hosts. docs/architecture.md ("The modules, one by one") defends the
structure; docs/requirements/r4-pacing.md says what it gives a crawl.
"""

from __future__ import annotations

import hashlib
import heapq
import os
import zlib
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy.pqueues import DownloaderAwarePriorityQueue, ScrapyPriorityQueue

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.sending.pacer import SharedPacer
from scrapy_walsh.sending.request_meta import request_host

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from scrapy import Request
    from scrapy.crawler import Crawler

#: Ready hosts refreshed from the store in one read when a pop considers them.
CANDIDATES = 4
#: Reads per pop at most; after them the best locally-ready host is handed out (advice).
READS = 2


def host_directory(host: str) -> str:
    """A host's ``JOBDIR`` sub-directory name: path-unsafe characters replaced by ``_``,
    plus the MD5 of the host against collisions. The names Scrapy's own queue gives its
    slot directories, so a ``JOBDIR`` written before keeps resuming."""
    safe = "".join(c if c.isalnum() or c in "-._" else "_" for c in host)
    return f"{safe}-{hashlib.md5(host.encode('utf8')).hexdigest()}"  # noqa: S324 - a name, not security


#: Each byte of a name's UTF-8 mirrored (``b`` -> ``254 - b``); 0xFF, which UTF-8 never holds,
#: ends the key, above every mirrored byte
_MIRROR = bytes(254 - b if b < 255 else 0 for b in range(256))


def descending(host: str) -> bytes:
    """A key that sorts host names in reverse (``descending(a) < descending(b)`` when ``a > b``;
    UTF-8 bytes sort as the code points do), so the min-heap breaks ties by the larger name (the
    order a plain ``max()`` over the hosts gives) with the heap's comparisons done by ``bytes``
    itself, not by a Python method at every step. The end byte puts a name after the longer names
    it begins."""
    return host.encode("utf-8", "surrogatepass").translate(_MIRROR) + b"\xff"


class HostQueue(ScrapyPriorityQueue):
    """One host's requests by priority: Scrapy's queue, with its length counted and its priorities
    in a heap. Scrapy's own sums every priority's queue for ``len()`` and scans them all for the
    next priority when one empties, so a host whose requests each carry their own priority (a
    spider that ranks its targets) cost O(requests queued) per push and per pop."""

    def __init__(self, *args: Any, **kwargs: Any):
        self._size = 0
        #: priorities that have (or had) a queue, lowest first; an emptied one is dropped when on top
        self._prios: list[int] = []
        super().__init__(*args, **kwargs)

    def init_prios(self, startprios: Iterable[int]) -> None:
        super().init_prios(startprios)  # a JOBDIR resume: the queues as they were left
        self._prios = sorted({*self.queues, *self._start_queues})
        self._size = super().__len__()

    def push(self, request: Request) -> None:
        priority = self.priority(request)
        if priority not in self.queues and priority not in self._start_queues:
            heapq.heappush(self._prios, priority)  # before the push, which may fail half way
        super().push(request)
        self._size += 1

    def pop(self) -> Request | None:
        request = super().pop()
        if request is not None:
            self._size -= 1
        return request

    def _update_curprio(self) -> None:
        while self._prios and not (self.queues.get(self._prios[0]) or self._start_queues.get(self._prios[0])):
            heapq.heappop(self._prios)
        self.curprio = self._prios[0] if self._prios else None

    def __len__(self) -> int:
        return self._size


class PolitenessAwarePriorityQueue(DownloaderAwarePriorityQueue):
    def __init__(
        self,
        crawler: Crawler,
        downstream_queue_cls: Any,
        key: str,
        slot_startprios: dict[str, Any] | None = None,
        **kwargs: Any,
    ):
        self.politeness = CrawlContext.of(crawler).get(SharedPacer)
        CrawlContext.of(crawler).queues.add(self)
        #: Scrapy's queue for start requests, passed on to each host's queue (see pqfactory).
        self.start_queue_cls = kwargs.get("start_queue_cls")
        #: this process's tie-break order among equally loaded hosts (fleet mode only)
        self._salt = os.urandom(8) if self.politeness.store.fleet else b""
        #: the calendar: (ready time, host) of hosts waiting for their slot
        self._calendar: list[tuple[float, str]] = []
        #: host -> the ready time of its live calendar entry
        self._due: dict[str, float] = {}
        #: the ready heap: (-work, tie, host) of hosts ready now
        self._ready: list[tuple[float, Any, str]] = []
        #: host -> the key of its live ready-heap entry
        self._work: dict[str, float] = {}
        self._count = 0
        #: host -> the request last handed out for it, while the host has more queued (``_taken``)
        self._out: dict[str, Request] = {}
        #: the downloader's requests (``Downloader.active``: from its middlewares to their answer's)
        self._active: set[Request] | None = None
        self._crawler = crawler
        #: operation counts (for the cost tests): heap pushes and pops, hosts examined
        self.ops = {"heap": 0, "examined": 0, "reads": 0, "keys_read": 0, "pops": 0}
        super().__init__(crawler, downstream_queue_cls, key, slot_startprios, **kwargs)
        for host, queue in self.pqueues.items():  # JOBDIR resume
            self._count += len(queue)
            self._file(host)
        # pacing asks which hosts wait here (with JOBDIR, in the memory and the disk queue)
        self.politeness.queues.add(self)

    # -- the index -----------------------------------------------------------------------

    def _tie(self, host: str) -> int | bytes:
        """The host's place among equally loaded hosts, smallest first."""
        return -zlib.crc32(self._salt + host.encode()) if self._salt else descending(host)

    def _key(self, host: str) -> tuple[float, Any, str]:
        return (-len(self.pqueues[host]) * self.politeness.interval(host), self._tie(host), host)

    def _file(self, host: str, now: float | None = None) -> None:
        """Put ``host`` in the calendar or, when ready now, in the ready heap."""
        ready_at = self.politeness.ready_at(host)
        if now is None:
            now = self.politeness.now()
        self._work.pop(host, None)
        self._due.pop(host, None)
        if ready_at <= now:
            entry = self._key(host)
            self._work[host] = entry[0]
            self._push(self._ready, entry)
        else:
            self._due[host] = ready_at
            self._push(self._calendar, (ready_at, host))

    def _push(self, heap: list, entry: tuple) -> None:
        self.ops["heap"] += 1
        heapq.heappush(heap, entry)
        if len(heap) > 2 * len(self.pqueues) + 64:
            self._compact()

    def _pop(self, heap: list) -> Any:
        self.ops["heap"] += 1
        return heapq.heappop(heap)

    def _compact(self) -> None:
        """Drop superseded entries: the heaps stay O(live hosts)."""
        self._calendar = [(t, h) for t, h in self._calendar if self._due.get(h) == t]
        heapq.heapify(self._calendar)
        self._ready = [e for e in self._ready if self._work.get(e[2]) == e[0]]
        heapq.heapify(self._ready)

    def _release(self, now: float) -> None:
        """Move the calendar's due hosts to the ready heap (checked against the pacer)."""
        while self._calendar and self._calendar[0][0] <= now:
            ready_at, host = self._pop(self._calendar)
            if self._due.get(host) != ready_at:
                continue  # superseded
            self.ops["examined"] += 1
            self._file(host, now)

    def _top_ready(self, now: float) -> str | None:
        """The live ready-heap top that is still ready by the local pacer (stale ones re-filed)."""
        while self._ready:
            work, _, host = self._ready[0]
            if self._work.get(host) != work:
                self._pop(self._ready)  # superseded
                continue
            self.ops["examined"] += 1
            if self.politeness.ready_at(host) > now:
                self._pop(self._ready)
                self._file(host, now)  # taken since it was filed: back to the calendar
                continue
            return host
        return None

    def _soonest(self) -> tuple[float, str] | None:
        while self._calendar:
            ready_at, host = self._calendar[0]
            if self._due.get(host) != ready_at:
                self._pop(self._calendar)
                continue
            current = self.politeness.ready_at(host)
            if current != ready_at:  # moved (a pause, a settle): re-file
                self._pop(self._calendar)
                self._file(host)
                continue
            return ready_at, host
        return None

    def _next_host(self) -> str | None:
        if not self.pqueues:
            return None
        self.ops["pops"] += 1
        if self._out:
            self._forget_left()
        now = self.politeness.now()
        self._release(now)
        for _ in range(READS):
            batch: list[tuple[float, Any, str]] = []
            while len(batch) < CANDIDATES and (host := self._top_ready(now)) is not None:
                batch.append(self._pop(self._ready))
                del self._work[host]
            if not batch:
                break
            self.ops["reads"] += 1
            self.ops["keys_read"] += len(batch)
            self.politeness.refresh(entry[2] for entry in batch)
            now = self.politeness.now()
            chosen = None
            for entry in batch:
                host = entry[2]
                if chosen is None and self.politeness.ready_at(host) <= now and not self._taken(host):
                    chosen = host
                self._file(host, now)  # ready ones go back with a fresh key, taken ones to the calendar
            if chosen is not None:
                return chosen
        host = self._top_ready(now)
        if host is not None and not self._taken(host):
            return host
        found = self._soonest()
        if found is None or self._taken(found[1]):
            return None  # the engine asks again when a download ends
        return found[1]

    def _taken(self, host: str) -> bool:
        """A request handed out for ``host`` is still in the downloader (its gates, its wait for
        the checkpoint's lock, the network, its answer's middlewares). Never in a dry run (``plan``,
        ``explain``): its targets wait for no interval and are not sent, so a host's next one goes
        at once instead of the engine asking again once per target."""
        return host in self._out and not CrawlContext.of(self._crawler).dry_run

    def _forget_left(self) -> None:
        """Drop the hand-outs that left the downloader, so ``_out`` holds at most the downloader's
        few requests whatever the number of hosts. Kept also for a host whose queue emptied: a
        request queued for it later must not overtake the one still in the downloader."""
        if self._active is None:
            # the engine's downloader is made after the scheduler; without one (the queue used on
            # its own) nothing is in it
            self._active = getattr(getattr(self._crawler.engine, "downloader", None), "active", None)
            if self._active is None:
                self._out.clear()
                return
        active = self._active
        for host in [host for host, request in self._out.items() if request not in active]:
            del self._out[host]

    def upcoming(self, count: int, other_than: str) -> list[str]:
        """The hosts the next pop is likely to read, ``other_than`` left out: the first ``2 *
        count`` live entries of the ready heap (the pop re-files those taken since they were filed
        and reads further down, and one not ready now may be by then), then the ``count`` the
        calendar makes due first, each found from its heap's root without changing it
        (O(count log count)). The pacer reads them ahead, in the round trip of a reservation."""

        def other(host: str) -> bool:
            return host != other_than

        return self._best(self._ready, self._work, 2 * count, other) + self._best(
            self._calendar, self._due, count, other
        )

    @staticmethod
    def _best(heap: list, live: dict[str, float], count: int, wanted: Callable[[str], bool]) -> list[str]:
        """The first ``count`` live and ``wanted`` hosts of ``heap`` in heap order (superseded
        entries skipped, at most ``4 * count`` entries looked at)."""
        found: list[str] = []
        frontier = [(heap[0], 0)] if heap else []
        looked = 0
        while frontier and len(found) < count and looked < 4 * count:
            entry, i = heapq.heappop(frontier)
            looked += 1
            if live.get(entry[-1]) == entry[0] and wanted(entry[-1]):
                found.append(entry[-1])
            for child in (2 * i + 1, 2 * i + 2):
                if child < len(heap):
                    heapq.heappush(frontier, (heap[child], child))
        return found

    def soonest_other(self, host: str) -> float | None:
        """The ready time of the host ready first here, other than ``host``: O(log H)."""
        now = self.politeness.now()
        self._release(now)
        top = self._top_ready(now)
        if top is not None and top != host:
            return self.politeness.ready_at(top)
        if top == host and len(self._ready) > 1:
            # the heap's second best is one of the root's children
            for entry in self._ready[1:3]:
                if self._work.get(entry[2]) == entry[0] and entry[2] != host:
                    return self.politeness.ready_at(entry[2])
        found = self._soonest()
        if found is not None and found[1] == host:
            others = [e for e in self._calendar[1:3] if self._due.get(e[1]) == e[0] and e[1] != host]
            return min(others)[0] if others else None
        return None if found is None else found[0]

    # -- Scrapy's queue interface ----------------------------------------------------------

    def pqfactory(self, slot: str, startprios: Iterable[int] = ()) -> ScrapyPriorityQueue:
        """One host's queue, in its own ``JOBDIR`` sub-directory (:func:`host_directory`)."""
        return HostQueue(
            self.crawler,
            self.downstream_queue_cls,
            f"{self.key}/{host_directory(slot)}",
            startprios,
            start_queue_cls=self.start_queue_cls,
        )

    def push(self, request: Request) -> None:
        host = request_host(request)
        queue = self.pqueues.get(host)
        if queue is None:
            queue = self.pqueues[host] = self.pqfactory(host)
        queue.push(request)
        self._count += 1
        if host in self._work or host not in self._due:
            self._file(host)  # its work grew (or it is new): a fresh key
        # a host in the calendar gets its key when it becomes ready

    def pop(self) -> Request | None:
        host = self._next_host()
        if host is None:
            return None
        queue = self.pqueues[host]
        request = queue.pop()
        self._count -= 1
        if request is not None:
            self._out[host] = request
        if len(queue) == 0:
            del self.pqueues[host]
            self._work.pop(host, None)
            self._due.pop(host, None)
            queue.close()
            if self.key:  # reclaim the JOBDIR sub-directory, as Scrapy's queue does
                with suppress(OSError):
                    Path(self.key, host_directory(host)).rmdir()
        return request

    def peek(self) -> Request | None:
        host = self._next_host()
        return None if host is None else self.pqueues[host].peek()

    def close(self) -> dict[str, list[int]]:
        self._calendar.clear()
        self._out.clear()
        self._ready.clear()
        self._due.clear()
        self._work.clear()
        self._count = 0
        return super().close()

    def __len__(self) -> int:
        """O(1): Scrapy asks on every engine loop (its own queue sums over every host)."""
        return self._count

    def hosts(self) -> int:
        """How many hosts have requests waiting here."""
        return len(self.pqueues)
