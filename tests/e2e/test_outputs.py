"""Items, marks and deliveries agree: a feed or a pipeline that cannot write loses no item.

Real crawls in subprocesses against the demo server. The full disk is real: the feed lives on
a small tmpfs mounted for the test (root only; the test is skipped where mounting is not
permitted), which fills in the middle of the first run. The second run has room. What the
server saw and what the feed holds are the evidence: every item is delivered exactly once over
both runs, and every page is fetched once.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections import Counter

import pytest

from scrapy_walsh.store import SqliteStore
from tests.helpers import GATES_SPIDER, run_scrapy, stat, write_spider

#: Items per page, and the bytes of padding each one carries (the tmpfs fills after a few pages).
PER_PAGE = 5
PAD = 1000

#: The gates spider's declared targets (``-a urls=...``), with several padded items per page.
SPIDER = f"""
from plainproj.spiders.gates import GatesSpider


class ManySpider(GatesSpider):
    name = "many"

    def parse(self, response):
        for n in range({PER_PAGE}):
            yield {{"url": f"{{response.url}}?item={{n}}", "pad": "x" * {PAD}}}
"""


def _spider(project, source=SPIDER):
    write_spider(project, "gates", GATES_SPIDER)
    write_spider(project, "many", source)


def _pages(site):
    return [f"{r['host_key']}{r['path']}" for r in site.requests if r["path"].startswith("/page/")]


def _targets(site, count):
    hosts = ("open", "gone")
    return [site.url(hosts[n % 2], f"/page/{n}") for n in range(count)]


def _items(path):
    """Every page item of a JSON-lines feed (a torn line fails the test; the gates spider's
    errback adds an item without ``url`` for each refused target)."""
    lines = path.read_text().splitlines() if path.exists() else []
    return [item for item in map(json.loads, lines) if "url" in item]


@pytest.fixture
def small_disk(tmp_path):
    """A 32 KiB tmpfs, unmounted after the test; skipped where mounting is not permitted."""
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32k", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _grow(mount):
    subprocess.run(["mount", "-o", "remount,size=4m", str(mount)], check=True)


def _crawl(project, urls, feed, env=None):
    return run_scrapy(["crawl", "many", "-a", "urls=" + ",".join(urls), "-o", str(feed)], cwd=project, env=env)


#: Scrapy's own records of an output's failure (the user's pipeline, feed storage), each with its
#: traceback: Scrapy's to log, beside the crawl's one message (the add-on filters no logger of Scrapy's)
SCRAPY_OUTPUT_ERRORS = (
    "[scrapy.core.scraper] ERROR: Error processing",
    "[scrapy.extensions.feedexport] ERROR: Error storing",
)


def _scrapy_tracebacks_only(log):
    """Every traceback in ``log`` is one of Scrapy's own records of an output's failure."""
    assert log.count("Traceback") <= sum(log.count(error) for error in SCRAPY_OUTPUT_ERRORS), log[-6000:]


def _one_stop(log, *names):
    """The run stopped with one message naming each of ``names``; a traceback only in Scrapy's own record."""
    _scrapy_tracebacks_only(log)
    stops = [line for line in log.splitlines() if "scrapy_walsh stops this crawl" in line]
    assert len(stops) == 1 and all(name in stops[0] for name in names), stops or log[-3000:]
    print(stops[0])


def _fill(project, site, disk):
    """A first run of 12 pages, 5 items each, into a feed on ``disk``: it fills mid-run, and the
    run stops in one message naming the feed."""
    _spider(project)
    urls = _targets(site, 12)
    feed = disk / "items.jsonl"
    first = _crawl(project, urls, feed)
    assert first.returncode == 1, first.stderr[-3000:]
    _one_stop(first.stderr, str(feed))
    return urls, feed, first


def test_a_feed_that_fills_mid_run_loses_no_item_and_the_next_run_fetches_nothing_again(project, demo_site, small_disk):
    urls, feed, first = _fill(project, demo_site, small_disk)
    assert 0 < len(_items(feed)) < PER_PAGE * len(urls), "the disk filled in the middle of the run"
    kept = stat(first.stderr, "walsh/outputs/kept", 0)
    assert kept > 0, first.stderr[-3000:]
    assert f"kept items   {kept} of spider 'many'" in run_scrapy(["walsh", "state", "show"], cwd=project).stdout

    _grow(small_disk)
    second = _crawl(project, urls, feed)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "Traceback" not in second.stderr, second.stderr[-6000:]
    assert stat(second.stderr, "walsh/outputs/redelivered") == kept
    _exactly_once([feed], urls)
    pages = Counter(_pages(demo_site))
    assert set(pages.values()) == {1} and len(pages) == len(urls), pages


def _exactly_once(feeds, urls):
    every = Counter(item["url"] for feed in feeds for item in _items(feed))
    expected = {f"{url}?item={n}" for url in urls for n in range(PER_PAGE)}
    assert set(every) == expected, sorted(expected - set(every))[:5]
    assert set(every.values()) == {1}, [url for url, n in every.items() if n > 1][:5]


