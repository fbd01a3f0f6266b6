"""A long ``start()`` never holds the reactor: timers and answers are read while it is consumed.

Scrapy reads ``start()`` in one loop while the downloader is full, and a spider whose start
never awaits anything gives the reactor no turn until the last request is scheduled (about a
quarter of a millisecond each with the add-on's middlewares and queue). With 100,000 targets that
was most of a minute: the operator list's fetch, answered at once, was read after its download
timeout, its host rested ten minutes, and R3 held every request for the list.

A probe in the project (a ``LoopingCall`` every 20 ms, started when the spider opens) records the
longest time the reactor went without running it."""

from __future__ import annotations

import re

from tests.e2e.test_crash_state import crawl_once
from tests.helpers import CLOCK_TOLERANCE

PROBE = '''
import time

from scrapy import signals
from twisted.internet import task


class ReactorLag:
    """The longest the reactor went without a turn, from the spider's opening to its close."""

    def __init__(self, crawler):
        self.crawler = crawler
        self.worst = 0.0
        crawler.signals.connect(self.opened, signals.spider_opened)
        crawler.signals.connect(self.closed, signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def opened(self, spider):
        self.last = time.monotonic()
        self.loop = task.LoopingCall(self.tick)
        self.loop.start(0.02, now=False)

    def tick(self):
        now = time.monotonic()
        self.worst = max(self.worst, now - self.last)
        self.last = now

    def closed(self, spider, reason):
        self.tick()
        self.loop.stop()
        self.crawler.stats.set_value("probe/reactor_worst_ms", round(self.worst * 1000))
'''


def test_a_start_of_20000_requests_leaves_the_reactor_a_turn_every_few_milliseconds(tmp_path):
    seen, log = crawl_once(
        tmp_path,
        20000,
        1,
        modules={"lag": PROBE},
        settings='EXTENSIONS = {"crashproj.lag.ReactorLag": 0}\nCLOSESPIDER_ITEMCOUNT = 1\n',
    )
    assert any(r["path"].startswith("/page/") for r in seen), "the crawl reached the server"
    found = re.search(r"'probe/reactor_worst_ms': (\d+)", log)
    assert found, log[-3000:]
    # a turn every 20 ms asked; a second allows for a loaded machine, and the old loop held it for seconds
    assert int(found.group(1)) < 1000, f"the reactor went {found.group(1)} ms without a turn"


#: The read-ahead bound made small in the crawl's process (its settings module runs first).
AHEAD = 12
SMALL_AHEAD = f"import scrapy_walsh.discovery.start_guard as _guard\n_guard.HOSTS_AHEAD = {AHEAD}\n"


def test_the_start_is_read_only_while_few_hosts_wait_in_the_scheduler(tmp_path):
    """A start of one page on each of 100 hosts, with the read-ahead bound at 12 hosts: the server
    sees a host's first request (its robots.txt) only once all but about 12 of the hosts read before
    it were answered, so the start is never all in memory; and every page is fetched once, the whole
    start read, each host's page a full interval after its robots.txt."""
    hosts = 100
    seen, log = crawl_once(tmp_path, hosts, 1, settings=SMALL_AHEAD)
    pages = [r for r in seen if r["path"].startswith("/page/")]
    assert sorted(r["host"] for r in pages) == sorted(f"h{h:05d}.crash.test" for h in range(hosts)), log[-3000:]
    first: dict[str, float] = {}
    for r in seen:
        first.setdefault(r["host"], r["at"])
    # a host is read once fewer than AHEAD hosts wait in the scheduler; a host read earlier is still
    # waiting there, in the downloader (CONCURRENT_REQUESTS: 3) or answered
    ahead = []
    for k in range(hosts):
        arrived = first[f"h{k:05d}.crash.test"]
        answered = sum(r["at"] < arrived for r in pages)
        ahead.append(k - answered)
    print("hosts read ahead of the answers, at most:", max(ahead))
    assert max(ahead) <= AHEAD + 3, ahead
    for host in first:
        times = sorted(r["at"] for r in seen if r["host"] == host)
        assert all(b - a >= 1.0 - CLOCK_TOLERANCE for a, b in zip(times, times[1:])), (host, times)
