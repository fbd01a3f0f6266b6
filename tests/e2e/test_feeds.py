"""R9 feeds first: StructuredSourceSpider on the demo ``feeds`` host, judged by the
items and by what the server saw.

* ``/news/atom.xml`` is a declared target that is a feed (Atom);
* ``/blog/`` is an HTML page, and robots.txt's ``Sitemap:`` lists ``/blog/feed.xml`` (RSS);
* ``/updates/`` is an HTML page, and llms.txt lists ``/updates/feed.json`` (JSON Feed).

Each feed's entries link to ``<section>post-N`` pages, which exist and must never be fetched;
each entry carries a body text that must never leave the crawl.
"""

from __future__ import annotations

import json

import pytest

from demo_site import DemoSite
from demo_site.content import FEED_ENTRIES, FEED_ENTRY_BODY
from tests.helpers import add_addon_line, new_project, run_scrapy, write_spider

SPIDER = """
from scrapy_walsh import StructuredSourceSpider


class FeedSpider(StructuredSourceSpider):
    name = "feeds"
    targets = {targets!r}
"""
TARGETS = {"/news/atom.xml": "atom10", "/blog/": "rss20", "/updates/": "json1.1"}


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    root = tmp_path_factory.mktemp("feeds")
    project = new_project(root)
    with DemoSite() as site:
        add_addon_line(project, '\nWALSH_PURPOSES = ["search"]\n', site=site)
        write_spider(project, "feeds", SPIDER.format(targets=[site.url("feeds", p) for p in TARGETS]))
        out = project / "items.jsonl"
        result = run_scrapy(["crawl", "feeds", "-O", str(out)], cwd=project, timeout=120)
        seen = site.requests_for("feeds")
        base = site.base("feeds")
    assert result.returncode == 0, result.stderr[-3000:]
    text = out.read_text()
    return result.stderr, [json.loads(line) for line in text.splitlines()], text, seen, base


def test_each_kind_of_feed_is_read_and_its_entries_emitted_as_metadata(crawl):
    _, items, _, _, base = crawl
    for path, version in TARGETS.items():
        target = base + path
        feed = [i for i in items if i.get("target") == target and "entries" in i]
        assert len(feed) == 1, (path, items)
        assert feed[0]["feed_format"] == version
        assert feed[0]["source"] == ("feed" if path.endswith(".xml") else "listed_feed")
        entries = [i for i in items if i.get("target") == target and i.get("source") == "feed_entry"]
        section = path if path.endswith("/") else path.rsplit("/", 1)[0] + "/"
        assert [e["title"] for e in entries] == [title for _, title, *_ in FEED_ENTRIES]
        assert [e["link"] for e in entries] == [f"{base}{section}{slug}" for slug, *_ in FEED_ENTRIES]
        assert entries[0]["author"] == "Ada" and entries[0]["categories"] == ["news", "demo"]
        assert entries[0]["published"]
        assert all(e["walsh"]["usage"]["decisions"] for e in entries)  # usage decision on every item
    listed = {i["target"]: i.get("feed_listed_in") for i in items if i.get("source") == "listed_feed"}
    assert listed == {base + "/blog/": "robots.txt Sitemap", base + "/updates/": "llms.txt"}


def test_entry_bodies_never_leave_and_entry_links_are_never_fetched(crawl):
    _, _, text, seen, _ = crawl
    assert FEED_ENTRY_BODY not in text
    paths = [r["path"] for r in seen]
    assert not [p for p in paths if "post-" in p], paths
    # the feeds come first: the listed feed once, never a markdown twin or a fallback
    assert paths.count("/blog/feed.xml") == 1 and paths.count("/updates/feed.json") == 1
    assert paths.count("/llms.txt") == 1
    assert not [p for p in paths if p.endswith(".md")], paths
