"""R6: declared targets only, and no sub-resources.

``DeclaredTargetsMiddleware`` (spider) drops every request a callback yields, seals each request
it admits (``scrapy_walsh.sending.admission``), and drops on ``request_scheduled`` one that arrives
unsealed (an errback's output). ``SubresourceMiddleware`` (downloader, the first gate) refuses
images, scripts, stylesheets, fonts, audio and video by URL or type, and drops a response whose
``Content-Type`` is one. docs/requirements/r6-scope.md and docs/architecture.md ("The modules,
one by one") say why.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Any

import scrapy
from scrapy import signals
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware

from scrapy_walsh.exceptions import OutOfScope, refuse
from scrapy_walsh.policy.scope import subresource_kind, subresource_type
from scrapy_walsh.policy.vocabulary import NOT_DECLARED, SUBRESOURCE
from scrapy_walsh.sending import admission

if TYPE_CHECKING:
    from collections.abc import Iterator

    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

#: Closest to the spider, so the drop happens before any other middleware sees the request.
SPIDER_PRIORITY = 990
#: The first downloader gate (scope), before the blocklist (90).
SUBRESOURCE_PRIORITY = 80


class DeclaredTargetsMiddleware(BaseSpiderMiddleware):
    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        assert crawler.stats is not None
        self.stats = crawler.stats
        self._explained = False
        #: URLs of the declared targets: a follow-up to one of them is fetched anyway, as itself
        self._declared: set[str] = set()
        crawler.signals.connect(self.request_scheduled, signal=signals.request_scheduled)
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)

    def get_processed_request(self, request: Request, response: Response | None) -> Request | None:
        if response is None:
            self._declared.add(request.url)
            return admission.declare(self.crawler, request)  # a start request: a declared target
        if self._structured_step(request):
            self.stats.inc_value("walsh/scope/structured_followups")
            return admission.declare(self.crawler, request)
        if request.url in self._declared:
            # declared on its own: fetched (once) as a target, so nothing is lost here
            self.stats.inc_value("walsh/scope/followups_already_declared")
            return None
        self._drop(request, f"yielded from the callback for {response.url}")
        return None

    def request_scheduled(self, request: Request, spider: Spider) -> None:
        """The scheduler's door: what reached it around the spider middlewares is dropped."""
        if admission.declared(self.crawler, request):
            return
        if _typed_at_the_shell():
            # `scrapy shell URL` and fetch() inside it: the person at the prompt declared it
            self.stats.inc_value("walsh/scope/shell_declared")
            admission.declare(self.crawler, request)
            return
        self._drop(request, "scheduled without passing the spider middlewares (e.g. yielded from an errback)")
        raise OutOfScope(NOT_DECLARED, "not a declared target (R6)", request.url)

    def spider_opened(self, spider: Spider) -> None:
        """A scrapy-redis spider's Redis list holds its declared targets: mark what ``next_requests()`` pops.

        scrapy-redis has no hook between its list and ``engine.crawl()`` (its idle handler schedules
        straight into the engine), so the method is wrapped on this spider instance: our one reach
        into scrapy-redis, pinned by tests/unit/test_scrapy_redis_pin.py.
        """
        if not hasattr(spider, "redis_key"):  # scrapy-redis's RedisMixin
            return
        next_requests = getattr(spider, "next_requests", None)
        if not callable(next_requests):
            logger.warning(
                "R6: %s has redis_key but no next_requests(): the URLs it pops from Redis when idle "
                "will be dropped as undeclared (is scrapy-redis newer than scrapy_walsh supports?)",
                type(spider).__name__,
                extra={"spider": spider},
            )
            return

        def declared_next_requests() -> Iterator[Any]:
            for request in next_requests():
                yield admission.declare(self.crawler, request) if isinstance(request, scrapy.Request) else request

        spider.next_requests = declared_next_requests  # type: ignore[attr-defined]

    def _drop(self, request: Request, how: str) -> None:
        self.stats.inc_value("walsh/scope/followups_dropped")
        if not self._explained:
            self._explained = True
            logger.warning(
                "R6: dropped %s, %s. scrapy_walsh fetches the declared targets only (no link "
                "following, no recursion). To fetch such pages, declare them: list them in "
                "start_urls, yield them from start(), give them as a StructuredSourceSpider's "
                "targets, or let discovery take them from the site's sitemap: a CrawlSpider's rules with "
                "a callback do unless WALSH_DISCOVERY = []; another spider needs WALSH_DISCOVERY_ROUTES "
                "(`scrapy walsh check` prints the line). "
                "Further drops are counted in walsh/scope/followups_dropped, not logged.",
                request.url,
                how,
                extra={"spider": self.crawler.spider},
            )

    def _structured_step(self, request: Request) -> bool:
        """R9: the llms.txt or twin request a StructuredSourceSpider planned for a target."""
        from scrapy_walsh.discovery.structured import StructuredSourceSpider

        spider = self.crawler.spider
        return isinstance(spider, StructuredSourceSpider) and spider.planned_followup(request)


def _typed_at_the_shell() -> bool:
    """True when the request being scheduled comes from ``scrapy shell``'s own fetch.

    The shell schedules with ``engine.crawl()`` from ``Shell._schedule`` (no spider middleware
    sees it), so its requests are recognised by that frame on the stack: the code object of
    Scrapy's shell, which spider code cannot stand in for. This is the one private name the
    check relies on (docs/architecture); tests/e2e/test_shell.py fails loudly if Scrapy moves it.
    Walked only for requests that are not declared otherwise.
    """
    shell_code = _shell_schedule_code()
    if shell_code is None:
        return False
    frame: Any = sys._getframe(1)
    for _ in range(30):
        if frame is None:
            return False
        if frame.f_code is shell_code:
            return True
        frame = frame.f_back
    return False


def _shell_schedule_code() -> Any:
    shell = sys.modules.get("scrapy.shell")  # imported only by the shell command
    schedule = getattr(getattr(shell, "Shell", None), "_schedule", None)
    return getattr(schedule, "__code__", None)


class SubresourceMiddleware:
    def __init__(self, crawler: Crawler):
        assert crawler.stats is not None
        self.crawler = crawler
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> SubresourceMiddleware:
        return cls(crawler)

    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        if admission.own_fetch_kind(request) is not None:
            return
        dest: Any = request.headers.get("Sec-Fetch-Dest")
        kind = subresource_kind(
            request.url, request.meta.get("resource_type"), dest.decode("latin-1") if isinstance(dest, bytes) else None
        )
        if kind is None:
            return
        refuse(
            self.crawler,
            OutOfScope(SUBRESOURCE, f"{kind} sub-resources are never downloaded (R6)", request.url, kind=kind),
        )

    def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        """A response of a sub-resource type is dropped here, before any callback sees its bytes."""
        if admission.own_fetch_kind(request) is not None:
            return response  # robots.txt, the blocklist: read by their own gates, whatever their type
        content_type = response.headers.get(b"Content-Type")
        kind = subresource_type(content_type)
        if kind is None:
            return response
        media = content_type.decode("latin-1").split(";", 1)[0].strip() if content_type else ""
        self.stats.inc_value("walsh/scope/subresource_responses_dropped")
        refuse(
            self.crawler,
            OutOfScope(
                SUBRESOURCE,
                f"the answer is {media} ({kind}): sub-resource bytes are dropped, never parsed or emitted (R6)",
                request.url,
                kind=kind,
                content_type=media,
            ),
        )
