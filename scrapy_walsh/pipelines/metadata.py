"""R6: items carry metadata, never content.

An item is dropped, naming the field, when a string in it is longer than
``WALSH_MAX_FIELD_CHARS``, when it carries bytes, or when its strings sum to more than
``WALSH_MAX_ITEM_CHARS``. It runs first, and once more last (:class:`AddedContentPipeline`).
docs/requirements/r6-scope.md says why.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem

from scrapy_walsh.context import CrawlContext

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

#: First, before the project's own pipelines (Scrapy's media pipelines sit at 1, a project's
#: usually at 100-900): they see only items that pass.
PRIORITY = -1000
#: Last, after every pipeline: what leaves the crawl is what is checked.
LAST_PRIORITY = 1000


class ContentInItem(DropItem):
    """An item carried content (R6); the message names the field."""


def _offences(value: Any, path: str, limit: int) -> Iterator[str]:
    if isinstance(value, (bytes, bytearray, memoryview)):
        yield f"{path} holds {len(value)} bytes (bytes are content, not metadata)"
    elif isinstance(value, str):
        if len(value) > limit:
            yield f"{path} has {len(value)} characters, over WALSH_MAX_FIELD_CHARS={limit}"
    elif isinstance(value, Mapping):
        for key, inner in value.items():
            yield from _offences(inner, f"{path}.{key}", limit)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for index, inner in enumerate(value):
            yield from _offences(inner, f"{path}[{index}]", limit)


def _chars(value: Any) -> int:
    """Characters of every string in ``value``, nested lists, sets and dicts (keys too) included."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, Mapping):
        return sum(_chars(k) + _chars(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return sum(_chars(v) for v in value)
    return 0


class MetadataOnlyPipeline:
    #: the stat counted and the words that open the message of a dropped item
    STAT = "walsh/items/content_rejected"
    WHY = "R6: item rejected"

    def __init__(self, crawler: Crawler):
        assert crawler.stats is not None
        self.stats = crawler.stats
        config = CrawlContext.of(crawler).config
        self.limit = config.max_field_chars
        self.total_limit = config.max_item_chars

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> MetadataOnlyPipeline:
        return cls(crawler)

    def process_item(self, item: Any, spider: Spider | None = None) -> Any:
        fields = ItemAdapter(item).items()
        sizes: dict[str, int] = {}
        for field, value in fields:
            for offence in _offences(value, field, self.limit):
                self.stats.inc_value(self.STAT)
                raise ContentInItem(f"{self.WHY}, field {offence}")
            sizes[field] = len(field) + _chars(value)
        total = sum(sizes.values())
        if total > self.total_limit:
            largest = max(sizes, key=sizes.__getitem__)
            self.stats.inc_value(self.STAT)
            raise ContentInItem(
                f"{self.WHY}, its strings hold {total} characters in all, over "
                f"WALSH_MAX_ITEM_CHARS={self.total_limit} (field {largest} holds {sizes[largest]})"
            )
        return item


class AddedContentPipeline(MetadataOnlyPipeline):
    """The R6 bound once more, after every pipeline: an item a project pipeline grew past it
    (a body added, a field filled from a download) is dropped, and the message says a pipeline
    added it (the project's pipelines saw that item; the feed does not get it)."""

    STAT = "walsh/items/content_added"
    WHY = "R6: item rejected after the project's pipelines (one of them added content)"
