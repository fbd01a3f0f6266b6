"""Clean edges: a spider whose declared targets cannot be read stops with one message.

:func:`guarded` wraps the spider's start: an exception there becomes one ERROR line naming it,
the crawl stops and the process exits non-zero (:mod:`scrapy_walsh.outputs.faults`), where Scrapy would
log a traceback and exit 0. It gives the reactor a turn at least every :data:`SLICE` seconds while
the start is read, and reads on only while fewer than :data:`HOSTS_AHEAD` hosts wait in the
scheduler. docs/architecture.md ("The modules, one by one") says why.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from scrapy import signals

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.outputs import faults
from scrapy_walsh.store.waiting import sleep

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from scrapy.crawler import Crawler

#: The crawl's close reason in the stats.
REASON = "declared_targets_unreadable"
#: Seconds of reading the start (and scheduling what it gave) before the reactor gets a turn.
SLICE = 0.02
#: The start is read on while fewer hosts than this wait in the scheduler: far more than a serial
#: process can keep busy (a host takes a request a second at most), and a million start requests
#: are never a million requests in memory at once.
HOSTS_AHEAD = 10_000


async def guarded(crawler: Crawler, start: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """``start``'s entries; an exception it raises stops the crawl with one message."""
    turn = time.monotonic()
    try:
        async for entry in start:
            yield entry
            if time.monotonic() - turn >= SLICE:
                await sleep(0)  # timers and answers due meanwhile are handled now
                turn = time.monotonic()
            while not room(crawler):
                await crawler.signals.wait_for(signals.request_reached_downloader)
                turn = time.monotonic()
    except Exception as exc:  # noqa: BLE001 - any failure to read the targets is this one message
        spider = type(crawler.spider).__name__
        faults.stop(
            crawler,
            f"{spider}'s declared targets could not be read: its start() raised {type(exc).__name__}: {exc}. "
            "Fix what start() reads (the file, the variable, the query), then run the crawl again",
            REASON,
        )


def room(crawler: Crawler) -> bool:
    """Fewer than :data:`HOSTS_AHEAD` hosts wait in the crawl's scheduler (always, with none of
    the add-on's queues: then the start is read as Scrapy reads it)."""
    return sum(queue.hosts() for queue in CrawlContext.of(crawler).queues) < HOSTS_AHEAD