def test_items_that_cannot_be_kept_leave_their_pages_unmarked(project, demo_site, small_disk, tmp_path):
    """The store fails too when it is asked to keep the items (as on the same full disk: a
    trigger refuses the write, as sqlite does when the disk is full): those pages are not
    recorded as fetched, so the next run fetches them again, and no item is lost or doubled."""
    settings = project / "plainproj" / "settings.py"
    state = tmp_path / "state.sqlite3"
    settings.write_text(settings.read_text() + f"\nWALSH_STATE_URI = 'sqlite:///{state}'\n")
    SqliteStore(state, "Walsh-Research").close()
    with sqlite3.connect(state) as db:
        db.execute(
            "CREATE TRIGGER full_disk BEFORE INSERT ON walsh_state WHEN NEW.namespace LIKE 'undelivered:%' "
            "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
        )
    urls, feed, first = _fill(project, demo_site, small_disk)
    assert stat(first.stderr, "walsh/outputs/not_kept", 0) > 0 and not stat(first.stderr, "walsh/outputs/kept")
    assert "items not kept" in first.stderr
    fetched_first = Counter(_pages(demo_site))

    with sqlite3.connect(state) as db:
        db.execute("DROP TRIGGER full_disk")
    _grow(small_disk)
    second = _crawl(project, urls, feed)
    assert second.returncode == 0, second.stderr[-3000:]
    _exactly_once([feed], urls)
    pages = Counter(_pages(demo_site))
    again = {page for page, n in pages.items() if n == 2}
    print("pages fetched again:", sorted(again))
    assert again and again <= set(fetched_first) and set(pages.values()) <= {1, 2}
    assert len(pages) == len(urls)


PIPELINE = """
import os


class Flaky:
    def process_item(self, item):
        if item.get("url", "").endswith(os.environ.get("FAIL_ON", "never")):
            raise ConnectionError("the database went away")
        return item
"""

EXPORTER = """
import os

from scrapy.exporters import JsonLinesItemExporter


class Picky(JsonLinesItemExporter):
    def export_item(self, item):
        if item.get("url", "").endswith(os.environ.get("FAIL_ON", "never")):
            raise ValueError("no room for this one")
        return super().export_item(item)
"""


@pytest.mark.parametrize(
    "where, source, setting, named",
    [
        ("pipeline", PIPELINE, "ITEM_PIPELINES = {'plainproj.flaky.Flaky': 300}", "plainproj.flaky.Flaky"),
        ("exporter", EXPORTER, "FEED_EXPORTERS = {'jsonl': 'plainproj.flaky.Picky'}", "items.jsonl"),
    ],
)
def test_an_output_that_raises_stops_the_crawl_and_the_next_run_delivers_its_items(
    project, demo_site, tmp_path, where, source, setting, named
):
    (project / "plainproj" / "flaky.py").write_text(source)
    settings = project / "plainproj" / "settings.py"
    settings.write_text(settings.read_text() + "\n" + setting + "\n")
    _spider(project)
    urls = _targets(demo_site, 6)
    first_feed, second_feed = tmp_path / "first" / "items.jsonl", tmp_path / "second" / "items.jsonl"
    first = _crawl(project, urls, first_feed, env={"FAIL_ON": "/page/2?item=3"})
    assert first.returncode == 1, first.stderr[-3000:]
    _one_stop(first.stderr, named, "ConnectionError: the database went away" if where == "pipeline" else "ValueError")
    if where == "pipeline":
        assert "flaky.py:" in first.stderr, "the message says where it was raised"
    kept = stat(first.stderr, "walsh/outputs/kept", 0)
    assert kept >= 1, first.stderr[-3000:]
    shown = run_scrapy(["walsh", "state", "show"], cwd=project)
    assert f"kept items   {kept} of spider 'many'" in shown.stdout, shown.stdout + shown.stderr

    second = _crawl(project, urls, second_feed)
    assert second.returncode == 0, second.stderr[-3000:]
    assert stat(second.stderr, "walsh/outputs/redelivered") == kept
    _exactly_once([first_feed, second_feed], urls)
    pages = Counter(_pages(demo_site))
    assert set(pages.values()) == {1} and len(pages) == len(urls), pages


RAISING_SPIDER = f"""
import os

from plainproj.spiders.gates import GatesSpider


class ManySpider(GatesSpider):
    name = "many"

    def parse(self, response):
        broken = response.url.endswith(os.environ.get("BREAK_ON", "never"))
        if broken and os.environ.get("HOW") == "at_once":
            raise ValueError("the spider broke before yielding")
        return self.items(response, broken)

    def items(self, response, broken):
        for n in range({PER_PAGE}):
            if broken and n == 2:
                raise ValueError("the spider broke")
            yield {{"url": f"{{response.url}}?item={{n}}", "pad": "x"}}
"""


