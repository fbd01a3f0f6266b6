"""R6: items carry metadata, never content.

Metadata is what a citation needs: URL, status, title, headings, links, dates,
verdicts. A page body is content. An item is dropped, naming the field, when any string
in it (nested lists and dicts included) is longer than ``WALSH_MAX_FIELD_CHARS``, or
when it carries bytes anywhere. A list of short links is fine; one long string is not,
and neither is a body cut into many short strings: the characters of every string of
the item (keys of nested dicts included) are summed, and an item over
``WALSH_MAX_ITEM_CHARS`` is dropped, naming the field that holds the most.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem

from ..context import CrawlContext

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

#: Late, after the project's own pipelines, so what leaves the crawl is what is checked.
PRIORITY = 990


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
                self.stats.inc_value("walsh/items/content_rejected")
                raise ContentInItem(f"R6: item rejected, field {offence}")
            sizes[field] = len(field) + _chars(value)
        total = sum(sizes.values())
        if total > self.total_limit:
            largest = max(sizes, key=sizes.__getitem__)
            self.stats.inc_value("walsh/items/content_rejected")
            raise ContentInItem(
                f"R6: item rejected, its strings hold {total} characters in all, over "
                f"WALSH_MAX_ITEM_CHARS={self.total_limit} (field {largest} holds {sizes[largest]})"
            )
        return item
