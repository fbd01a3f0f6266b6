"""In a fleet, the queue's pops read no host the last reservation read ahead, however many pops
follow it. The downloader's places (three) take up to two pops between two reservations; the
read-ahead served only the first, so the second read its candidates in a round trip of its own."""

from __future__ import annotations

from scrapy import Request
from scrapy.utils.test import get_crawler

from scrapy_walsh import Addon
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.sending.pacer import SharedPacer
from scrapy_walsh.sending.queue import PolitenessAwarePriorityQueue


def test_the_pops_after_a_reservation_read_nothing_it_read_ahead(redis_server):
    from scrapy.squeues import FifoMemoryQueue

    crawler = get_crawler(settings_dict={"ADDONS": {Addon: 500}, "WALSH_STATE_URI": redis_server.url})
    crawler.engine = type("Engine", (), {"downloader": None})()  # DownloaderInterface only keeps it
    queue = PolitenessAwarePriorityQueue(crawler, FifoMemoryQueue, "")
    politeness = CrawlContext.of(crawler).get(SharedPacer)
    for h in range(40):
        queue.push(Request(f"http://h{h:02d}.fleet-pops.test/"))
    first = queue.pop()
    assert first is not None
    politeness.reserve(first.url.split("/")[2])  # reads the next pops' candidates in its round trip
    before = politeness.store.round_trips
    popped = [queue.pop(), queue.pop()]
    assert all(r is not None for r in popped)
    assert politeness.store.round_trips == before, "the two pops read again what the reservation read"


def test_a_pop_reads_no_host_an_earlier_pop_read_since_the_last_reservation(redis_server):
    """Pops with no reservation between them (a crawl's start, robots.txt's fetches under way, a
    busy machine's engine asking again and again) read each host once: the second read, a few
    milliseconds after the first, is no fresher, and the reservation still decides. Each pop read
    its candidates again: next to two busy loops 2 to 12 reads for 16 requests, 2 idle."""
    from scrapy.squeues import FifoMemoryQueue

    crawler = get_crawler(settings_dict={"ADDONS": {Addon: 500}, "WALSH_STATE_URI": redis_server.url})
    crawler.engine = type("Engine", (), {"downloader": None})()  # DownloaderInterface only keeps it
    queue = PolitenessAwarePriorityQueue(crawler, FifoMemoryQueue, "")
    politeness = CrawlContext.of(crawler).get(SharedPacer)
    for h in range(2):
        for page in range(3):
            queue.push(Request(f"http://h{h}.fleet-pops.test/{page}"))
    first = queue.pop()
    assert first is not None
    before = politeness.store.round_trips
    assert queue.pop() is not None
    assert politeness.store.round_trips == before, "the second pop read again what the first read"
