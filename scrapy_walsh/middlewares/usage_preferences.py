"""The policy model usage warnings and the site's usage preferences: they travel with the page.

``UsagePreferencesMiddleware`` (downloader) writes a spider response's ``X-Robots-Tag`` warnings
and the usage decision for ``WALSH_PURPOSES`` to ``response.meta["walsh"]``;
``UsagePreferencesItemMiddleware`` (spider) copies both into each item. ``WALSH_USAGE_MODE =
"report"`` only attaches and counts; ``"respect"`` refuses what robots.txt or tdmrep.json
reserves and drops an item whose source reserves one. docs/preferences.md and
docs/architecture.md ("The modules, one by one") say why.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.exceptions import IgnoreRequest
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware

from scrapy_walsh.config import applied
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.exceptions import UsageReserved, refuse
from scrapy_walsh.policy.gates import OriginRobots
from scrapy_walsh.policy.preferences import Preference, TdmRep, TdmRepError, UsageDecision, usage_decision
from scrapy_walsh.policy.preferences.tdmrep import MAX_BYTES as TDMREP_MAX_BYTES
from scrapy_walsh.policy.vocabulary import GateVerdict
from scrapy_walsh.policy.xrobotstag import directive_name, usage_warnings
from scrapy_walsh.sending import admission, own_fetch
from scrapy_walsh.sending.request_meta import Added, add_to_item, request_parts

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

#: After the gates' own process_request (80-120): robots.txt is known by then.
PRIORITY = 125
#: After DeclaredTargetsMiddleware (990): items leave the spider through it first.
SPIDER_PRIORITY = 980
FIELD = "usage_warnings"
#: ``response.meta["walsh"]`` key, and the key inside an item's ``walsh`` dict.
USAGE = "usage"
#: The verdict of a request refused before it is sent (respect mode).
RESERVED = GateVerdict.USAGE_RESERVED
#: The own-fetch kind of ``/.well-known/tdmrep.json``.
TDMREP = "tdmrep"
TDMREP_PATH = "/.well-known/tdmrep.json"
#: Stats per answer, completed with the purpose: ``walsh/usage/reserved/train-ai``.
PREFERENCE_STATS: Mapping[Preference, str] = MappingProxyType(
    {
        Preference.ALLOWED: "walsh/usage/allowed/",
        Preference.RESERVED: "walsh/usage/reserved/",
        Preference.UNKNOWN: "walsh/usage/unknown/",
    }
)
#: Directive names that become their own stats key; others count under "other".
_STAT_NAME = re.compile(r"^[a-z0-9_-]{1,40}$")


def _path(request: Request) -> str:
    parts = request_parts(request)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _origin(request: Request) -> str:
    parts = request_parts(request)
    return f"{parts.scheme}://{parts.netloc}"


class UsagePreferencesMiddleware:
    def __init__(self, crawler: Crawler):
        assert crawler.stats is not None
        self.crawler = crawler
        self.stats = crawler.stats
        config = CrawlContext.of(crawler).config
        self.token: str = config.robots_token
        self.purposes: tuple[str, ...] = config.purposes
        self.mode: str = config.usage_mode
        #: origin -> its tdmrep.json (None: absent, refused or invalid); respect mode only.
        self.tdmrep: dict[str, TdmRep | None] = {}
        self._robots_gate: Any = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> UsagePreferencesMiddleware:
        return cls(crawler)

    # ------------------------------------------------------------------ before the fetch

    async def process_request(self, request: Request, spider: Spider | None = None) -> None:
        """Respect mode: what robots.txt and tdmrep.json already reserve is not fetched."""
        if self.mode != "respect" or admission.own_fetch_kind(request) is not None:
            return
        if request_parts(request).scheme not in ("http", "https"):
            return
        tdmrep = await self._tdmrep(request)
        decision = usage_decision(
            _path(request), self.purposes, robots=self._robots_lines(request), tdmrep=tdmrep, token=self.token
        )
        if not decision.reserved:
            return
        reasons = "; ".join(f"{d.purpose} by {d.source}" for d in decision.decisions if d.purpose in decision.reserved)
        refuse(
            self.crawler,
            UsageReserved(
                RESERVED,
                f"the site reserves {', '.join(decision.reserved)} (in WALSH_PURPOSES) before any fetch: {reasons}",
                request.url,
                usage=decision.as_dict(),
            ),
        )

    def _robots_lines(self, request: Request) -> list[tuple[str, str, int]]:
        """The selected group's usage records, from the robots gate's outcome for this
        origin (already awaited: that gate runs first); [] when robots.txt is not read."""
        from scrapy_walsh.middlewares.robots_gate import RobotsMiddleware, origin_of

        if self._robots_gate is None:
            try:
                self._robots_gate = self.crawler.get_downloader_middleware(RobotsMiddleware) or False
            except RuntimeError:  # no crawl running (a middleware used on its own)
                return []
        if not self._robots_gate:
            return []
        known = self._robots_gate.origins.get(origin_of(request))
        if not isinstance(known, OriginRobots) or known.robots is None:
            return []
        return known.robots.usage_lines(self.token)

    async def _tdmrep(self, request: Request) -> TdmRep | None:
        """This origin's tdmrep.json, fetched once through every gate (as robots.txt is)."""
        origin = _origin(request)
        if origin in self.tdmrep:
            return self.tdmrep[origin]
        self.tdmrep[origin] = None  # one fetch per origin, also while it is in flight
        try:
            response = await own_fetch.fetch(
                self.crawler, origin + TDMREP_PATH, TDMREP, download_maxsize=TDMREP_MAX_BYTES
            )
        except IgnoreRequest:
            self.stats.inc_value("walsh/usage/tdmrep/refused")
            return None
        except Exception:  # noqa: BLE001 - a network failure means no file
            self.stats.inc_value("walsh/usage/tdmrep/failed")
            return None
        if response.status != 200:
            self.stats.inc_value("walsh/usage/tdmrep/absent")
            return None
        try:
            parsed = TdmRep.parse(response.body)
        except TdmRepError:
            self.stats.inc_value("walsh/usage/tdmrep/invalid")
            return None
        self.stats.inc_value("walsh/usage/tdmrep/read")
        self.tdmrep[origin] = parsed
        return parsed

    # ------------------------------------------------------------------ the answer

    def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        if admission.own_fetch_kind(request) is not None:
            return response
        info = dict(request.meta.get("walsh") or {})  # copy-on-write, as record_verdict does
        decision = self._decide(request, response)
        info[USAGE] = {"mode": self.mode, **decision.as_dict()}
        self.stats.inc_value("walsh/usage/decided")
        for purpose in decision.decisions:
            self.stats.inc_value(PREFERENCE_STATS[purpose.preference] + purpose.purpose)
        if decision.reserved:
            self.stats.inc_value("walsh/usage/reserved_responses")
        warnings = usage_warnings(response.headers.getlist("X-Robots-Tag"), self.token)
        if warnings:
            info[FIELD] = warnings
            self.stats.inc_value("walsh/usage/responses")
            for warning in warnings:
                name = directive_name(warning)
                self.stats.inc_value(f"walsh/usage/directive/{name if _STAT_NAME.match(name) else 'other'}")
        request.meta["walsh"] = info
        return response

    def _decide(self, request: Request, response: Response) -> UsageDecision:
        headers = [(k, v) for k, values in response.headers.items() for v in values]
        return usage_decision(
            _path(request),
            self.purposes,
            robots=self._robots_lines(request),
            tdmrep=self.tdmrep.get(_origin(request)),
            headers=headers,
            token=self.token,
        )


