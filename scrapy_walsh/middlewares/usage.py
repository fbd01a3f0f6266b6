"""Seed 000 usage warnings: ``X-Robots-Tag`` directives travel with the page, never block.

``UsageWarningsMiddleware`` (downloader) parses the header on every final response of a
spider request (redirects are followed before it sees them; robots.txt and the blocklist
are the package's own resources, not content, and are skipped) and writes the
directives that apply to ``WALSH_ROBOTS_TOKEN`` to ``response.meta["walsh"]["usage_warnings"]``:
a sorted list of lower-case strings, absent when there are none. The response always
goes on: the content is already retrieved.

``UsageWarningsItemMiddleware`` (spider) copies them into each item the callback yields
for that response, when the item can take a ``usage_warnings`` field (a dict, or an item
class declaring it); an item class that can't is named once in the log and counted.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware

from .. import internal
from ..config import config_for
from ..policy.usage import directive_name, usage_warnings

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

#: After the gates' own process_request (80-120); any place works for process_response.
PRIORITY = 125
#: After DeclaredTargetsMiddleware (990): items leave the spider through it first.
SPIDER_PRIORITY = 980
FIELD = "usage_warnings"
#: Directive names that become their own stats key; others count under "other".
_STAT_NAME = re.compile(r"^[a-z0-9_-]{1,40}$")


class UsageWarningsMiddleware:
    def __init__(self, crawler: Crawler):
        assert crawler.stats is not None
        self.stats = crawler.stats
        self.token: str = config_for(crawler).robots_token

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> UsageWarningsMiddleware:
        return cls(crawler)

    def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        if internal.internal_kind(request) is not None:
            return response
        warnings = usage_warnings(response.headers.getlist("X-Robots-Tag"), self.token)
        if not warnings:
            return response
        info = dict(request.meta.get("walsh") or {})  # copy-on-write, as record_verdict does
        info[FIELD] = warnings
        request.meta["walsh"] = info
        self.stats.inc_value("walsh/usage/responses")
        for warning in warnings:
            name = directive_name(warning)
            self.stats.inc_value(f"walsh/usage/directive/{name if _STAT_NAME.match(name) else 'other'}")
        return response


class UsageWarningsItemMiddleware(BaseSpiderMiddleware):
    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        assert crawler.stats is not None
        self.stats = crawler.stats
        self._explained: set[type] = set()

    def get_processed_item(self, item: Any, response: Response | None) -> Any:
        warnings = _warnings(response)
        if not warnings or not ItemAdapter.is_item(item):
            return item
        adapter = ItemAdapter(item)
        if adapter.get(FIELD) is not None:
            return item  # the callback set its own
        try:
            adapter[FIELD] = list(warnings)
        except (KeyError, TypeError, AttributeError, ValueError):
            self.stats.inc_value("walsh/usage/items_without_field")
            if type(item) not in self._explained:
                self._explained.add(type(item))
                logger.warning(
                    "seed 000: %s items can't carry the usage warnings of %s (%s); declare a "
                    "%r field to receive them. They remain in response.meta['walsh']; further "
                    "items are counted in walsh/usage/items_without_field.",
                    type(item).__name__,
                    response.url if response else "?",
                    ", ".join(warnings),
                    FIELD,
                )
        return item


def _warnings(response: Response | None) -> list[str]:
    if response is None:
        return []
    try:
        info = response.meta.get("walsh") or {}
    except AttributeError:  # a response not tied to a request
        return []
    return list(info.get(FIELD) or [])
