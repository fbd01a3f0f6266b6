"""Progress of a long crawl, in the style of Scrapy's ``LogStats``.

Every ``WALSH_PROGRESS_INTERVAL`` seconds (0: never) one line from the logger
``scrapy_walsh.outputs.progress`` says how many targets were answered, refused and are left, and how
long the rest takes at least by the pacing bound (R4); the same figures are the
``walsh/progress/*`` stats. It costs O(hosts) once per interval, never per request.
docs/records-and-progress.md says how to read it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import create_looping_call

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.outputs import typed_command
from scrapy_walsh.outputs.made_by import LOOKING
from scrapy_walsh.outputs.summary import DENIED
from scrapy_walsh.policy.pacing import time_left
from scrapy_walsh.sending import admission
from scrapy_walsh.sending.pacer import SharedPacer

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

DONE = "walsh/progress/done"
REFUSED = "walsh/progress/refused"
LEFT = "walsh/progress/left"
SECONDS_LEFT = "walsh/progress/seconds_left"


def duration(seconds: float) -> str:
    """``1h 02m 05s``, ``2m 05s``, ``5s``: how a person reads a time left."""
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m {secs:02d}s"
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


class Progress:
    def __init__(self, crawler: Crawler):
        assert crawler.stats is not None
        self.crawler = crawler
        self.stats = crawler.stats
        self.interval = 0.0
        self.done = 0
        self.done_before = 0
        self.in_downloader = 0
        self.task: Any = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Progress:
        if typed_command.command() in LOOKING:
            raise NotConfigured  # a person looking at one page, as Scrapy's LogStats is off there
        progress = cls(crawler)
        for handler, signal in progress._counted():
            crawler.signals.connect(handler, signal=signal)
        crawler.signals.connect(progress.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(progress.spider_closed, signal=signals.spider_closed)
        return progress

    def response_received(self, response: Any, request: Request, spider: Spider | None = None) -> None:
        if admission.own_fetch_kind(request) is None:  # robots.txt, the blocklist: not targets
            self.done += 1

    def request_reached(self, request: Request, spider: Spider | None = None) -> None:
        if admission.own_fetch_kind(request) is None:
            self.in_downloader += 1  # out of the scheduler, not answered yet: still left

    def request_left(self, request: Request, spider: Spider | None = None) -> None:
        if admission.own_fetch_kind(request) is None:
            self.in_downloader -= 1

    def spider_opened(self, spider: Spider) -> None:
        # read here, not when built: the audit (an extension too) has configured the crawl by now
        context = CrawlContext.of(self.crawler)
        self.interval = 0.0 if context.dry_run else context.config.progress_interval
        if self.interval:
            self.task = create_looping_call(self.log)
            self.task.start(self.interval, now=False)
        else:  # nothing is logged or measured: no count per request (a dry run's 60,000 targets)
            for handler, signal in self._counted():
                self.crawler.signals.disconnect(handler, signal=signal)

    def _counted(self) -> tuple[tuple[Any, Any], ...]:
        return (
            (self.response_received, signals.response_received),
            (self.request_reached, signals.request_reached_downloader),
            (self.request_left, signals.request_left_downloader),
        )

    def spider_closed(self, spider: Spider, reason: str) -> None:
        if self.task is None:
            return  # switched off (WALSH_PROGRESS_INTERVAL = 0)
        if self.task.running:
            self.task.stop()
        self.measure()

    def measure(self) -> tuple[int, int, int, float]:
        """Targets done, refused and left, and the seconds left by the pacing bound (also the stats)."""
        pacer = CrawlContext.of(self.crawler).get(SharedPacer)
        hosts: dict[str, int] = {}
        for queue in list(pacer.queues):
            for host, waiting in queue.pqueues.items():
                hosts[host] = hosts.get(host, 0) + len(waiting)
        now = pacer.now()
        seconds = time_left(((pacer.ready_at(h), n, pacer.interval(h)) for h, n in hosts.items()), now)
        refused = int(self.stats.get_value(DENIED, 0))
        left = sum(hosts.values()) + max(self.in_downloader, 0)
        for key, value in ((DONE, self.done), (REFUSED, refused), (LEFT, left), (SECONDS_LEFT, round(seconds, 1))):
            self.stats.set_value(key, value)
        return self.done, refused, left, seconds

    def log(self) -> None:
        done, refused, left, seconds = self.measure()
        rate = (done - self.done_before) * 60.0 / self.interval
        self.done_before = done
        logger.info(
            "Targets: %(done)d done (at %(rate)d targets/min), %(refused)d refused, %(left)d left; "
            "%(time)s left at least by the pacing bound (R4)",
            {"done": done, "rate": rate, "refused": refused, "left": left, "time": duration(seconds)},
        )
