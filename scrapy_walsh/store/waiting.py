"""Waiting for an unavailable state store without holding the reactor.

A store call raises :class:`~scrapy_walsh.store.base.StoreUnavailable` after its bounded
retries (:mod:`scrapy_walsh.store.redis`). A component that must have the answer, and
runs in a coroutine, asks again with :func:`when_available`: the reactor keeps running
between attempts, so Scrapy's Ctrl-C handling stops the crawl, and once the crawl is
stopping the error goes back to the caller instead of another wait.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from .base import StoreUnavailable

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

T = TypeVar("T")

#: Seconds between two attempts while the store is unavailable.
PAUSE = 1.0


async def sleep(seconds: float) -> None:
    """A wait on the running reactor (the thread stays free)."""
    from scrapy.utils.defer import maybe_deferred_to_future
    from twisted.internet import reactor  # the installed one; importing earlier would install the default
    from twisted.internet.task import deferLater

    await maybe_deferred_to_future(deferLater(reactor, seconds))


async def when_available(crawler: Crawler, call: Callable[[], T], pause: float = PAUSE) -> T:
    """``call()``, asked again every ``pause`` s while it raises ``StoreUnavailable`` and
    the crawl runs; the error itself once the crawl is stopping."""
    while True:
        try:
            return call()
        except StoreUnavailable:
            if not crawler.crawling:
                raise
            await sleep(pause)
