"""One clean refusal: a crawl refused at start is said once, as its reasons, never as a traceback.

Where a refusal leaves the package for Scrapy (the add-on, ``ConformanceGuard``, a component
built for the crawl), :func:`report` logs it once on the package's own logger; Scrapy then fails
the crawl (``bootstrap_failed``: ``scrapy crawl`` exits 1). Nothing of the process is changed: no
hook, no filter, no exit handler. docs/existing-projects.md says what a script writes to exit 1.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

logger = logging.getLogger("scrapy_walsh")


def is_refusal(exc: object) -> bool:
    """A refusal is an exception whose class says ``clean_refusal = True``: the
    ``ConformanceError`` of a setting, a state store that can't be opened. Known by that
    attribute, so this module imports nothing of the package and any layer may refuse."""
    return isinstance(exc, BaseException) and bool(getattr(exc, "clean_refusal", False))


def report(exc: BaseException) -> BaseException:
    """Say the refusal ``exc`` once, at CRITICAL (a refusal already said is not said again), and
    return it, to be raised. A crawl run in an asyncio task (``scrapy crawl``, ``AsyncCrawlerProcess``,
    ``AsyncCrawlerRunner``) has the task's exception read when it ends: it was said here, so the
    event loop does not report it again with its traceback (a script awaiting the task still gets it)."""
    if getattr(exc, "said", False):
        return exc
    exc.said = True  # type: ignore[attr-defined]
    logger.critical("%s", exc)
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no running loop: a Deferred-based crawl (see refusal_reported)
        return exc
    if task is not None:
        task.add_done_callback(_read)
    return exc


def _read(task: asyncio.Task[Any]) -> None:
    if task.cancelled():
        return
    exc = task.exception()  # read: the event loop will not report it as never retrieved
    if exc is not None and not is_refusal(exc):  # not the refusal said: reported as asyncio would
        task.get_loop().call_exception_handler({"message": "Task exception was never retrieved", "exception": exc})


def refusal_reported(failure: Any) -> Any:
    """The errback of a Deferred-based script's crawl: ``process.crawl(Spider).addErrback(refusal_reported)``.

    A refusal was said once when it was made: its failure ends here, so Twisted does not report
    it again as an "Unhandled error in Deferred" with a traceback. Any other failure passes on."""
    return None if is_refusal(getattr(failure, "value", None)) else failure
