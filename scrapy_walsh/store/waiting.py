"""Waiting without holding the reactor, and never past the crawl's stop.

:func:`rest` is a request's wait (a host's slot, a pause, the store) that ends at once when the
engine starts closing the spider (:func:`watch_close`), so one Ctrl-C stops a crawl whatever its
hosts wait for. :func:`when_available` asks an unavailable store again until the crawl stops.
:func:`watch_stop_signals` gives a waiting store call up at once on SIGINT or SIGTERM
(:class:`Interrupted`). docs/fleet.md says why.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy_walsh.exceptions import CrawlStopping
from scrapy_walsh.process import PROCESS
from scrapy_walsh.store.base import StoreUnavailable

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from twisted.internet.base import DelayedCall
    from twisted.internet.defer import Deferred

T = TypeVar("T")

#: Seconds between two attempts while the store is unavailable.
PAUSE = 1.0
#: Stats: requests not sent because the crawl was stopping (their wait ended, or they met the checkpoint).
UNSENT = "walsh/stopping/unsent"


async def sleep(seconds: float) -> None:
    """A wait on the running reactor (the thread stays free)."""
    from scrapy.utils.defer import maybe_deferred_to_future
    from twisted.internet import reactor  # the installed one; importing earlier would install the default
    from twisted.internet.task import deferLater

    await maybe_deferred_to_future(deferLater(reactor, seconds))


def call_later(seconds: float, call: Callable[[], object]) -> DelayedCall:
    """``call()`` in ``seconds`` on the reactor (a deadline: cancel the answer to drop it)."""
    from twisted.internet import reactor as installed  # the installed one; importing earlier would install the default

    reactor: Any = installed
    return reactor.callLater(seconds, call)


async def rest(crawler: Crawler, seconds: float) -> bool:
    """Wait ``seconds`` on the reactor for ``crawler``: True once they passed; False as soon as the
    crawl is closing (:func:`closing`), at once when it already was. A request waiting for its
    host's slot or pause holds the engine's close until its wait ends: this one ends with it."""
    from scrapy.utils.defer import maybe_deferred_to_future
    from twisted.internet.defer import Deferred

    if closing(crawler):
        return False
    done: Deferred[bool] = Deferred()
    timer = call_later(seconds, lambda: _end(done, True))
    PROCESS.rests[done] = (timer, crawler)
    try:
        return await maybe_deferred_to_future(done)
    finally:
        PROCESS.rests.pop(done, None)


def closing(crawler: Crawler) -> bool:
    """The engine has begun closing ``crawler``'s spider (a stop signal, a fault, Scrapy's own
    close), or the crawler is stopping: nothing more is sent. ``scrapy shell`` runs an engine
    without a crawl (``crawling`` stays False): its engine running is what counts there."""
    if crawler in PROCESS.closing:
        return True
    return not crawler.crawling and not getattr(crawler.engine, "running", False)


def unsent(crawler: Crawler, url: str) -> CrawlStopping:
    """What a request not sent because the crawl is closing raises (counted as :data:`UNSENT`)."""
    if crawler.stats is not None:
        crawler.stats.inc_value(UNSENT)
    return CrawlStopping(f"not sent: the crawl is stopping ({url})")


def end_rests(crawler: Crawler) -> None:
    """The crawl is closing: every :func:`rest` of ``crawler`` ends now (False), and every later one at once."""
    PROCESS.closing.add(crawler)
    for done, (timer, owner) in list(PROCESS.rests.items()):
        if owner is crawler:
            del PROCESS.rests[done]
            if timer.active():
                timer.cancel()
            _end(done, False)


def _end(done: Deferred[bool], passed: bool) -> None:
    if not done.called:
        done.callback(passed)


def watch_close(crawler: Crawler) -> None:
    """End the crawl's rests the moment its engine begins closing the spider, whatever asked
    (Ctrl-C, SIGTERM, a fault, a ``CLOSESPIDER_*`` limit): every way goes through the engine's
    ``close_spider_async``, which then waits for the requests in the downloader."""
    engine = crawler.engine
    close = engine.close_spider_async

    async def close_spider_async(*, reason: str = "cancelled") -> None:
        end_rests(crawler)
        await close(reason=reason)

    engine.close_spider_async = close_spider_async  # type: ignore[method-assign]


async def when_available(crawler: Crawler, call: Callable[[], T], pause: float = PAUSE) -> T:
    """``call()``, asked again every ``pause`` s while it raises ``StoreUnavailable`` and
    the crawl runs; the error itself once the crawl is stopping."""
    while True:
        try:
            return call()
        except StoreUnavailable:
            if not await rest(crawler, pause):
                raise


def stopping() -> bool:
    """True once this process was asked to stop (SIGINT, SIGTERM; :func:`watch_stop_signals`): from
    then on a store call never waits for a store that failed to answer, and never retries."""
    return PROCESS.stopping.is_set()


class Interrupted(BaseException):
    """A stop signal arrived while a store call waited on the main thread: the call is given up
    (a ``BaseException``, like ``KeyboardInterrupt``, so redis-py drops the connection it read)."""


@contextmanager
def interruptible() -> Iterator[None]:
    """A store call that may wait (on a socket, or between retries): a stop signal received
    meanwhile raises :class:`Interrupted` in it, so the crawl stops whatever the store does (the
    process counts the calls under way on the main thread, where signal handlers run)."""
    main = threading.current_thread() is threading.main_thread()
    if main:
        PROCESS.store_calls += 1
    try:
        yield
    finally:
        if main:
            PROCESS.store_calls -= 1


def _on_stop(previous: Callable[[int, Any], Any]) -> Callable[[int, Any], Any]:
    def handle(signum: int, frame: Any) -> None:
        PROCESS.stopping.set()
        previous(signum, frame)  # Scrapy's: "shutting down gracefully", and the reactor is told
        if PROCESS.store_calls:
            raise Interrupted(f"signal {signum} while the state store was awaited")

    handle.walsh_stop = True  # type: ignore[attr-defined]
    return handle


def watch_stop_signals() -> None:
    """Put :func:`_on_stop` in front of the SIGINT and SIGTERM handlers Scrapy installed (called
    once the crawl runs; a no-op off the main thread, or for a signal nobody handles in Python)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for number in (signal.SIGINT, signal.SIGTERM):
        current = signal.getsignal(number)
        if callable(current) and not getattr(current, "walsh_stop", False):
            signal.signal(number, _on_stop(current))
