"""R7: repeated runs accumulate only first-seen items.

An item whose canonical URL (its ``url`` field) this spider already emitted, in this
run or any earlier one, is dropped. Emitted URLs are kept in the state store (namespace
``seen:<spider>``). Items without a ``url`` field pass unchanged (counted).
``WALSH_DEDUP_RESET = True`` forgets the spider's emitted URLs at start (a one-off, for a
deliberate re-harvest).

**A row is written once the item is in the feed** (issue 32), so a crash loses no item:
delivery is at least once, and this dedup makes it once. As an item passes, the crawl takes
a *lease* on its URL (``store.leases``: atomic add-if-absent, so processes of a fleet never
both emit it; a lease holds only while its crawl runs). The row that says "emitted" replaces
the lease on Scrapy's ``item_scraped`` signal, after the feed exporter wrote the item, and
after the feed's files are flushed to the operating system (a local file or stdout: the item
survives a ``kill -9`` of the crawl from then on). A feed that is stored only when its slot
closes (S3, FTP, GCS: a temporary file uploaded at the end) delivers nothing before that, so its
rows are written on ``feed_slot_closed``. A lease whose item never reached the feed (a
crash, a later pipeline dropped it) is taken over by the next run, which emits the item.
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
from ..store import StateStoreError, StoreUnavailable, crawl_id, leases, store_for, targets
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
        self.crawl = crawl_id(crawler)
        #: canonical URL -> lease token, for items that passed and are not yet in the feed
        self.pending: dict[str, str] = {}
        #: delivered to a feed stored when its slot closes: written on ``feed_slot_closed``
        self.delivered: list[str] = []

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DedupPipeline:
        pipeline = cls(crawler, store_for(crawler))
        crawler.signals.connect(pipeline.spider_opened, signal=signals.spider_opened)
        # connected after the feed exporter (an extension, built before the pipelines): it runs
        # after the item is written
        crawler.signals.connect(pipeline.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(pipeline.feed_slot_closed, signal=signals.feed_slot_closed)
        crawler.signals.connect(pipeline.spider_closed, signal=signals.spider_closed)
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

        def take() -> str | None:
            if targets.legacy_record(self.store, self.namespace, url) is not None:
                return None  # emitted under the key an earlier version wrote
            return leases.take(self.store, self.namespace, key, self.crawl)

        try:
            lease = await when_available(self.crawler, take)
        except StoreUnavailable as exc:
            raise DropItem(f"R7: {key} could not be checked for duplicates: the crawl is stopping and {exc}") from exc
        if lease is None:
            self.stats.inc_value("walsh/dedup/dropped")
            raise DuplicateItem(f"R7: {key} was already emitted by this spider")
        self.pending[key] = lease
        self.stats.inc_value("walsh/dedup/first_seen")
        return item

    def item_scraped(self, item: Any, response: Any = None, spider: Spider | None = None) -> None:
        """The item left the crawl (the feed exporter wrote it): record it as emitted."""
        url = ItemAdapter(item).get("url")
        key = canonical_url(url) if isinstance(url, str) and url else None
        if key is None or key not in self.pending:
            return
        if self._flush_feeds():
            self._emitted([key])
        else:
            self.delivered.append(key)

    def feed_slot_closed(self, slot: Any) -> None:
        """A feed stored when its slot closes is delivered now."""
        keys, self.delivered = self.delivered, []
        self._emitted(keys)

    def spider_closed(self, spider: Spider) -> None:
        """Leases of items that never reached the feed go back (a later pipeline dropped them).
        Items handed to a feed stored at its slot's close keep theirs: ``feed_slot_closed``
        follows the upload, which runs on this same signal."""
        waiting = set(self.delivered)
        pending = {key: lease for key, lease in self.pending.items() if key not in waiting}
        self.pending = {key: lease for key, lease in self.pending.items() if key in waiting}

        def release() -> None:
            for key, lease in pending.items():
                leases.release(self.store, self.namespace, key, lease)

        self._quietly(release)

    def _emitted(self, keys: list[str]) -> None:
        entries = [(self.namespace, key, time.time()) for key in keys if self.pending.pop(key, None) is not None]
        if entries:
            # a lost write leaves the lease, taken over by the next run: the item is emitted again
            self._quietly(lambda: self.store.set_many(entries))

    def _flush_feeds(self) -> bool:
        """Flush every local feed file; False when a feed delivers only when its slot closes."""
        from scrapy.extensions.feedexport import FeedExporter, FileFeedStorage, StdoutFeedStorage

        assert self.crawler.extensions is not None
        for extension in self.crawler.extensions.middlewares:
            if not isinstance(extension, FeedExporter):
                continue
            for slot in extension.slots:
                if not isinstance(slot.storage, (FileFeedStorage, StdoutFeedStorage)):
                    return False
                flush = getattr(getattr(slot, "file", None), "flush", None)
                if flush is not None:
                    flush()
        return True

    def _quietly(self, call: Any) -> None:
        try:
            call()
        except StateStoreError as exc:
            logger.warning("R7: could not record emitted items (%s); a later run emits them again", exc)
