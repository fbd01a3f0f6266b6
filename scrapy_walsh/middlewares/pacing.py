"""R4: per-host spacing from our own ledger, as late as possible before the network.

Each request to a host starts at least ``max(WALSH_MIN_INTERVAL, Crawl-delay, Request-rate,
adaptive delay)`` after the previous one's send or answer, whichever is later. This middleware's
check is the early, advisory one: it waits, or requeues when another host is ready sooner; the
checkpoint reserves the slot. A host whose Crawl-delay exceeds ``WALSH_MAX_CRAWL_DELAY`` is
refused. docs/requirements/r4-pacing.md and docs/architecture.md ("The modules, one by one")
say why.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.exceptions import IgnoreRequest

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.exceptions import (
    CrawlClosing,
    CrawlDelayExceedsCap,
    CrawlStopping,
    DecisionStale,
    HostPaused,
    NotYourTurn,
    refuse,
)
from scrapy_walsh.policy.pacing import asked_ratelimit
from scrapy_walsh.policy.vocabulary import CRAWL_DELAY_EXCEEDS_CAP, HOST_PAUSED_BEYOND_MAX_DELAY, IntervalWhy
from scrapy_walsh.sending import admission
from scrapy_walsh.sending.decision_inputs import PACE, Generations
from scrapy_walsh.sending.pacer import SharedPacer, back_to_scheduler
from scrapy_walsh.sending.request_meta import request_host
from scrapy_walsh.store import StateStoreError, StoreUnavailable
from scrapy_walsh.store.waiting import closing, rest, unsent

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

#: After Scrapy's own middlewares (redirect 600, retry 550, cookies 700 ...).
PRIORITY = 9000
#: R5: the host's Retry-After pause ends beyond WALSH_BACKOFF_MAX_DELAY.
HOST_PAUSED = HOST_PAUSED_BEYOND_MAX_DELAY
#: Seconds a request that found the state store unavailable waits before it goes back to
#: the scheduler (the reactor runs meanwhile).
STORE_RETRY = 1.0
#: Scrapy's downloader slot for a dry run's targets (``scrapy walsh plan`` and ``explain``).
DRY_RUN_SLOT = "walsh dry run"


def _header_lines(response: Response) -> list[tuple[bytes, bytes]]:
    return [(name, value) for name, values in response.headers.items() for value in values]


class PacingMiddleware:
    def __init__(self, crawler: Crawler, politeness: SharedPacer):
        assert crawler.stats is not None
        self.crawler = crawler
        self.stats = crawler.stats
        self.politeness = politeness
        self.pacer = politeness.pacer
        self.generations = CrawlContext.of(crawler).get(Generations)
        self._capped: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PacingMiddleware:
        return cls(crawler, CrawlContext.of(crawler).get(SharedPacer))

    async def process_request(self, request: Request, spider: Spider | None = None) -> Request | None:
        host = request_host(request)
        # Scrapy's own slot (DOWNLOAD_DELAY, a second, coarser pacer) follows the same host,
        # not the host a redirect came from.
        request.meta["download_slot"] = host
        if admission.own_fetch_kind(request) is None and CrawlContext.of(self.crawler).dry_run:
            # explain's and plan's targets are never sent: Scrapy's slot would space them a
            # DOWNLOAD_DELAY apart for nothing (a 60,000-URL plan, 17 hours)
            request.meta["download_slot"] = self._dry_run_slot()
        self._check_cap(request, host)
        while wait := self._wait(host):  # 0 once the slot looks free (the checkpoint reserves it)
            if self.politeness.mend(host, wait):
                continue  # a clock step had left the host's times ahead: ask again
            self._refuse_beyond_max_pause(request, host, wait)
            if admission.own_fetch_kind(request) is None and CrawlContext.of(self.crawler).dry_run:
                break  # explain: the checkpoint reads the wait, nothing waits for a request never sent
            if (copy := self.politeness.requeue(self.stats, request, host)) is not None:
                return copy
            # then ask again: another process may take the slot first, or a pause arrive
            self.stats.inc_value("walsh/pacing/wait_seconds", wait)  # type: ignore[arg-type]  # a float stat
            self.politeness.announce_wait(host, wait)
            if not await rest(self.crawler, wait):
                raise unsent(self.crawler, request.url)
        self.stats.set_value(f"walsh/pacing/interval/{host}", round(self.pacer.interval(host), 3))
        # a pause of the host from now until the send is read again at the checkpoint
        self.generations.note(request, PACE, self.politeness.key(host))
        return None

    def _dry_run_slot(self) -> str:
        """The downloader slot of the targets a dry run evaluates: no delay, as the checkpoint sends nothing."""
        downloader = getattr(self.crawler.engine, "downloader", None)
        if downloader is not None:
            downloader.per_slot_settings.setdefault(DRY_RUN_SLOT, {"delay": 0.0, "randomize_delay": False})
        return DRY_RUN_SLOT

    def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        host = request_host(request)
        if self.pacer.seen(host):
            self.politeness.settle(host)  # the next interval counts from the answer
        if admission.own_fetch_kind(request) in admission.BLOCKLIST_KINDS:
            # the operator's list is refreshed on time: its gate applies this pace once it knows when
            if (asked := asked_ratelimit(_header_lines(response))) is not None:
                self.politeness.list_host_asked(host, ratelimit=asked)
        elif (asked := self.pacer.follow_ratelimit(host, _header_lines(response))) is not None:
            self.politeness.pause(host, self.politeness.now() + asked, IntervalWhy.RATELIMIT)  # fleet-wide
        latency = request.meta.get("download_latency")
        if latency is not None:
            # 429 and 503 belong to backoff (R5); other 5xx slow the host down here
            self.pacer.observe(host, float(latency), ok=response.status < 500 or response.status == 503)
        return response

    def _refuse_beyond_max_pause(self, request: Request, host: str, wait: float) -> None:
        """R5: a host (or an address it resolves to) paused longer than ``WALSH_BACKOFF_MAX_DELAY``
        is not waited for: the request is refused (``host_paused_beyond_max_delay``)."""
        if wait <= self.politeness.max_pause:
            return
        refuse(
            self.crawler,
            HostPaused(
                HOST_PAUSED,
                f"{host} asked us (Retry-After) to stay away for {wait:.0f} s more, "
                f"over WALSH_BACKOFF_MAX_DELAY {self.politeness.max_pause:.0f} s",
                request.url,
            ),
        )

    def _wait(self, host: str) -> float:
        """Advice: how long until ``host``'s slot is free, from the local copy of the ledger
        (the queue refreshed it when it chose the host; nothing is taken here, and no round
        trip is spent: when another process took the slot since, the checkpoint's reservation
        says so with ``NotYourTurn`` and the exact wait)."""
        return max(0.0, self.pacer.ready_at(host) - self.politeness.now())

    async def process_exception(
        self, request: Request, exception: Exception, spider: Spider | None = None
    ) -> Request | None:
        if isinstance(exception, CrawlStopping):
            # a gate's wait ended at the stop, or the checkpoint met it: a target goes back to the
            # scheduler, with the requests a graceful stop leaves there; an own fetch is dropped
            return None if admission.own_fetch_kind(request) is not None else back_to_scheduler(request)
        if isinstance(exception, StoreUnavailable):
            return await self._store_unavailable(request, exception)
        if isinstance(exception, StateStoreError):  # the store's failure stops the crawl (open_crawl_store)
            self.stats.inc_value("walsh/store/failed_unsent")
            raise CrawlClosing(f"not sent: {exception}")
        if isinstance(exception, NotYourTurn):
            return await self._not_your_turn(request, exception)
        host = request_host(request)
        if self.pacer.seen(host) and not isinstance(exception, IgnoreRequest):  # a refusal sent nothing
            self.politeness.settle(host, answered=False)
            if admission.own_fetch_kind(request) not in admission.BLOCKLIST_KINDS:
                # the list's own failed fetch is retried on the list's schedule, not slowed down from
                # run to run: a host that can't be reached never delays the targets' start
                self.pacer.observe(host, 0.0, ok=False)
        return None

    async def _not_your_turn(self, request: Request, exc: NotYourTurn) -> Request:
        """The checkpoint found the slot taken (another process, an internal fetch or an
        ``engine.download`` got there first): nothing was sent. Wait, or give the download
        slot to a host that is ready sooner, then the request walks the gates again. A wait
        beyond ``WALSH_BACKOFF_MAX_DELAY`` is refused as at the gate (a pause the local copy did
        not know: on an address a process pacing by address paused). A stale decision
        (:class:`DecisionStale`) walks the gates again at once."""
        if isinstance(exc, DecisionStale) or self.politeness.mend(exc.host, exc.wait):
            # stale, or a clock step had left the host's times ahead (mended): walk the gates again
            return request if admission.own_fetch_kind(request) is not None else back_to_scheduler(request)
        self._refuse_beyond_max_pause(request, exc.host, exc.wait)
        if (copy := self.politeness.requeue(self.stats, request, exc.host)) is not None:
            return copy
        self.stats.inc_value("walsh/pacing/wait_seconds", exc.wait)  # type: ignore[arg-type]  # a float stat
        self.politeness.announce_wait(exc.host, exc.wait)
        if not await rest(self.crawler, exc.wait):
            raise unsent(self.crawler, request.url)
        if admission.own_fetch_kind(request) is not None:
            return request  # engine.download_async downloads it again as is (no scheduler)
        return back_to_scheduler(request)

    async def _store_unavailable(self, request: Request, exc: StoreUnavailable) -> Request:
        """Nothing was sent (a gate or the reservation could not reach the store): back to
        the scheduler after a wait the reactor is free during, or dropped once the crawl
        is stopping."""
        if not closing(self.crawler):
            self.stats.inc_value("walsh/store/unavailable")
            if await rest(self.crawler, STORE_RETRY):
                return back_to_scheduler(request)
        self.stats.inc_value("walsh/store/dropped_unsent")
        raise CrawlClosing(f"not sent: the crawl is stopping and {exc}")

    def _check_cap(self, request: Request, host: str) -> None:
        delay = self.politeness.capped_delay(host)
        if delay is None:
            return
        if host not in self._capped:
            self._capped.add(host)
            self.stats.inc_value("walsh/pacing/capped_hosts")
            logger.warning(
                "%s asks for Crawl-delay %s s, over WALSH_MAX_CRAWL_DELAY=%s s: "
                "the host is not crawled (R4 cap; never clamped)",
                host,
                delay,
                self.politeness.cap,
            )
        refuse(
            self.crawler,
            CrawlDelayExceedsCap(
                CRAWL_DELAY_EXCEEDS_CAP,
                f"Crawl-delay {delay} s exceeds WALSH_MAX_CRAWL_DELAY {self.politeness.cap} s",
                request.url,
                crawl_delay=delay,
            ),
        )
