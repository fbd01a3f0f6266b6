"""One clean refusal: a ``ConformanceError`` is reported as its reasons, never as a traceback.

A refusal raised inside Scrapy's crawl task is logged by the event loop or Twisted with its
traceback, which buries the one message that matters. The filters here, on the loggers those
reports go through, turn such a record into the error's own text; Twisted logging is begun
once (:func:`install`), and a refusal (:func:`refusing`) hooks :data:`sys.excepthook` until
:func:`scrapy_walsh.outputs.exit_status.handled`. Any other exception keeps its traceback.
docs/architecture.md ("The modules, one by one") says why each piece is needed.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from types import TracebackType
from typing import Any

from scrapy_walsh.outputs import exit_status

#: Where an exception that escapes a crawl is reported: asyncio's default exception handler,
#: Twisted's "Unhandled error in Deferred" (Scrapy forwards Twisted's log to "twisted"), and
#: Scrapy's own crawler and command loggers.
LOGGERS = ("asyncio", "twisted", "scrapy.crawler", "scrapy.core.engine", "scrapy.utils.defer")

#: Twisted's header for an unhandled failure (``twisted.internet.defer``), logged before the failure.
UNHANDLED_IN_DEFERRED = "Unhandled error in Deferred:"

#: Refusals made and not yet reported: while one is pending, Twisted's header line is dropped.
_pending = 0
_twisted_begun = False


def _event(record: logging.LogRecord) -> dict | None:
    """The Twisted log event a record forwarded by Twisted's logging observer carries."""
    event = getattr(record.msg, "event", None)
    return event if isinstance(event, dict) else None


def is_refusal(exc: object) -> bool:
    """A refusal is an exception whose class says ``clean_refusal = True``: the
    ``ConformanceError`` of a setting, a state store that can't be opened. Known by that
    attribute, so this module imports nothing of the package and any layer may refuse."""
    return isinstance(exc, BaseException) and bool(getattr(exc, "clean_refusal", False))


def _refusal(record: logging.LogRecord) -> BaseException | None:
    exc = record.exc_info[1] if record.exc_info else None
    if exc is None:  # a Twisted log event forwarded to logging carries its Failure in the event
        failure = (_event(record) or {}).get("log_failure")
        exc = getattr(failure, "value", None)
    return exc if is_refusal(exc) else None


class CleanRefusal(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        global _pending
        exc = _refusal(record)
        if exc is not None:
            _pending = max(0, _pending - 1)
            record.msg, record.args = "%s", (str(exc),)
            exit_status.reported(str(exc))
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.CRITICAL, "CRITICAL"
            record.name = "scrapy_walsh"
            return True
        event = _event(record)
        return not (_pending and event is not None and event.get("log_format") == UNHANDLED_IN_DEFERRED)


_FILTER = CleanRefusal()


def install() -> None:
    """Idempotent, called by the add-on: add the filter to every logger in :data:`LOGGERS`,
    and begin Twisted logging when Twisted is loaded (Scrapy loads it; a pure-policy import
    doesn't).

    Once per process: a second ``beginLoggingTo`` would log Twisted's "selected twice" warning.
    """
    global _twisted_begun
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
    if _twisted_begun or "twisted.logger" not in sys.modules:
        return
    from twisted.logger import globalLogBeginner

    _twisted_begun = True
    # no observer of ours and no replay: Scrapy's observer already saw every event so far
    globalLogBeginner.beginLoggingTo([], discardBuffer=True, redirectStandardIO=False)


def _excepthook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    if is_refusal(exc):
        exit_status.reported(str(exc))
        logging.getLogger("scrapy_walsh").critical("%s", exc)
    else:
        (_previous_excepthook or sys.__excepthook__)(kind, exc, tb)


#: The hook :func:`_excepthook` stands in for while a refusal is pending (None: not installed).
_previous_excepthook: Callable[[type[BaseException], BaseException, TracebackType | None], Any] | None = None


def _hook_uncaught() -> None:
    """From a refusal on: uncaught, it is still one message."""
    global _previous_excepthook
    if _previous_excepthook is None:
        _previous_excepthook = sys.excepthook
        sys.excepthook = _excepthook
        exit_status.on_handled(_unhook_uncaught)


def _unhook_uncaught() -> None:
    """The refusals were handled: the process's own hook is back (unless another replaced ours since)."""
    global _previous_excepthook
    if _previous_excepthook is not None and sys.excepthook is _excepthook:
        sys.excepthook = _previous_excepthook
        _previous_excepthook = None


def refusing() -> None:
    """A ``ConformanceError`` is about to be raised (by the audit, or for a crawl it never
    passed): count it, so Twisted's "Unhandled error in Deferred:" line before it is dropped.
    Installs the rest first (idempotent), for a component run without the add-on, and the
    hook that reports the refusal as its reasons should it escape the script uncaught."""
    global _pending
    install()
    _hook_uncaught()
    _pending += 1
