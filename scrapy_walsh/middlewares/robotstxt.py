"""``scrapy_walsh.RobotsTxtMiddleware``: a drop-in for Scrapy's, for projects without the add-on.

Every request that waits on an origin's robots.txt gets its outcome (:mod:`.once`), the fetch is
read the RFC 9309 way (:func:`~scrapy_walsh.policy.gates.robots_outcome`), kept per origin for at
most 24 h, and read up to the add-on's bound; Scrapy's settings, stats and signal keep their
meaning. docs/robotstxt-any-project.md says how to use it and what changes from Scrapy's.
"""

from __future__ import annotations

import logging
import time
import weakref
from typing import TYPE_CHECKING

import scrapy
from packaging.version import Version
from scrapy import signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Request
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.misc import build_from_crawler, load_object

from scrapy_walsh.exceptions import RobotsTxtForbidden
from scrapy_walsh.middlewares.bounds import CUT, ReadUpTo
from scrapy_walsh.middlewares.once import OncePerKey
from scrapy_walsh.middlewares.robots_gate import UNREACHABLE_RECHECK, origin_of
from scrapy_walsh.middlewares.robots_parser import RobotParser
from scrapy_walsh.policy.bounds import ROBOTS_BYTES
from scrapy_walsh.policy.gates import (
    AVAILABLE,
    MAX_CACHE_SECONDS,
    UNREACHABLE,
    OriginRobots,
    RobotsFetch,
    robots_outcome,
    shown_origin,
)
from scrapy_walsh.sending.request_meta import request_parts

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.robotstxt import RobotParser as ScrapyRobotParser
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: Requests refused because their origin's robots.txt is unreachable (RFC 9309 §2.3.1.4).
UNREACHABLE_STAT = "walsh/robotstxt/unreachable"
#: The newest Scrapy measured to let waiting requests through unchecked (2.19.0). Later releases are presumed
#: affected until tests/e2e/test_robotstxt_dropin.py's baseline shows a fix; then set
#: this to the last leaking release.
FIXED_IN: str | None = None


def stock_middleware_leaks() -> str | None:
    """The installed Scrapy's version when its ``RobotsTxtMiddleware`` lets requests that wait on robots.txt through
    (every version up to :data:`FIXED_IN`, excluded), else None."""
    version = scrapy.__version__
    if FIXED_IN is not None and Version(version) >= Version(FIXED_IN):
        return None
    return version


