"""Discovery's work per surfaced URL stays constant: one store read, one canonicalisation, a
16-byte digest to remember it, and nothing kept of it in a crawl (counted, never timed)."""

from __future__ import annotations

import re
import sys

import scrapy
from scrapy.utils.test import get_crawler

from scrapy_walsh import Addon
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.discovery.manifests import Discovery, SpiderRoutes, Surfaced
from scrapy_walsh.policy import canonical
from scrapy_walsh.policy.discovery import Route

MANIFEST = "https://s.example/sitemap.xml"


class Plain(scrapy.Spider):
    name = "plain"

    def parse_page(self, response):
        pass


def _discovery(tmp_path, dry_run: bool = False) -> Discovery:
    crawler = get_crawler(
        Plain, settings_dict={"ADDONS": {Addon: 500}, "WALSH_STATE_URI": f"sqlite:///{tmp_path}/state.sqlite3"}
    )
    crawler._apply_settings()
    if dry_run:
        CrawlContext.of(crawler).explain()
    routing = SpiderRoutes([Route("parse_page", allow=(re.compile("/p/"),))], callbacks={"parse_page": print})
    return Discovery(crawler, routing)


def _surface(discovery: Discovery, count: int, length: int) -> tuple[int, int, int]:
    """Store reads, canonicalisations and requests made for ``count`` routed URLs of ``length`` characters."""
    reads, misses = discovery.store.counts["keys_read"], canonical.canonical_url.cache_info().misses
    made = 0
    for n in range(count):
        head = f"https://s.example/p/{length}/{count}/{n}/"
        found = Surfaced(head + "a" * (length - len(head)), MANIFEST, "2026-01-01")
        if discovery._decide(found) is not None:
            request = discovery._request(found)
            made += 1
            assert request.meta["walsh_discovered"]["key"] is request.url, "the key is the URL's own string"
    return (
        discovery.store.counts["keys_read"] - reads,
        canonical.canonical_url.cache_info().misses - misses,
        made,
    )


def test_per_url_work_is_constant_and_nothing_is_kept(tmp_path):
    discovery = _discovery(tmp_path)
    for count in (500, 5_000):
        reads, canonicalised, made = _surface(discovery, count, 1_000)
        assert (reads, canonicalised, made) == (count, count, count), "one store read and one key per URL"
    # remembered as a digest: the same bytes for a 100- and a 1,900-character URL
    sizes = {sys.getsizeof(seen) for seen in discovery._seen}
    _surface(discovery, 100, 1_900)
    assert {sys.getsizeof(seen) for seen in discovery._seen} == sizes and len(sizes) == 1
    assert len(discovery._seen) == 5_600
    # a crawl keeps no outcome: the stats count the skips
    assert _surface(discovery, 500, 1_000) == (0, 500, 0)  # seen already: no read, no request
    assert list(discovery.outcomes) == []


def test_plan_keeps_the_skips_it_lists(tmp_path):
    discovery = _discovery(tmp_path, dry_run=True)
    discovery._decide(Surfaced("https://s.example/other/1", MANIFEST))
    assert [(f.url, f.skipped) for f in discovery.outcomes] == [("https://s.example/other/1", "not_routed")]
