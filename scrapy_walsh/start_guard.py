"""Clean edges: a spider whose declared targets cannot be read stops with one message.

A spider often reads its targets in ``start()`` / ``start_requests()`` from a file, a database
or an environment variable. When that raises (the file is missing), Scrapy logs a traceback
and ends the crawl with exit status 0, having fetched nothing: a scheduler sees success.
:func:`guarded` wraps the spider's start (the discovery middleware, closest to the spider,
calls it for every spider): the exception becomes one ERROR line naming it and what to do,
the crawl stops, and the process exits non-zero (:mod:`scrapy_walsh.faults`).

It also gives the reactor a turn at least every :data:`SLICE` seconds while the start is read.
Scrapy reads ``start()`` in one loop while the downloader is full, and a start that never
awaits anything (a loop over a list of targets) kept the reactor from every timer and answer until
its last request was scheduled: most of a minute for 100,000 targets, long enough for the
operator list's fetch, answered at once, to be read after its download timeout.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from . import faults
from .store.waiting import sleep

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from scrapy.crawler import Crawler

#: The crawl's close reason in the stats.
REASON = "declared_targets_unreadable"
#: Seconds of reading the start (and scheduling what it gave) before the reactor gets a turn.
SLICE = 0.02


async def guarded(crawler: Crawler, start: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """``start``'s entries; an exception it raises stops the crawl with one message."""
    turn = time.monotonic()
    try:
        async for entry in start:
            yield entry
            if time.monotonic() - turn >= SLICE:
                await sleep(0)  # timers and answers due meanwhile are handled now
                turn = time.monotonic()
    except Exception as exc:  # noqa: BLE001 - any failure to read the targets is this one message
        spider = type(crawler.spider).__name__
        faults.stop(
            crawler,
            f"{spider}'s declared targets could not be read: its start() raised {type(exc).__name__}: {exc}. "
            "Fix what start() reads (the file, the variable, the query), then run the crawl again",
            REASON,
        )
