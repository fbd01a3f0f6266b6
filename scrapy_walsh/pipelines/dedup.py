"""R7: repeated runs accumulate only first-seen items.

An item whose key this spider already emitted, in this run or any earlier one, is
dropped. The key is the item's canonical URL (its ``url`` field, as seed 001 says) unless
``WALSH_DEDUP_KEY`` names another field or a callable ``f(item) -> str | None``. When an
item's key was already taken *in this run* (typically: several items of one page carry
the page's URL), the drop message says so and names ``WALSH_DEDUP_KEY``; ``scrapy walsh
check`` warns about such spiders before the first crawl. Emitted URLs are kept in the state store (namespace
``seen:<spider>``), written as each item passes, so a crash loses nothing already
emitted. The check and the write are one atomic ``claim`` (add-if-absent), so processes
of a fleet sharing the store never both emit the same URL. Items without a ``url`` field
(no key) pass unchanged (counted). ``WALSH_DEDUP_RESET = True`` forgets the spider's emitted URLs
at start (a one-off, for a deliberate re-harvest).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.exceptions import DropItem
from scrapy.utils.misc import load_object

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
        config = config_for(crawler)
        self.reset = config.dedup_reset
        self.key_name = config.dedup_key
        self.key_of = _key_function(config.dedup_key)
        self.namespace: str = Namespace.SEEN
        #: keys claimed by this run: a second item with one of them shares its key with an
        #: item of this crawl (usually of the same page), not with an earlier run
        self.claimed_now: set[str] = set()

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
        key = self.key_of(item)
        if key is None:
            self.stats.inc_value("walsh/dedup/no_url")
            return item
        try:
            claimed = await when_available(self.crawler, lambda: self.store.claim(self.namespace, key, time.time()))
        except StoreUnavailable as exc:
            raise DropItem(f"R7: {key} could not be checked for duplicates: the crawl is stopping and {exc}") from exc
        if not claimed:
            self.stats.inc_value("walsh/dedup/dropped")
            if key in self.claimed_now:
                self.stats.inc_value("walsh/dedup/shared_key")
                raise DuplicateItem(
                    f"R7 dedup: another item of this crawl already has the key {key!r} "
                    f"(WALSH_DEDUP_KEY = {self.key_name!r}): several items of one page share it. "
                    "Give each item a key of its own: set WALSH_DEDUP_KEY to a field that tells them "
                    'apart (WALSH_DEDUP_KEY = "sku") or to a callable, or give each item its own URL'
                )
            raise DuplicateItem(
                f"R7 dedup: {key!r} was already emitted by this spider in an earlier run "
                f"(WALSH_DEDUP_KEY = {self.key_name!r}); `scrapy walsh state forget --spider NAME` forgets them"
            )
        self.claimed_now.add(key)
        self.stats.inc_value("walsh/dedup/first_seen")
        return item


def _key_function(name: str) -> Callable[[Any], str | None]:
    """``item -> key``: a field (a URL field keyed by its canonical URL), or a callable's result."""
    if "." in name:
        function = load_object(name)

        def call(item: Any) -> str | None:
            key = function(item)
            return str(key) if key not in (None, "") else None

        return call

    def field(item: Any) -> str | None:
        value = ItemAdapter(item).get(name)
        if value is None or value == "" or isinstance(value, (dict, list, tuple, set, bytes)):
            return None
        text = str(value)
        return canonical_url(text) if "://" in text else text

    return field
