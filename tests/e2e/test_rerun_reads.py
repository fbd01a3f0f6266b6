"""The re-run check at the start of a crawl reads the spider's own targets, not the store.

Counted, not timed, on a real sqlite file and a real ``redis-server``: the records the check reads
(sqlite: the store's ``keys_read``; Redis: the server's own count of keys looked up,
``keyspace_hits + keyspace_misses``) stay the same when another spider's records fill the store,
and stop at the first page holding a target that is due again. Before, the check read every
``fetched_by`` record of the identity (and every ``discovered`` one), at every start.
"""

from __future__ import annotations

import time

import pytest
from scrapy.settings import Settings

from scrapy_walsh.outputs.made_by import fetcher
from scrapy_walsh.outputs.rerun import PAGE, rerun_warning
from scrapy_walsh.policy.vocabulary import Namespace
from scrapy_walsh.store import SqliteStore

DAY = 86400.0
FEEDS = Settings({"FEEDS": {"items.json": {"format": "json", "overwrite": True}}})
OWN = 40
OTHERS = 5000


class Static:
    name = "blog"
    start_urls = [f"https://blog.test/post/{i}" for i in range(OWN)]


class Discovering:
    name = "blog"
    sitemap_urls = ["https://blog.test/robots.txt"]


@pytest.fixture(params=["sqlite", "redis"])
def store(request, tmp_path):
    if request.param == "sqlite":
        made = SqliteStore(tmp_path / "state.sqlite3", "Walsh-Research")
        made.records_read = lambda: made.counts.get("keys_read", 0)  # type: ignore[attr-defined]
    else:
        import redis

        from scrapy_walsh.store.redis import RedisStore

        server = request.getfixturevalue("redis_server")
        client = redis.Redis.from_url(server.url)
        client.flushdb()
        made = RedisStore(server.url, "Walsh-Research")

        def looked_up() -> int:
            stats = client.info("stats")
            return int(stats["keyspace_hits"]) + int(stats["keyspace_misses"])

        made.records_read = looked_up  # type: ignore[attr-defined]
    yield made
    made.close()


def remember(store, spider: str, urls, discovered: bool = True, at: float | None = None) -> None:
    """What a run of ``spider`` leaves: R8's ``fetched_by`` and discovery's record per target."""
    by = fetcher(spider, "a-crawl")
    entries = [(Namespace.FETCHED_BY, url, by, DAY) for url in urls]
    entries += [(Namespace.FETCHED, url, at or time.time(), DAY) for url in urls]
    if discovered:
        entries += [(Namespace.DISCOVERED, url, {"at": at or time.time(), "by": by}, 400 * DAY) for url in urls]
    for start in range(0, len(entries), 1000):
        store.set_many(entries[start : start + 1000])


def read_by_check(store, spidercls, discovering: bool):
    before = store.records_read()
    said = rerun_warning(FEEDS, store, spidercls, discovering, DAY)
    return said, store.records_read() - before


@pytest.mark.parametrize("spidercls,discovering", [(Static, False), (Discovering, True)])
def test_the_start_reads_the_spiders_own_targets_whatever_else_the_store_holds(store, spidercls, discovering):
    remember(store, "blog", Static.start_urls)
    said, alone = read_by_check(store, spidercls, discovering)
    assert said is not None and f"every target of its last run ({OWN})" in str(said), said

    # another spider of the project, on another site, ran too: 5,000 records of its own
    remember(store, "news", [f"https://news.test/story/{i}" for i in range(OTHERS)])
    said, crowded = read_by_check(store, spidercls, discovering)
    assert said is not None and f"({OWN})" in str(said), said
    assert crowded == alone, f"{alone} records read alone, {crowded} next to {OTHERS} of another spider"
    assert alone <= 2 * OWN + 4, "its own targets' records, and the store's id with each Redis read"


@pytest.mark.parametrize("spidercls,discovering", [(Static, False), (Discovering, True)])
def test_the_start_stops_at_the_first_page_with_a_target_due_again(store, spidercls, discovering):
    """Many targets, every other one fetched two days ago (due again), the others yesterday: one
    page is read, not all of them (Redis's SCAN answers in no order: any page holds a due one)."""
    many = type("Many", (spidercls,), {"start_urls": [f"https://blog.test/post/{i:05d}" for i in range(5 * PAGE)]})
    remember(store, "blog", many.start_urls[1::2])
    remember(store, "blog", many.start_urls[::2], at=time.time() - 2 * DAY)
    for url in many.start_urls[::2]:  # R8's record of them expired
        store.delete(Namespace.FETCHED_BY, url)
    said, read = read_by_check(store, many, discovering)
    assert said is None
    assert read <= PAGE + 1, f"{read} records read for {5 * PAGE} targets, half of them due again"


def test_the_interval_in_force_decides_and_is_the_one_named(store):
    """A target answered two minutes ago is due again under ``-s WALSH_REFETCH_INTERVAL=60``, as the
    crawl itself decides: no warning then, whatever the interval its record was written under; and
    the warning names the interval in force, not "a day"."""
    remember(store, "blog", Static.start_urls, discovered=False, at=time.time() - 120)
    assert rerun_warning(FEEDS, store, Static, False, 60.0) is None
    said = rerun_warning(FEEDS, store, Static, False, 600.0)
    assert said is not None and "a re-run within 600 s yields nothing" in said.text, said


def test_a_feed_and_the_projects_own_pipelines_are_both_named(store):
    remember(store, "blog", Static.start_urls, discovered=False)
    said = rerun_warning(FEEDS, store, Static, False, DAY, ["blogproj.pipelines.JsonWriterPipeline"])
    assert said is not None and said.setting == "FEEDS", said
    assert "a re-run within a day yields nothing; this run would replace items.json with an empty list" in said.text
    assert "item pipelines blogproj.pipelines.JsonWriterPipeline get no items this run" in said.text, said
