"""R7: repeated runs accumulate only first-seen items.

An item whose key (its canonical URL, or ``WALSH_DEDUP_KEY``) this spider already emitted, in
this run or any earlier one, is dropped. A row is written once the item is in the feed (a
lease holds the key until then), so a crash loses no item; with the store away, an item is
delivered unchecked once the crawl is stopping rather than lost.
docs/state-store-items.md ("Dedup rows") says why.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.exceptions import DropItem
from scrapy.utils.misc import load_object

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.outputs import faults
from scrapy_walsh.outputs.delivery import DELIVERED, Delivery, Outcome
from scrapy_walsh.policy.canonical import canonical_url
from scrapy_walsh.policy.discovery import UPDATE
from scrapy_walsh.policy.vocabulary import Namespace
from scrapy_walsh.store import StateStoreError, StoreUnavailable, leases, open_crawl_store, targets
from scrapy_walsh.store.waiting import when_available

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

    from scrapy_walsh.store import StateStore

logger = logging.getLogger(__name__)

#: Early, right after the R6 bound and before the project's own pipelines, so that they see only
#: the items the feed gets. Only items that really leave the crawl are remembered all the same:
#: the row is written once the item reached the feeds (an item a later pipeline drops gives its
#: lease back), under the key read here, whatever a later pipeline changes in the item.
PRIORITY = -990


#: The "lease" of an update: none is taken (the row exists); the row is written again once delivered.
UPDATE_LEASE = "update"


class DuplicateItem(DropItem):
    """An item for a URL this spider already emitted (R7)."""


class UnmarkedUpdates:
    """The items of a page fetched again for a newer lastmod that can't carry ``walsh.update`` (an
    Item class without a ``walsh`` field): discovery names them here, and dedup delivers them as
    updates all the same, since their page's request was paid for them."""

    def __init__(self, crawler: Crawler | None = None):
        self._items: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()

    def add(self, item: Any) -> bool:
        """Name ``item``; False for an item that can't be named (no weak reference to it)."""
        try:
            self._items[id(item)] = item
        except TypeError:
            return False
        return True

    def __contains__(self, item: Any) -> bool:
        return self._items.get(id(item)) is item