@pytest.mark.parametrize("how", ["midway", "at_once"])
def test_a_callback_that_raises_delivers_what_it_yielded_and_says_how_to_fetch_again(project, demo_site, tmp_path, how):
    _spider(project, RAISING_SPIDER)
    urls = _targets(demo_site, 4)
    broken = urls[2]
    feeds = [tmp_path / f"run{n}.jsonl" for n in range(3)]
    first = _crawl(project, urls, feeds[0], env={"BREAK_ON": "/page/2", "HOW": how})
    assert first.returncode == 0, first.stderr[-3000:]
    delivered = {item["url"] for item in _items(feeds[0])}
    yielded_before = {f"{broken}?item={n}" for n in range(2)} if how == "midway" else set()
    assert {u for u in delivered if u.startswith(broken)} == yielded_before
    summary = first.stderr[first.stderr.index("compliance summary") :]
    assert "callback errors   1 page(s) whose callback raised" in summary, summary
    assert f"scrapy walsh state forget {broken}" in summary, summary

    shown = run_scrapy(["walsh", "state", "show"], cwd=project)
    assert f"callback     {broken}: the callback raised ValueError" in shown.stdout, shown.stdout
    second = _crawl(project, urls, feeds[1])
    assert second.returncode == 0 and not _items(feeds[1]), "R8: the server was hit, nothing is fetched again"
    assert Counter(_pages(demo_site))["open/page/2"] == 1

    forgotten = run_scrapy(["walsh", "state", "forget", broken], cwd=project)
    assert forgotten.returncode == 0, forgotten.stderr
    third = _crawl(project, urls, feeds[2])
    assert third.returncode == 0, third.stderr[-3000:]
    _exactly_once(feeds, urls)


def test_a_feed_that_cannot_store_its_file_at_the_end_leaves_its_pages_unmarked(project, demo_site, tmp_path):
    """A feed uploaded when its slot closes (FTP here, S3 and GCS alike) to a server that is not
    there: nothing of it was delivered, so no page is recorded as fetched and no item as
    emitted; the run says so once and exits 1, and the next run fetches every page again."""
    from tests.redis_server import free_port

    _spider(project)
    urls = _targets(demo_site, 4)
    gone = f"ftp://walsh:secret@127.0.0.1:{free_port()}/items.jsonl"
    first = run_scrapy(["crawl", "many", "-a", "urls=" + ",".join(urls), "-o", gone], cwd=project)
    assert first.returncode == 1, first.stderr[-3000:]
    _scrapy_tracebacks_only(first.stderr)
    said = [line for line in first.stderr.splitlines() if "could not store its file" in line]
    assert len(said) == 1 and "ftp://walsh:***@127.0.0.1" in said[0], said or first.stderr[-3000:]
    print(said[0])

    feed = tmp_path / "items.jsonl"
    second = _crawl(project, urls, feed)
    assert second.returncode == 0, second.stderr[-3000:]
    _exactly_once([feed], urls)
    assert set(Counter(_pages(demo_site)).values()) == {2}, "each page fetched again"


def test_kept_items_can_be_dropped_on_purpose(project, demo_site, tmp_path):
    """An item a pipeline will always refuse would stop every run: ``forget --kept`` drops it."""
    (project / "plainproj" / "flaky.py").write_text(PIPELINE)
    settings = project / "plainproj" / "settings.py"
    settings.write_text(settings.read_text() + "\nITEM_PIPELINES = {'plainproj.flaky.Flaky': 300}\n")
    _spider(project)
    urls = _targets(demo_site, 2)
    first = _crawl(project, urls, tmp_path / "first.jsonl", env={"FAIL_ON": "/page/1?item=0"})
    assert first.returncode == 1 and stat(first.stderr, "walsh/outputs/kept", 0) >= 1, first.stderr[-3000:]
    dropped = run_scrapy(["walsh", "state", "forget", "--kept", "many"], cwd=project)
    assert dropped.returncode == 0 and "(undelivered:many)" in dropped.stdout, dropped.stdout
    assert "kept items" not in run_scrapy(["walsh", "state", "show"], cwd=project).stdout
    second = _crawl(project, urls, tmp_path / "second.jsonl", env={"FAIL_ON": "/page/1?item=0"})
    assert second.returncode == 0, second.stderr[-3000:]
    assert not stat(second.stderr, "walsh/outputs/redelivered") and not _items(tmp_path / "second.jsonl")


def test_a_json_array_feed_that_fills_holds_whole_items_and_its_closing_bracket(project, demo_site, small_disk):
    """The feed is one JSON array (``.json``): after the disk filled, it still parses, with
    every item it holds whole; the next run delivers the rest into a second array."""
    _spider(project)
    urls = _targets(demo_site, 12)
    first_feed = small_disk / "items.json"
    first = _crawl(project, urls, first_feed)
    assert first.returncode == 1, first.stderr[-3000:]
    _one_stop(first.stderr, str(first_feed))
    held = json.loads(first_feed.read_text())
    assert 0 < len(held) < PER_PAGE * len(urls)
    _grow(small_disk)
    second_feed = small_disk / "more.json"
    second = _crawl(project, urls, second_feed)
    assert second.returncode == 0, second.stderr[-3000:]
    every = Counter(i["url"] for i in held + json.loads(second_feed.read_text()) if "url" in i)
    assert set(every.values()) == {1} and len(every) == PER_PAGE * len(urls), every
