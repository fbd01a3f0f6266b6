"""``ConformanceGuard``: the extension that audits the final settings before the engine starts."""

from __future__ import annotations

import logging
from typing import Any

from scrapy_walsh.config import WalshConfig
from scrapy_walsh.conformance.audit import enforce
from scrapy_walsh.conformance.engine import PASS, WARN, Finding, enabled_components
from scrapy_walsh.conformance.rules.identity import another_operator
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.discovery.manifests import COMMAND_SPIDER, route_findings, spider_routes
from scrapy_walsh.exceptions import ConformanceError
from scrapy_walsh.outputs import clean_refusal, exit_status, typed_command
from scrapy_walsh.outputs.rerun import at_stake, rerun_warning
from scrapy_walsh.settings import SPEC_VERSION, USER_AGENT
from scrapy_walsh.store import open_crawl_store

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
            _refuse_broken_routes(crawler)
            config = CrawlContext.of(crawler).configure(WalshConfig.from_settings(crawler.settings))
        except Exception as exc:
            if clean_refusal.is_refusal(exc):
                clean_refusal.report(exc)  # said once, as its reasons; Scrapy fails the crawl
            raise
        _warn_rerun_empties(crawler, config.refetch_interval)
        exit_status.watch(crawler)  # a fault after the start fails the crawl too
        counts = {status: sum(f.status == status for f in findings) for status in (PASS, WARN)}
        if config.user_agent != USER_AGENT:
            logger.info("scrapy_walsh: this crawl runs as %s", another_operator(config.user_agent, config.robots_token))
        logger.info(
            "scrapy_walsh: %s active for %r; settings audit: %d passed, %d warnings; state: %s",
            SPEC_VERSION,
            config.robots_token,
            counts[PASS],
            counts[WARN],
            config.state_location().shown,
        )
        return cls(findings)


def _warn_rerun_empties(crawler: Any, interval: float) -> None:
    """Before a feed overwrites its file (it is opened when the spider opens): a re-run whose every
    target was fetched within the refetch interval would replace the last items with an empty list,
    and the project's own item pipelines would get none."""
    if typed_command.command() in typed_command.TYPED or getattr(crawler.spidercls, COMMAND_SPIDER, False):
        return
    pipelines = enabled_components(crawler.settings, "ITEM_PIPELINES")
    if not at_stake(crawler.settings, str(getattr(crawler.spidercls, "name", "")), pipelines):
        return  # nothing to empty: the store is not opened for it
    try:
        discovering = spider_routes(crawler.spidercls, crawler.settings) is not None
        warning = rerun_warning(
            crawler.settings,
            CrawlContext.of(crawler).get(open_crawl_store),
            crawler.spidercls,
            discovering,
            interval,
            pipelines,
        )
    except Exception as exc:  # noqa: BLE001 - a warning that can't be worked out is not one to stop a crawl for
        # a store that can't open is refused once, cleanly, by the component that opens it next
        logger.debug("the re-run check could not read the store: %s", exc)
        return
    if warning:
        logger.warning("scrapy_walsh: %s", warning.text)


def _refuse_broken_routes(crawler: Any) -> None:
    """A discovery route to a callback the spider lacks or can't call would drop its targets without
    a word: the crawl is refused before any request, naming the route and the callback."""
    spider = crawler.spider
    routing = spider_routes(type(spider), crawler.settings, spider) if spider is not None else None
    if routing is not None and routing.broken:
        raise ConformanceError(route_findings(routing))
