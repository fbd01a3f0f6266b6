"""A crawl that failed after it started ends as Scrapy ends a crawl that failed: ``bootstrap_failed``.

A crawl refused at start raises, and Scrapy fails it. One that started and was then stopped by a
fault (its state store failed, an output lost items, a typed URL was refused) is recorded here by
:func:`failed`; when its engine has stopped, its ``crawler.spider`` is cleared, which is how
Scrapy's runners tell a crawl that did not run its spider: ``bootstrap_failed`` is set, and
``scrapy crawl``, ``fetch``, ``parse`` and ``runspider`` exit 1. It imports only
:mod:`scrapy_walsh.process`, so any layer may record a failure. docs/existing-projects.md says more.
"""

from __future__ import annotations

from typing import Any

from scrapy_walsh.process import PROCESS

__all__ = ("failed", "watch")


def watch(crawler: Any) -> None:
    """Called once per crawl as it is built: when its engine stops, a failed crawl is marked."""
    from scrapy import signals

    crawler.signals.connect(lambda: _ended(crawler), signal=signals.engine_stopped, weak=False)


def failed(crawler: Any, message: str) -> None:
    """The crawl ``crawler`` failed (``message`` was said once): its runner sees it failed."""
    PROCESS.failures.setdefault(crawler, []).append(message)
    if crawler in PROCESS.ended:  # said after its engine stopped (what the store did not record)
        crawler.spider = None


def failures(crawler: Any) -> tuple[str, ...]:
    """What :func:`failed` recorded for ``crawler``."""
    return tuple(PROCESS.failures.get(crawler, ()))


def _ended(crawler: Any) -> None:
    PROCESS.ended.add(crawler)
    if crawler in PROCESS.failures:
        crawler.spider = None
