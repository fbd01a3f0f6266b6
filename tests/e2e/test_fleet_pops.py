"""In a fleet, the queue's pops read no host the last reservation read ahead, however many pops
follow it. The downloader's places (three) take up to two pops between two reservations; the
read-ahead served only the first, so the second read its candidates in a round trip of its own."""

from __future__ import annotations

from scrapy import Request
from scrapy.utils.test import get_crawler

from scrapy_walsh import Addon
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.queue import PolitenessAwarePriorityQueue
from scrapy_walsh.shared_pacer import SharedPacer


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
