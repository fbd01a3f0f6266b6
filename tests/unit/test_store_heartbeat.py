"""A crawl's registration in the store (its heartbeat) and its end.

A real crawler with the add-on, a real sqlite file; the fault is real: another connection holds
sqlite's write lock (``BEGIN EXCLUSIVE``). sqlite's own trace callback says what the store ran.
"""

from __future__ import annotations

import sqlite3

import pytest
from scrapy import signals
from scrapy.utils.test import get_crawler

from scrapy_walsh import Addon
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.policy.vocabulary import Namespace
from scrapy_walsh.store import StateStoreError, open_crawl_store
from scrapy_walsh.store.sqlite import BUSY_TIMEOUT_MS


def _crawler(tmp_path):
    return get_crawler(settings_dict={"ADDONS": {Addon: 500}, "WALSH_STATE_URI": f"sqlite:///{tmp_path}/s.sqlite3"})


def test_a_crawl_unregisters_when_its_engine_stops(tmp_path):
    crawler = _crawler(tmp_path)
    store = CrawlContext.of(crawler).get(open_crawl_store)
    assert store.get(Namespace.CRAWLS, CrawlContext.of(crawler).crawl_id)["pid"]
    crawler.signals.send_catch_log(signal=signals.engine_stopped)
    check = sqlite3.connect(tmp_path / "s.sqlite3")
    rows = check.execute("SELECT key FROM walsh_state WHERE namespace=?", (str(Namespace.CRAWLS),)).fetchall()
    check.close()
    assert rows == []


def test_a_crawl_stopped_by_its_store_writes_nothing_more_when_its_engine_stops(tmp_path):
    """Unregistering would wait sqlite's whole busy timeout (10 s) for the lock that failed the
    store, holding the reactor while Scrapy closes its download handlers (whose 1 s timer then
    fires a Deferred already fired: AlreadyCalledError, a CRITICAL traceback). The record
    expires after HEARTBEAT_TTL instead."""
    crawler = _crawler(tmp_path)
    store = CrawlContext.of(crawler).get(open_crawl_store)
    store.on_failure = None  # the crawl's stopper closes a running engine; none runs here
    lock = sqlite3.connect(tmp_path / "s.sqlite3", isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")
    try:
        store._db.execute("PRAGMA busy_timeout=50")  # this write fails at once, not in 10 s
        with pytest.raises(StateStoreError, match="locked"):
            store.set(Namespace.ROBOTS, "o", {"x": 1})
        store._db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        statements: list[str] = []
        store._db.set_trace_callback(statements.append)
        crawler.signals.send_catch_log(signal=signals.engine_stopped)
        assert statements == []
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    check = sqlite3.connect(tmp_path / "s.sqlite3")
    rows = check.execute("SELECT key FROM walsh_state WHERE namespace=?", (str(Namespace.CRAWLS),)).fetchall()
    check.close()
    assert rows == [(CrawlContext.of(crawler).crawl_id,)]


def test_a_crawl_that_went_without_a_heartbeat_past_the_bound_checks_its_leases(monkeypatch):
    """A crawl frozen (or cut off from the store) for longer than the lease bound may have had
    its R8 leases taken over elsewhere: from then on the checkpoint checks each one before its
    request is sent, for the rest of the crawl (which leases lapsed is not known)."""
    from scrapy_walsh.store import leases

    clock = [1000.0]
    monkeypatch.setattr(leases.time, "monotonic", lambda: clock[0])
    leases.beaten("lapsing")
    clock[0] += leases.HEARTBEAT
    leases.beaten("lapsing")
    assert not leases.may_have_lapsed("lapsing")
    clock[0] += leases.LAPSE - 1
    assert not leases.may_have_lapsed("lapsing"), "a pause within the bound changes nothing"
    clock[0] += 2
    assert leases.may_have_lapsed("lapsing")
    leases.beaten("lapsing")
    clock[0] += leases.HEARTBEAT
    assert leases.may_have_lapsed("lapsing"), "once lapsed, checked until the crawl ends"
    assert not leases.may_have_lapsed("never-beaten")