class UsagePreferencesItemMiddleware(BaseSpiderMiddleware):
    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        assert crawler.stats is not None
        self.stats = crawler.stats
        self._explained: set[type] = set()
        self.mode = CrawlContext.of(crawler).config.usage_mode if applied(crawler.settings) else "report"

    def get_processed_item(self, item: Any, response: Response | None) -> Any:
        usage = _usage(response)
        if usage is not None and ItemAdapter.is_item(item):
            if self.mode == "respect" and usage.get("reserved"):
                self.stats.inc_value("walsh/usage/items_dropped")
                logger.info(
                    "respect: an item of %s is dropped: the site reserves %s",
                    response.url if response is not None else "?",
                    ", ".join(usage["reserved"]),
                )
                return None
            self._attach_usage(item, usage)
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
                    "usage preferences: %s items can't carry the usage warnings of %s (%s); declare a "
                    "%r field to receive them. They remain in response.meta['walsh']; further "
                    "items are counted in walsh/usage/items_without_field.",
                    type(item).__name__,
                    response.url if response else "?",
                    ", ".join(warnings),
                    FIELD,
                )
        return item

    def _attach_usage(self, item: Any, usage: dict[str, Any]) -> None:
        """``item["walsh"]["usage"]``: added to the item's own ``walsh`` dict when it has one."""
        added = add_to_item(item, USAGE, usage)
        if added is Added.NO_FIELD:
            self.stats.inc_value("walsh/usage/items_without_field")
            return
        if added is Added.FOREIGN:
            return  # the item's own "walsh" field, not ours: it carries no decision
        self.stats.inc_value("walsh/usage/items")
        if usage.get("reserved"):
            self.stats.inc_value("walsh/usage/items_reserved")


def _meta(response: Response | None) -> dict[str, Any]:
    if response is None:
        return {}
    try:
        return response.meta.get("walsh") or {}
    except AttributeError:  # a response not tied to a request
        return {}


def _usage(response: Response | None) -> dict[str, Any] | None:
    found = _meta(response).get(USAGE)
    return found if isinstance(found, dict) else None


def _warnings(response: Response | None) -> list[str]:
    return list(_meta(response).get(FIELD) or [])
