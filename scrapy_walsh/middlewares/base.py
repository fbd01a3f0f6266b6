"""What every stateful gate shares: the crawler, its stats, and the crawl's one store."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.store import open_crawl_store

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

    from scrapy_walsh.store import StateStore


class StatefulGate:
    def __init__(self, crawler: Crawler, store: StateStore):
        assert crawler.stats is not None
        self.crawler = crawler
        self.stats = crawler.stats
        self.store = store

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler, CrawlContext.of(crawler).get(open_crawl_store))
