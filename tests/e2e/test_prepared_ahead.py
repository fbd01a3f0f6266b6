"""The next request is prepared while one is on the network, robots.txt fetches included.

The checkpoint's lock lets one request on the network at a time; the downloader holds the next
ones, their gates passed, at that lock. A page whose origin's robots.txt is being fetched waits in
the downloader for the fetch, so with two places the fetch and that page took both, nothing was
prepared behind the fetch, and after its answer the network sat idle while the next request's
gates ran. The preset's third place keeps one prepared: counted at the checkpoint
(``walsh/checkpoint/next_prepared/<kind>``), and still one request on the network at a time as
the server saw it."""

from __future__ import annotations

import pytest

from tests.e2e.test_crash_state import crawl_once
from tests.helpers import CLOCK_TOLERANCE, stat


def test_a_request_waits_prepared_behind_each_robots_txt_fetch(tmp_path):
    hosts = 12
    # 100 ms answers: time enough for the next request's gates while one is answered
    seen, log = crawl_once(tmp_path, hosts, 1, latency=0.1)
    assert sum(r["path"] == "/robots.txt" for r in seen) == hosts
    assert sum(r["path"] != "/robots.txt" for r in seen) == hosts
    # one on the network at a time: each request arrived after the previous one was answered
    for before, after in zip(seen, seen[1:]):
        assert after["at"] - before["at"] >= 0.1 - CLOCK_TOLERANCE, (before, after)
    by_host: dict[str, list[float]] = {}
    for record in seen:
        by_host.setdefault(record["host"], []).append(record["at"])
    assert all(b - a >= 1.0 - CLOCK_TOLERANCE for a, b in by_host.values()), "each host keeps its floor"
    assert stat(log, "walsh/requests/max_in_flight") == 1
    # the robots.txt fetches come first, one per host, each with the next host's fetch prepared
    prepared = stat(log, "walsh/checkpoint/next_prepared/robots", 0)
    assert prepared >= hosts // 2, f"{prepared} of {hosts} robots.txt answers found the next request prepared"


SLOW = """
import time


def _work():
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        pass


class SlowResponses:
    # a downloader middleware that holds the crawl's one thread: 0.3 s of work per page's answer
    def process_response(self, request, response, spider=None):
        if not request.url.endswith("/robots.txt"):
            _work()
        return response


class SlowItems:
    # an item pipeline as slow
    def process_item(self, item, spider=None):
        _work()
        return item
"""


@pytest.mark.parametrize(
    "where",
    [
        'DOWNLOADER_MIDDLEWARES = {"crashproj.slow.SlowResponses": 650}',
        'ITEM_PIPELINES = {"crashproj.slow.SlowItems": 100}',
    ],
    ids=["downloader middleware", "item pipeline"],
)
def test_what_scrapy_does_with_an_answer_runs_while_the_next_request_is_on_the_wire(tmp_path, where):
    """An answer that ends with the next request prepared is handed on to Scrapy once that request
    is written: a middleware or a pipeline that takes 0.3 s per page delays no request, as the
    server sees it (a middleware's work ran between the answer and the next request before)."""
    hosts, latency = 6, 0.5
    # a connection per request, as on the web at scale: its connect takes turns of the reactor,
    # which the work on the last answer held before
    settings = f'{where}\nDEFAULT_REQUEST_HEADERS = {{"Connection": "close"}}\n'
    seen, log = crawl_once(tmp_path, hosts, 1, latency=latency, modules={"slow": SLOW}, settings=settings)
    pages = [r for r in seen if r["path"] != "/robots.txt"]
    assert len(pages) == hosts and stat(log, "item_scraped_count") == hosts
    # from one page's answer (latency s after its arrival) to the next page's arrival
    gaps = [round(b["at"] - a["at"] - latency, 3) for a, b in zip(pages, pages[1:])]
    assert max(gaps) < 0.15, f"answer to next request, s: {gaps}"
    assert stat(log, "walsh/requests/max_in_flight") == 1
    for before, after in zip(seen, seen[1:]):
        assert after["at"] - before["at"] >= latency - CLOCK_TOLERANCE, (before, after)
