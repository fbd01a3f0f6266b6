"""R1: every request leaves with exactly ``WALSH_USER_AGENT``.

Scrapy's ``UserAgentMiddleware`` only *defaults* the header, so a spider's
``user_agent`` attribute, a request's own header or a UA-rotation middleware would
win. This middleware sits after every built-in downloader middleware (priority
:data:`PRIORITY`): robots.txt, blocklist and llms.txt fetches, retries and redirects all
pass through it like any request. A user middleware placed after it is overruled by the
checkpoint before the network (``scrapy_walsh.checkpoint``), which sets the header again.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)

#: Past every built-in downloader middleware (the highest is 900) and any usual user one.
PRIORITY = 10_000


class IdentityMiddleware:
    def __init__(self, user_agent: str, stats: StatsCollector):
        self.user_agent = user_agent
        self._header = user_agent.encode("ascii", "strict")
        self.stats = stats
        self._logged = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> IdentityMiddleware:
        assert crawler.stats is not None
        from ..config import config_for

        return cls(config_for(crawler).user_agent, crawler.stats)

    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        sent = request.headers.getlist(b"User-Agent")
        if sent == [self._header]:
            return None
        if sent:
            self.stats.inc_value("walsh/identity/ua_overridden")
            if not self._logged:
                self._logged = True
                logger.warning(
                    "R1: replaced User-Agent %r with %r on %s; every further override "
                    "is counted in walsh/identity/ua_overridden, not logged",
                    b", ".join(sent).decode("latin-1"),
                    self.user_agent,
                    request.url,
                )
        request.headers[b"User-Agent"] = self._header
        return None
