"""A request prepared while another is on the network is never sent on a decision gone stale.

The downloader holds the next request while one is on the network: it has passed the gates and
waits for the checkpoint's lock, or for its host's slot. What its gates read may change before it
is sent. Each case runs a real crawl of the demo site, the spider yielding its targets at set
times, and asserts on what the server saw: the request the change forbids never arrives.

* robots.txt refetched: the origin's robots.txt (cached 8 s) expires while a page it allowed
  waits for its host's Crawl-delay. The host's next page stays in the scheduler's queue until the
  waiting one has left the downloader (one request per host there, so a host's requests leave in
  their order): the waiting page goes on the verdict it was given while its copy was fresh, as it
  would without the overlap, and the next page fetches the new robots.txt, which disallows it.
  (The spider's pages cannot start a refetch while a page of their origin waits; the package's
  own manifest fetches, sent past the queue and gated by robots.txt, still can, and the counter
  that catches that is checked in ``tests/unit/test_generations.py``.)
* a pause: a slow 429 with a Retry-After beyond ``WALSH_BACKOFF_MAX_DELAY`` is on the network
  while the host's next page waits behind it in the host's download slot; that page reaches the
  checkpoint the moment the 429 arrives, before the backoff middleware has read it. The answer's
  settle, written under the lock, already keeps it off the host (its reservation finds the slot
  taken), and once the pause is read it is refused.
"""

from __future__ import annotations

import subprocess
import sys
import time

from tests.helpers import stat, write_spider

SPIDER = """
import asyncio

import scrapy


class TimedSpider(scrapy.Spider):
    name = "timed"

    async def start(self):
        self.answers, self.answered = 0, {{}}
        for after, seconds, url in self.plan:
            if after > self.answers:  # that many answers first: the timeline follows the server's pace
                await self.answered.setdefault(after, asyncio.Event()).wait()
            await asyncio.sleep(seconds)
            yield scrapy.Request(url, dont_filter=True)

    def parse(self, response):
        self.answers += 1
        self.answered.setdefault(self.answers, asyncio.Event()).set()
        yield {{"url": response.url, "status": response.status}}


TimedSpider.plan = {plan!r}
"""


def _crawl(project, plan):
    """Start the timed spider on ``plan``: (after this many answers, then seconds after the
    previous yield, URL), ..."""
    write_spider(project, "timed", SPIDER.format(plan=plan))
    return subprocess.Popen(
        [sys.executable, "-m", "scrapy", "crawl", "timed"],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _setting(project, text):
    settings = project / "plainproj" / "settings.py"
    settings.write_text(settings.read_text() + text)


def test_the_next_page_of_a_host_is_decided_on_the_robots_txt_fetched_after_the_waiting_one(project, demo_site):
    site = demo_site
    _setting(project, "\nWALSH_ROBOTS_CACHE_SECONDS = 8\n")
    site.override("open", "/robots.txt", 200, "User-agent: *\nCrawl-delay: 6\nAllow: /\n")
    plan = [
        (0, 0.0, site.url("open", "/page/1")),  # fetches robots.txt at t0; sent at t0 + 6
        (1, 0.5, site.url("open", "/page/2")),  # allowed by the first robots.txt; waits for t0 + 12
        (0, 2.5, site.url("open", "/page/3")),  # queued behind it; the first robots.txt expired at t0 + 8
    ]
    crawl = _crawl(project, plan)
    try:
        deadline = time.monotonic() + 60
        while not site.requests_for("open", path="/robots.txt"):
            assert time.monotonic() < deadline and crawl.poll() is None, "robots.txt was never fetched"
            time.sleep(0.02)
        site.override("open", "/robots.txt", 200, "User-agent: *\nCrawl-delay: 6\nDisallow: /page/3\n")
        _, log = crawl.communicate(timeout=120)
    finally:
        crawl.kill()
    assert crawl.returncode == 0, log[-3000:]
    paths = [r["path"] for r in site.requests_for("open")]
    assert paths == ["/robots.txt", "/page/1", "/page/2", "/robots.txt"], paths
    assert stat(log, "walsh/denied/robots/disallowed_explicit") == 1, log[-3000:]


def test_a_page_queued_behind_a_429_is_never_sent_before_the_pause_is_read(project, demo_site):
    site = demo_site
    busy = "/status/429?times=1&retry-after=7200&latency=4"
    plan = [
        (0, 0.0, site.url("busy", busy)),  # robots.txt at t0; sent at t0 + 1, answered at t0 + 5
        (0, 3.0, site.url("busy", "/page/2")),  # its slot is free from t0 + 2: it waits behind the 429
    ]
    crawl = _crawl(project, plan)
    try:
        _, log = crawl.communicate(timeout=120)
    finally:
        crawl.kill()
    assert crawl.returncode == 0, log[-3000:]
    paths = [r["path"] for r in site.requests_for("busy")]
    assert "/page/2" not in paths, paths
    assert paths.count(busy) == 1, paths
    assert "host_paused_beyond_max_delay" in log, log[-3000:]
