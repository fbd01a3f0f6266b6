"""Waiting for an unavailable state store without holding the reactor, or a stop signal.

:func:`when_available` asks again while the reactor runs, until the crawl is stopping.
:func:`watch_stop_signals` gives a waiting store call up at once on SIGINT or SIGTERM
(:class:`Interrupted`), and once :func:`stopping`, a store that failed is not asked again.
docs/fleet.md says why.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy_walsh.process import PROCESS
from scrapy_walsh.store.base import StoreUnavailable

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from twisted.internet.base import DelayedCall

T = TypeVar("T")

#: Seconds between two attempts while the store is unavailable.
PAUSE = 1.0


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
