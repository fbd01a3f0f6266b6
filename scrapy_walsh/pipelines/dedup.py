"""R7: repeated runs accumulate only first-seen items.

An item whose canonical URL (its ``url`` field) this spider already emitted, in this
run or any earlier one, is dropped. Emitted URLs are kept in the state store (namespace
``seen:<spider>``), written as each item passes, so a crash loses nothing already
emitted. The check and the write are one atomic ``claim`` (add-if-absent), so processes
of a fleet sharing the store never both emit the same URL. Items without a ``url`` field
pass unchanged (counted). ``WALSH_DEDUP_RESET = True`` forgets the spider's emitted URLs
at start (a one-off, for a deliberate re-harvest).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.exceptions import DropItem

from ..config import config_for
from ..policy.canonical import canonical_url
from ..policy.vocabulary import Namespace
from ..store import StoreUnavailable, store_for
from ..store.waiting import when_available

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

    from ..store import StateStore

logger = logging.getLogger(__name__)

#: The very last pipeline: only items that really leave the crawl are remembered.
PRIORITY = 1000


class DuplicateItem(DropItem):
    """An item for a URL this spider already emitted (R7)."""


class DedupPipeline:
    def __init__(self, crawler: Crawler, store: StateStore):
        assert crawler.stats is not None
        self.crawler = crawler
        self.stats = crawler.stats
        self.store = store
        self.reset = config_for(crawler).dedup_reset
        self.namespace: str = Namespace.SEEN

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DedupPipeline:
        pipeline = cls(crawler, store_for(crawler))
        crawler.signals.connect(pipeline.spider_opened, signal=signals.spider_opened)
        return pipeline

    def spider_opened(self, spider: Spider) -> None:
        self.namespace = f"{Namespace.SEEN}:{spider.name}"
        if self.reset:
            keys = [key for key, _ in self.store.items(self.namespace)]
            for key in keys:
                self.store.delete(self.namespace, key)
            logger.warning("WALSH_DEDUP_RESET: forgot %d emitted URLs of spider %r", len(keys), spider.name)

    async def process_item(self, item: Any, spider: Spider | None = None) -> Any:
        url = ItemAdapter(item).get("url")
        if not isinstance(url, str) or not url:
            self.stats.inc_value("walsh/dedup/no_url")
            return item
        key = canonical_url(url)
        try:
            claimed = await when_available(self.crawler, lambda: self.store.claim(self.namespace, key, time.time()))
        except StoreUnavailable as exc:
            raise DropItem(f"R7: {key} could not be checked for duplicates: the crawl is stopping and {exc}") from exc
        if not claimed:
            self.stats.inc_value("walsh/dedup/dropped")
            raise DuplicateItem(f"R7: {key} was already emitted by this spider")
        self.stats.inc_value("walsh/dedup/first_seen")
        return item
