"""One clean refusal: a ``ConformanceError`` is reported as its reasons, never as a traceback.

The add-on refuses a crawl from ``update_settings`` (or ``ConformanceGuard``), inside
Scrapy's crawl task. Scrapy then fails the crawl (``bootstrap_failed``: ``scrapy crawl``
exits 1), and the event loop or Twisted logs the unretrieved exception with its traceback,
which buries the one message that matters. This filter, on the loggers those reports go
through, turns such a record into the error's own text: the reasons, once, naming each
setting and requirement. Any other exception keeps its traceback.
"""

from __future__ import annotations

import logging

#: Where an exception that escapes a crawl is reported: asyncio's default exception handler,
#: Twisted's "Unhandled error in Deferred" (Scrapy forwards Twisted's log to "twisted"), and
#: Scrapy's own crawler and command loggers.
LOGGERS = ("asyncio", "twisted", "scrapy.crawler", "scrapy.core.engine", "scrapy.utils.defer")


def _refusal(record: logging.LogRecord) -> BaseException | None:
    from .conformance import ConformanceError

    exc = record.exc_info[1] if record.exc_info else None
    if exc is None:  # a Twisted log event forwarded to logging carries its Failure in the event
        event = getattr(record.msg, "event", None)
        failure = event.get("log_failure") if isinstance(event, dict) else None
        exc = getattr(failure, "value", None)
    # a state store that refuses to open (store/sqlite.py StoreRefused) is a refusal too
    return exc if isinstance(exc, ConformanceError) or getattr(exc, "clean_refusal", False) else None


class CleanRefusal(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        exc = _refusal(record)
        if exc is not None:
            record.msg, record.args = "%s", (str(exc),)
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.CRITICAL, "CRITICAL"
            record.name = "scrapy_walsh"
        return True


_FILTER = CleanRefusal()


def install() -> None:
    """Idempotent: add the filter to every logger in :data:`LOGGERS`."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