class RobotsTxtMiddleware:
    DOWNLOAD_PRIORITY: int = 1000

    def __init__(self, crawler: Crawler):
        if not crawler.settings.getbool("ROBOTSTXT_OBEY"):
            raise NotConfigured
        assert crawler.stats is not None
        self.crawler = crawler
        self._stats = crawler.stats
        self._default_useragent: str = crawler.settings["USER_AGENT"]
        self._robotstxt_useragent: str | None = crawler.settings["ROBOTSTXT_USER_AGENT"]
        self._parserimpl: type[ScrapyRobotParser] = load_object(crawler.settings.get("ROBOTSTXT_PARSER"))
        build_from_crawler(self._parserimpl, crawler, b"")  # fails now if the parser can't load
        #: each origin's outcome, and its parser when robots.txt was available
        self._parsers: dict[str, tuple[OriginRobots, ScrapyRobotParser | None]] = {}
        self._fetches: OncePerKey[tuple[OriginRobots, ScrapyRobotParser | None]] = OncePerKey()
        #: this middleware's robots.txt requests, read up to ROBOTS_BYTES
        self._robots_requests: weakref.WeakSet[Request] = weakref.WeakSet()
        self._read = ReadUpTo()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        middleware = cls(crawler)
        crawler.signals.connect(middleware.bytes_received, signal=signals.bytes_received)
        return middleware

    def bytes_received(self, data: bytes, request: Request, spider: Spider | None = None) -> None:
        if request not in self._robots_requests:
            return
        # The handler read its size bound (0: none) when the headers came; from here on the
        # bound is Scrapy's decompression's, so a compressed robots.txt decodes to at most this.
        request.meta["download_maxsize"] = ROBOTS_BYTES
        self._read.received(request, data, ROBOTS_BYTES)

    async def process_request(self, request: Request, spider: Spider | None = None) -> None:
        if request.meta.get("dont_obey_robotstxt"):
            return
        if request_parts(request).scheme not in ("http", "https"):
            return  # data:, file:, ...: no robots.txt
        outcome, parser = await self.robot_parser(request)
        if outcome.outcome == UNREACHABLE:
            self._stats.inc_value(UNREACHABLE_STAT)
            logger.debug(
                "Forbidden because robots.txt is unreachable (%(reason)s): %(request)s",
                {"reason": outcome.reason, "request": request},
                extra={"spider": self.crawler.spider},
            )
            raise RobotsTxtForbidden(f"robots.txt of {shown_origin(outcome.origin)} is unreachable ({outcome.reason})")
        if parser is None:
            return  # 4xx, too many redirects: no robots.txt, nothing is disallowed
        useragent: str | bytes | None = self._robotstxt_useragent
        if not useragent:
            useragent = request.headers.get(b"User-Agent", self._default_useragent)
            assert useragent is not None
        if not parser.allowed(request.url, useragent):
            logger.debug(
                "Forbidden by robots.txt: %(request)s", {"request": request}, extra={"spider": self.crawler.spider}
            )
            self._stats.inc_value("robotstxt/forbidden")
            raise RobotsTxtForbidden("Forbidden by robots.txt")

    async def robot_parser(self, request: Request) -> tuple[OriginRobots, ScrapyRobotParser | None]:
        """This origin's outcome and parser: fetched by the first request, awaited by the others."""
        origin = origin_of(request)
        known = self._parsers.get(origin)
        if known is not None and not _expired(known[0]):
            return known
        return await self._fetches.run(origin, lambda: self._fetch(origin, request))

    async def _fetch(self, origin: str, request: Request) -> tuple[OriginRobots, ScrapyRobotParser | None]:
        url = request_parts(request)
        robotsreq = Request(
            f"{url.scheme}://{url.netloc}/robots.txt",
            priority=self.DOWNLOAD_PRIORITY,
            # no size bound at the handler: a longer file is read up to ROBOTS_BYTES, not refused
            meta={"dont_obey_robotstxt": True, "download_maxsize": 0},
            callback=NO_CALLBACK,
        )
        self._robots_requests.add(robotsreq)
        now = time.time()
        try:
            assert self.crawler.engine is not None
            response = await self.crawler.engine.download_async(robotsreq)
        except Exception as exc:
            if not isinstance(exc, IgnoreRequest):
                logger.error(
                    "Error downloading %(request)s: %(f_exception)s",
                    {"request": robotsreq, "f_exception": exc},
                    exc_info=True,
                    extra={"spider": self.crawler.spider},
                )
                self._stats.inc_value(f"robotstxt/exception_count/{type(exc)}")
            outcome = robots_outcome(origin, RobotsFetch(error=f"{type(exc).__name__}: {exc}"), now)
            parser = None
        else:
            if "download_stopped" in response.flags:
                self._stats.inc_value(CUT + "robots")
                logger.info(
                    "%s: read up to its bound of %d bytes (the rest is not read)",
                    robotsreq.url,
                    ROBOTS_BYTES,
                    extra={"spider": self.crawler.spider},
                )
            self._stats.inc_value("robotstxt/response_count")
            self._stats.inc_value(f"robotstxt/response_status_count/{response.status}")
            fetch = RobotsFetch(response.status, response.body, b"Location" in response.headers)
            outcome = robots_outcome(origin, fetch, now)
            parser = None
            if outcome.outcome == AVAILABLE:
                parser = self._parser(outcome, response.body)
                await self.crawler.signals.send_catch_log_async(
                    signal=signals.robots_parsed, robotparser=parser, request=request
                )
        self._read.done(robotsreq)
        self._stats.inc_value("robotstxt/request_count")
        self._parsers[origin] = (outcome, parser)
        return outcome, parser

    def _parser(self, outcome: OriginRobots, body: bytes) -> ScrapyRobotParser:
        """``ROBOTSTXT_PARSER`` on the body; ours reuses the file the outcome already parsed."""
        if issubclass(self._parserimpl, RobotParser) and outcome.robots is not None:
            return self._parserimpl(outcome.robots)
        return build_from_crawler(self._parserimpl, self.crawler, body)


def _expired(outcome: OriginRobots) -> bool:
    age = time.time() - outcome.checked_at
    return age >= (UNREACHABLE_RECHECK if outcome.outcome == UNREACHABLE else MAX_CACHE_SECONDS)
