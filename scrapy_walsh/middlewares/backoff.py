"""R5: 429/503 pause the whole host, then the request is retried; Retry-After always wins.

The delay (:class:`scrapy_walsh.policy.backoff.Backoff`) is not slept here: it becomes the host's
"not before" time in the shared pacer, and the retry goes back to the scheduler, so every request
to that host waits while other hosts keep their pace. A request with no answer within
``DOWNLOAD_TIMEOUT`` is treated as a 503 whose pause grows with each timeout of the host in a row
(:func:`~scrapy_walsh.policy.backoff.timeout_rest`). docs/requirements/r5-backoff.md and
docs/architecture.md ("The modules, one by one") say why.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.exceptions import DownloadTimeoutError
from twisted.internet.error import TimeoutError as TwistedTimeoutError

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.policy.backoff import Backoff
from scrapy_walsh.policy.vocabulary import IntervalWhy, Meta
from scrapy_walsh.sending import admission
from scrapy_walsh.sending.pacer import SharedPacer
from scrapy_walsh.sending.request_meta import request_host

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

#: Just under Scrapy's RetryMiddleware (550): responses reach us first.
PRIORITY = 540
ATTEMPT = Meta.BACKOFF_ATTEMPT
#: What a server that never answers in time raises.
TIMEOUTS = (DownloadTimeoutError, TwistedTimeoutError)


class BackoffMiddleware:
    def __init__(self, crawler: Crawler, politeness: SharedPacer):
        assert crawler.stats is not None
        config = CrawlContext.of(crawler).config
        self.crawler = crawler
        self.stats = crawler.stats
        self.politeness = politeness
        self.codes = set(config.backoff_http_codes)
        self.policy = Backoff(
            base=config.backoff_base,
            max_delay=config.backoff_max_delay,
            max_retries=config.backoff_max_retries,
        )
        self.recheck = config.recheck_interval

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> BackoffMiddleware:
        return cls(crawler, CrawlContext.of(crawler).get(SharedPacer))

    def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Request | Response:
        if response.status not in self.codes:
            return response
        host = request_host(request)
        pacer = self.politeness.pacer
        attempt = request.meta.get(ATTEMPT, 0)
        now = pacer.clock()
        retry_after = [v.decode("latin-1") for v in response.headers.getlist(b"Retry-After")]
        decision = self.policy.decide(attempt, retry_after, now, pacer.interval(host))
        self.stats.inc_value("walsh/backoff/count")
        self.stats.inc_value(f"walsh/backoff/status/{response.status}")
        if decision.retry_after.problem:
            self.stats.inc_value("walsh/backoff/bad_retry_after")
            logger.warning("%s: %s; using the computed delay", request.url, decision.retry_after.problem)
        # The whole host rests, whatever happens to this request (the pacing gate refuses
        # requests whose host is paused beyond WALSH_BACKOFF_MAX_DELAY).
        if admission.own_fetch_kind(request) in admission.BLOCKLIST_KINDS:
            # the operator's list is refreshed on time: its gate applies this pause once it knows when
            self.politeness.list_host_asked(host, pause=decision.delay)
        else:
            told = IntervalWhy.RETRY_AFTER if decision.retry_after.seconds is not None else IntervalWhy.BACKOFF
            self.politeness.pause(host, now + decision.delay, told)
        self.stats.inc_value("walsh/backoff/paused_seconds", round(decision.delay, 3))  # type: ignore[arg-type]  # a float stat
        if not decision.retry:
            over = decision.delay > self.policy.max_delay
            self.stats.inc_value("walsh/backoff/gave_up_retry_after" if over else "walsh/backoff/gave_up")
            logger.warning(
                "Giving up on %s after %d attempt(s): HTTP %s, %s",
                request.url,
                attempt + 1,
                response.status,
                decision.reason,
            )
            return response
        if request.meta.get("dont_retry") or admission.not_retried(request):
            logger.info(
                "%s answered %s: %s paused for %.1f s (%s); not retried here",
                request.url,
                response.status,
                host,
                decision.delay,
                decision.reason,
            )
            return response
        self.stats.inc_value("walsh/backoff/retries")
        logger.info(
            "%s answered %s: %s paused for %.1f s (%s), retry %d of %d",
            request.url,
            response.status,
            host,
            decision.delay,
            decision.reason,
            attempt + 1,
            self.policy.max_retries,
        )
        return self._retry(request, attempt)

    def process_exception(self, request: Request, exception: Exception, spider: Spider | None = None) -> Request | None:
        """A timeout: the host rests (at least the recheck interval); the request is retried after."""
        if not isinstance(exception, TIMEOUTS):
            return None
        host = request_host(request)
        pacer = self.politeness.pacer
        attempt = request.meta.get(ATTEMPT, 0)
        pace = pacer.pace(host)
        pace.timeouts += 1  # written with the pause below; an answer resets it (SharedPacer.settle)
        decision = self.policy.after_timeout(attempt, pacer.interval(host), self.recheck, streak=pace.timeouts)
        self.politeness.pause(host, pacer.clock() + decision.delay, IntervalWhy.TIMEOUT_REST)
        self.stats.inc_value("walsh/backoff/count")
        self.stats.inc_value("walsh/backoff/timeout")
        self.stats.inc_value("walsh/backoff/paused_seconds", round(decision.delay, 3))  # type: ignore[arg-type]  # a float stat
        # no own fetch is retried after a timeout, a manifest either: discovery reads the manifests before
        # any target is yielded, so waiting out this rest would hold every host's targets as long
        if not decision.retry or request.meta.get("dont_retry") or admission.own_fetch_kind(request) is not None:
            if not decision.retry:
                self.stats.inc_value("walsh/backoff/gave_up")
            logger.warning("%s: %s; %s", request.url, exception, decision.reason)
            return None
        self.stats.inc_value("walsh/backoff/retries")
        logger.warning(
            "%s: %s; %s, retry %d of %d", request.url, exception, decision.reason, attempt + 1, self.policy.max_retries
        )
        return self._retry(request, attempt)

    @staticmethod
    def _retry(request: Request, attempt: int) -> Request:
        retry = admission.carry(request, request.copy())  # the same fetch: it keeps its R8 claim
        retry.meta[ATTEMPT] = attempt + 1
        retry.dont_filter = True
        return retry
