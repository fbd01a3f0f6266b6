"""A page fetched again because its manifest's lastmod is newer delivers its new item, marked as an
update; a date-only lastmod is compared as a date.

Before, the refetch's item was dropped by R7 dedup (the site paid a request for an answer thrown
away), and a date-only lastmod dated the day of our fetch was never newer, even a day later. Real
crawls of the CrawlSpider of tests/data/link_projects against the blog on loopback; a day later is
the crawl run under libfaketime (+1 day), its clock only.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.e2e.test_link_following import POSTS, blog, crawl, make_project  # noqa: F401 - the blog fixture
from tests.helpers import stat

FAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")


def a_day_later() -> dict[str, str]:
    return {"LD_PRELOAD": str(FAKETIME), "FAKETIME": "+1d", "DONT_FAKE_MONOTONIC": "1"}


def test_a_newer_lastmod_refetch_delivers_its_item_as_an_update(tmp_path, blog):  # noqa: F811
    project = make_project(tmp_path, "blog_crawl", blog.base, "WALSH_REFETCH_INTERVAL = 1")
    first, items = crawl(project)
    assert first.returncode == 0 and len(items) == 4, first.stderr[-4000:]
    assert not any(i["walsh"].get("update") for i in items), "a first fetch is no update"
    # the site changes its posts after our fetch (the crawl is over), and says so in its sitemap
    blog.lastmod = datetime.fromtimestamp(int(time.time()) + 1, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    blog.log.clear()
    second, items = crawl(project)
    assert second.returncode == 0, second.stderr[-4000:]
    assert sorted(blog.fetched()) == POSTS, "each changed post is asked for once"
    assert sorted(i["url"].rsplit("/", 2)[-2] + "/" + i["url"].rsplit("/", 1)[-1] for i in items) == [
        p.lstrip("/") for p in POSTS
    ], "every answer the site paid for is delivered"
    assert all(i["walsh"]["update"] is True for i in items), items[0]
    assert stat(second.stderr, "walsh/dedup/updates") == 4
    assert stat(second.stderr, "walsh/discovery/changed") == 4
    assert stat(second.stderr, "walsh/dedup/dropped") is None, "no answer thrown away"
    # unchanged since: nothing asked, nothing delivered
    blog.log.clear()
    third, items = crawl(project)
    assert items == [] and blog.fetched() == [], blog.fetched()
    assert stat(third.stderr, "walsh/discovery/lastmod_unchanged") == 4


@pytest.mark.skipif(not FAKETIME.exists(), reason="libfaketime is not installed")
def test_a_date_only_lastmod_of_the_day_of_our_fetch_is_picked_up_the_next_day(tmp_path, blog):  # noqa: F811
    project = make_project(tmp_path, "blog_crawl", blog.base, "WALSH_REFETCH_INTERVAL = 1")
    blog.lastmod = datetime.now(timezone.utc).date().isoformat()  # changed today: before or after our fetch?
    first, items = crawl(project)
    assert first.returncode == 0 and len(items) == 4, first.stderr[-4000:]
    blog.log.clear()
    same_day, items = crawl(project)
    assert items == [] and blog.fetched() == [], "the same day, it can't be told newer"
    assert stat(same_day.stderr, "walsh/discovery/lastmod_unchanged") == 4
    next_day, items = crawl(project, env=a_day_later())
    assert next_day.returncode == 0, next_day.stderr[-4000:]
    assert sorted(blog.fetched()) == POSTS, "a change dated the day of our fetch is picked up the next day"
    assert len(items) == 4 and all(i["walsh"]["update"] is True for i in items), items
    blog.log.clear()
    again, items = crawl(project, env=a_day_later())
    assert items == [] and blog.fetched() == [], "fetched after that day: not newer any more"
