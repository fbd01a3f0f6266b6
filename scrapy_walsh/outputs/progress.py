"""Progress of a crawl, in the style of Scrapy's ``LogStats``.

After :data:`FIRST` seconds, then every ``WALSH_PROGRESS_INTERVAL`` seconds (0: never), one line
from the logger ``scrapy_walsh.outputs.progress`` says how many targets were answered, refused and
are left, and how long the rest takes at least by the pacing bound (R4), or, while discovery reads
manifests, how many of them; the same figures are the ``walsh/progress/*`` stats. It costs O(hosts)
once per line, never per request. docs/records-and-progress.md says how to read it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import call_later, create_looping_call

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
#: Seconds to the first line, when the interval is longer: a short crawl says something too.
FIRST = 10.0


class ManifestReading:
    """The manifests discovery reads (it fills this in): until they are read, the line says so."""

    def __init__(self, crawler: Crawler | None = None):
        self.reading = False
        #: the sites whose manifests are read
        self.sites = 0
        #: manifests read, and listed to be read, on the sites begun so far
        self.known = 0
        self.read = 0


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


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
        self.first: Any = None
        #: seconds since the last line (the first comes after FIRST s)
        self.since = 0.0

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
            self.since = min(FIRST, self.interval)
            if self.since < self.interval:
                self.first = call_later(self.since, self._first)
            else:
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
        if self.first is not None:
            self.first.cancel()
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

    def _first(self) -> None:
        self.first = None
        self.log()
        self.task.start(self.interval, now=False)

    def log(self) -> None:
        done, refused, left, seconds = self.measure()
        rate = (done - self.done_before) * 60.0 / self.since
        self.done_before, self.since = done, self.interval
        reading = CrawlContext.of(self.crawler).made(ManifestReading)
        if reading is not None and reading.reading:  # the time left is not known before they are read
            logger.info(
                "Targets: reading %(manifests)s of %(sites)s (%(read)d read); "
                "%(done)d done, %(refused)d refused, %(left)d left so far",
                {
                    "manifests": _plural(reading.known, "manifest") if reading.known else "the manifests",
                    "sites": _plural(reading.sites, "site"),
                    "read": reading.read,
                    "done": done,
                    "refused": refused,
                    "left": left,
                },
            )
            return
        logger.info(
            "Targets: %(done)d done (at %(rate)d targets/min), %(refused)d refused, %(left)d left; "
            "%(time)s left at least by the pacing bound (R4)",
            {"done": done, "rate": rate, "refused": refused, "left": left, "time": duration(seconds)},
        )
