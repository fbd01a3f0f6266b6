"""``ConformanceGuard``: the extension that audits the final settings before the engine starts."""

from __future__ import annotations

import logging
from typing import Any

from .. import exit_status
from ..config import WalshConfig
from ..context import CrawlContext
from ..settings import SPEC_VERSION
from .audit import enforce
from .engine import PASS, WARN, Finding

logger = logging.getLogger(__name__)


class ConformanceGuard:
    """Extension that re-audits the final, frozen settings before the engine starts.

    The add-on audits when it runs, but add-ons listed after it may still change
    settings; this guard sees the frozen, final values, and makes the crawl's config from
    them once they pass (every component reads that one, ``CrawlContext.of(crawler).config``).
    Raising from ``from_crawler`` stops the crawl before any request is sent.
    """

    def __init__(self, findings: list[Finding]):
        self.findings = findings

    @classmethod
    def from_crawler(cls, crawler: Any) -> ConformanceGuard:
        try:
            findings = enforce(crawler.settings)
            config = CrawlContext.of(crawler).configure(WalshConfig.from_settings(crawler.settings))
        except Exception as exc:
            exit_status.fatal(str(exc))  # a script running this crawl exits non-zero too
            raise
        counts = {status: sum(f.status == status for f in findings) for status in (PASS, WARN)}
        logger.info(
            "scrapy_walsh: %s active for %r; settings audit: %d passed, %d warnings; state: %s",
            SPEC_VERSION,
            config.robots_token,
            counts[PASS],
            counts[WARN],
            config.state_location().shown,
        )
        return cls(findings)
