"""A crawl's faults, each said once, with a non-zero exit.

:func:`stop` reports a fault that stops the crawl (its state store failed, an output could not
write an item); :func:`unrecorded` collects records the store did not take before the crawl
ended, said in one ERROR after it closed. This module imports only the exit status and the
crawl's context, so any layer above them may report a fault.
docs/architecture.md ("The modules, one by one") says more.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.outputs import exit_status

if TYPE_CHECKING:
    from scrapy.core.engine import ExecutionEngine
    from scrapy.crawler import Crawler

logger = logging.getLogger("scrapy_walsh")


def running_engine(crawler: Crawler) -> ExecutionEngine | None:
    """The crawl's engine, or None while the crawl is being built (Scrapy 2.19's
    ``crawler.engine`` raises ``RuntimeError`` until it is set)."""
    try:
        return crawler.engine
    except RuntimeError:
        return None


def stop(crawler: Crawler, what: str, reason: str) -> bool:
    """Stop the running crawl for ``what`` (said once, at ERROR; the close ``reason`` in the stats);
    False when an earlier fault already stopped it (nothing is said)."""
    context = CrawlContext.of(crawler)
    if context.stopped is not None:
        return False
    from scrapy.utils.defer import deferred_from_coro

    message = context.stopped = f"scrapy_walsh stops this crawl: {what}"
    logger.error("%s", message)
    exit_status.failed(crawler, message)
    engine = running_engine(crawler)
    if engine is not None:
        deferred_from_coro(engine.close_spider_async(reason=reason))
    return True


def unrecorded(crawler: Crawler, what: str, why: str) -> None:
    """``what`` the store did not take before the crawl ended (e.g. "2 answered targets were not
    recorded as fetched (R8: ...)"), because ``why``: said in the one message after the crawl closed."""
    found = CrawlContext.of(crawler).unrecorded
    if not found:
        from scrapy import signals

        crawler.signals.connect(lambda: _report(crawler), signal=signals.engine_stopped, weak=False)
    found.append((what, why))


def _report(crawler: Crawler) -> None:
    context = CrawlContext.of(crawler)
    found, context.unrecorded = context.unrecorded, []
    if not found:
        return
    message = (
        f"scrapy_walsh: the state store could not be written before the crawl ended ({found[-1][1]}): "
        f"{'; '.join(what for what, _ in found)}. The next run fetches a target not recorded as fetched again, "
        "and may deliver an item not recorded as emitted once more"
    )
    logger.error("%s", message)
    exit_status.failed(crawler, message)