class DedupPipeline:
    def __init__(self, crawler: Crawler, store: StateStore):
        assert crawler.stats is not None
        self.crawler = crawler
        self.stats = crawler.stats
        self.store = store
        config = CrawlContext.of(crawler).config
        self.reset = config.dedup_reset
        self.key_name = config.dedup_key
        self.key_of = _key_function(config.dedup_key)
        self.namespace: str = Namespace.SEEN
        self.crawl = CrawlContext.of(crawler).crawl_id
        self.delivery = CrawlContext.of(crawler).get(Delivery)
        self.unmarked = CrawlContext.of(crawler).get(UnmarkedUpdates)
        #: canonical URL -> lease token, for items that passed and are not yet in the feed
        self.pending: dict[str, str] = {}
        #: delivered to a feed stored when its slot closes: written on ``feed_exporter_closed``
        self.delivered: list[str] = []
        #: rows the store did not take (it was away): written with the next ones
        self.unwritten: list[tuple[str, str, Any]] = []
        #: why the store did not take the last ones (said at the end)
        self.why = "the store was away"
        #: keys claimed by this run: a second item with one of them shares its key with an
        #: item of this crawl (usually of the same page), not with an earlier run
        self.claimed_now: set[str] = set()
        #: the key each passing item was leased under (by the item's id, until its outcome is
        #: known): a later pipeline may change the field the key is read from
        self.leased: dict[int, str] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DedupPipeline:
        pipeline = cls(crawler, CrawlContext.of(crawler).get(open_crawl_store))
        crawler.signals.connect(pipeline.spider_opened, signal=signals.spider_opened)
        pipeline.delivery.listen(pipeline.item_done)
        crawler.signals.connect(pipeline.feed_exporter_closed, signal=signals.feed_exporter_closed)
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
        self.leased.pop(id(item), None)  # an id freed by an item gone and reused by this one
        key = self.key_of(item)
        if key is None:
            self.stats.inc_value("walsh/dedup/no_url")
            return item
        adapter = ItemAdapter(item)
        url = adapter.get("url")
        update = (_is_update(adapter) or item in self.unmarked) and key not in self.claimed_now

        def take() -> str | None:
            if update and not leases.is_lease(held := self.store.get(self.namespace, key)) and held is not None:
                return UPDATE_LEASE  # emitted before, its page changed since: delivered again, its row rewritten
            if self.key_name == "url" and isinstance(url, str) and url:
                if targets.legacy_record(self.store, self.namespace, url) is not None:
                    return None  # emitted under the key an earlier version wrote
            return leases.take(self.store, self.namespace, key, self.crawl)

        try:
            lease = await when_available(self.crawler, take)
        except StoreUnavailable:
            # the crawl is stopping and the store is still away: delivered unchecked, never lost
            self.stats.inc_value("walsh/dedup/unchecked")
            return item
        except StateStoreError as exc:
            # the store failed (the crawl stops, said once by the store): no item goes out unchecked,
            # and Scrapy logs a drop in one line where an error would bring its traceback
            raise DropItem(f"R7 dedup: the state store failed, the item can't be checked: {exc}") from None
        if lease is None:
            self.stats.inc_value("walsh/dedup/dropped")
            if key in self.claimed_now:
                self.stats.inc_value("walsh/dedup/shared_key")
                raise DuplicateItem(
                    f"R7 dedup: another item of this crawl already has the key {key!r} "
                    f"(WALSH_DEDUP_KEY = {self.key_name!r}): several items of one page share it. "
                    "Give each item a key of its own: set WALSH_DEDUP_KEY to a field that tells them "
                    f"apart{_fields_of(item, self.key_name)} or to a callable, or give each item its own URL"
                )
            raise DuplicateItem(
                f"R7 dedup: {key!r} was already emitted by this spider in an earlier run "
                f"(WALSH_DEDUP_KEY = {self.key_name!r}); `scrapy walsh state forget --spider NAME` forgets them"
            )
        self.claimed_now.add(key)
        self.pending[key] = lease
        self.leased[id(item)] = key
        self.stats.inc_value("walsh/dedup/updates" if lease == UPDATE_LEASE else "walsh/dedup/first_seen")
        return item

    def item_done(self, item: Any, response: Any, outcome: Outcome) -> None:
        """The item reached the feeds: record it as emitted (an item kept for the next run, or
        dropped, is not: its lease goes back when the crawl closes)."""
        key = self.leased.pop(id(item), None)
        if outcome is not DELIVERED:
            return
        if key is None:
            key = self.key_of(item)  # a later pipeline returned another object: read it again
        if key is None or key not in self.pending:
            return
        if self.delivery.stored_at_close():
            self.delivered.append(key)
        elif self.delivery.with_answer(response, (self.namespace, key, time.time(), None)):
            del self.pending[key]  # written with its page's R8 record, next
        else:
            self._emitted([key])

    def feed_exporter_closed(self) -> None:
        """The feeds stored when their slot closes are stored now (or one could not store its file:
        its items are not emitted, and their leases go back)."""
        keys, self.delivered = self.delivered, []
        if self.delivery.unstored:
            self._release({key: self.pending.pop(key) for key in keys if key in self.pending})
        else:
            self._emitted(keys)
        if keys:
            self._finish()

    def spider_closed(self, spider: Spider) -> None:
        """Leases of items that never reached the feed go back (a later pipeline dropped them,
        an output failed). Items handed to a feed stored at its slot's close keep theirs until
        ``feed_exporter_closed``, which follows the uploads Scrapy runs on this same signal."""
        waiting = set(self.delivered)
        self.leased.clear()
        self._release({key: lease for key, lease in self.pending.items() if key not in waiting})
        self.pending = {key: lease for key, lease in self.pending.items() if key in waiting}
        if not waiting:
            self._finish()

    def _finish(self) -> None:
        """Rows the store did not take are tried once more; what still fails is said once."""
        self._emitted([])
        if self.unwritten:
            what = f"{len(self.unwritten)} delivered item(s) not recorded as emitted (R7)"
            faults.unrecorded(self.crawler, what, self.why)
        unchecked = self.stats.get_value("walsh/dedup/unchecked")
        if unchecked:
            what = f"{unchecked} item(s) delivered without the R7 check against earlier runs"
            faults.unrecorded(self.crawler, what, "the store was away")

    def _release(self, leased: dict[str, str]) -> None:
        try:
            for key, lease in leased.items():
                leases.release(self.store, self.namespace, key, lease)
        except StateStoreError:
            pass  # the lease of a crawl gone is taken over by the next run

    def _emitted(self, keys: list[str]) -> None:
        entries = [(self.namespace, key, time.time()) for key in keys if self.pending.pop(key, None) is not None]
        entries, self.unwritten = self.unwritten + entries, []
        if not entries:
            return
        try:
            self.store.set_many(entries)
        except StateStoreError as exc:
            # written with the next ones; until then the lease stands (taken over by a later run,
            # which emits the item again if its page is fetched again)
            self.unwritten = entries
            self.why = "the store was away" if isinstance(exc, StoreUnavailable) else "the store failed"


def _is_update(adapter: ItemAdapter) -> bool:
    """The item is of a page fetched again because its manifest's lastmod is newer (discovery marks it)."""
    marks = adapter.get("walsh")
    return isinstance(marks, dict) and marks.get(UPDATE) is True


def _fields_of(item: Any, key_name: str) -> str:
    """`` (this item's fields: 'name', 'sku')``: the fields a dedup key may be, as the item has them
    (a plain value each, not the current key); empty when it has none."""
    fields = sorted(
        name
        for name, value in ItemAdapter(item).items()
        if name != key_name and isinstance(value, (str, int)) and not isinstance(value, bool) and value != ""
    )
    return f" (this item's fields: {', '.join(map(repr, fields))})" if fields else ""


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
