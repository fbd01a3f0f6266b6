"""Clean edges: a spider whose declared targets cannot be read stops with one message.

A spider often reads its targets in ``start()`` / ``start_requests()`` from a file, a database
or an environment variable. When that raises (the file is missing), Scrapy logs a traceback
and ends the crawl with exit status 0, having fetched nothing: a scheduler sees success.
:func:`guarded` wraps the spider's start (the discovery middleware, closest to the spider,
calls it for every spider): the exception becomes one ERROR line naming it and what to do,
the crawl stops, and the process exits non-zero (:mod:`scrapy_walsh.faults`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import faults

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from scrapy.crawler import Crawler

#: The crawl's close reason in the stats.
REASON = "declared_targets_unreadable"


async def guarded(crawler: Crawler, start: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """``start``'s entries; an exception it raises stops the crawl with one message."""
    try:
        async for entry in start:
            yield entry
    except Exception as exc:  # noqa: BLE001 - any failure to read the targets is this one message
        spider = type(crawler.spider).__name__
        faults.stop(
            crawler,
            f"{spider}'s declared targets could not be read: its start() raised {type(exc).__name__}: {exc}. "
            "Fix what start() reads (the file, the variable, the query), then run the crawl again",
            REASON,
        )
