"""The store's writes per request, counted (never timed). A real crawler with the
add-on, a real sqlite file, the real gates; sqlite's own trace callback counts statements."""

from __future__ import annotations

from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from scrapy_walsh import Addon
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.middlewares.frequency import AnsweredMiddleware, FrequencyMiddleware
from scrapy_walsh.policy.vocabulary import Namespace
from scrapy_walsh.store import open_crawl_store
from scrapy_walsh.store.sqlite import SqliteStore


def _crawler(tmp_path):
    return get_crawler(settings_dict={"ADDONS": {Addon: 500}, "WALSH_STATE_URI": f"sqlite:///{tmp_path}/s.sqlite3"})


def test_recording_a_fetch_is_one_transaction_without_its_own_fsync(tmp_path):
    """R8's record after the answer (the fetch time and who fetched it) replaces the claim made
    before the request, which is committed without its own fsync: the record is too, in one
    transaction (two fsynced ones before)."""
    crawler = _crawler(tmp_path)
    gate = FrequencyMiddleware.from_crawler(crawler)
    store = CrawlContext.of(crawler).get(open_crawl_store)
    request = Request("http://a.example/page/1")
    gate.process_request(request)
    before = dict(store.counts)
    response = HtmlResponse(request.url, body=b"<html></html>", request=request)
    gate.process_response(request, response)
    assert store.get(Namespace.FETCHED, "http://a.example/page/1")["lease"], "a lease until its callback is done"
    list(AnsweredMiddleware.from_crawler(crawler).process_spider_output(response, []))  # no items: done
    assert store.counts.get("transactions", 0) - before.get("transactions", 0) == 0
    assert store.counts.get("unsynced_transactions", 0) - before.get("unsynced_transactions", 0) == 1
    assert store.get(Namespace.FETCHED, "http://a.example/page/1") is not None
    assert store.get(Namespace.FETCHED_BY, "http://a.example/page/1")["spider"] == crawler.spidercls.name


def test_set_many_is_all_or_nothing_and_keeps_the_strongest_durability(tmp_path):
    store = SqliteStore(tmp_path / "s.sqlite3", "Walsh-Research")
    store.set_many([(Namespace.FETCHED, "u", 1.0), (Namespace.FETCHED_BY, "u", {"spider": "x"})], ttl=60)
    assert store.counts.get("unsynced_transactions") == 1 and store.counts.get("transactions", 0) == 1  # 1: the id
    # any namespace that must survive a power cut makes the whole transaction fsynced
    store.set_many([(Namespace.FETCHED, "v", 2.0), (Namespace.ROBOTS, "o", {"x": 1})])
    assert store.counts["transactions"] == 2
    assert store.get(Namespace.FETCHED, "u") == 1.0 and store.get(Namespace.ROBOTS, "o") == {"x": 1}


def test_a_run_of_unsynced_transactions_switches_the_sync_mode_once(tmp_path):
    """A reservation is BEGIN, SELECT, INSERT, COMMIT: the PRAGMA that drops its fsync is run
    when the mode changes, not twice per transaction."""
    store = SqliteStore(tmp_path / "s.sqlite3", "Walsh-Research")
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    for n in range(10):
        store.claim(Namespace.FETCHED, f"u{n}", 1.0, ttl=60)
    pragmas = [s for s in statements if s.upper().startswith("PRAGMA")]
    assert len(pragmas) == 1, pragmas
    assert len(statements) <= 10 * 4 + 1, statements
    # and a durable write after them is durable again
    store.set(Namespace.ROBOTS, "o", {"x": 1})
    assert [s for s in statements if s.upper().startswith("PRAGMA")][-1].upper() == "PRAGMA SYNCHRONOUS=FULL"
