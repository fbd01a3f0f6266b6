"""Existing link-following projects on a public-style site, in one line (two for ``response.follow``).

The demo's ``open`` host (a name, resolved by the demo resolver: what the project fixtures add is the
test's environment, not an edit) has a robots.txt naming its sitemap, which lists ``/page/1-3``; each
page links to more pages, another host and three assets. The projects are as users have them: a
CrawlSpider with an ImagesPipeline, a pipeline of its own and FEEDS that overwrite; a SitemapSpider; a
``response.follow`` spider. Assertions are on what the server saw, the files written, and what
``check`` and the crawl said.
"""

from __future__ import annotations

import json
import re

from tests.helpers import add_addon_line, run_scrapy, stat, write_spider

PAGES = ["/page/1", "/page/2", "/page/3"]
#: The project's own settings, as it has them before the add-on (not edits).
OWN_SETTINGS = """
ITEM_PIPELINES = {"scrapy.pipelines.images.ImagesPipeline": 1, "plainproj.pipelines.JsonLinesPipeline": 300}
IMAGES_STORE = "images"
FEEDS = {"items.json": {"format": "json", "overwrite": True}}
"""
OWN_PIPELINE = """
import json


class JsonLinesPipeline:
    def open_spider(self, spider=None):
        self.file = open("own.jsonl", "a")

    def close_spider(self, spider=None):
        self.file.close()

    def process_item(self, item, spider=None):
        self.file.write(json.dumps(dict(item)) + "\\n")
        return item
"""
CRAWL_SPIDER = """
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


class SiteSpider(CrawlSpider):
    name = "site"
    start_urls = ["{base}/"]
    rules = (
        Rule(LinkExtractor(allow=r"/page/\\d+$"), callback="parse_page", follow=True),
        Rule(LinkExtractor(allow=r"/page/")),
    )

    def parse_page(self, response):
        yield {{
            "url": response.url,
            "title": response.css("h1::text").get(),
            "image_urls": [response.urljoin(src) for src in response.css("img::attr(src)").getall()],
        }}
"""
SITEMAP_SPIDER = """
from scrapy.spiders import SitemapSpider


class SiteSpider(SitemapSpider):
    name = "site"
    sitemap_urls = ["{base}/robots.txt"]
    sitemap_rules = [(r"/page/", "parse_page")]

    def parse_page(self, response):
        yield {{"url": response.url, "title": response.css("h1::text").get()}}
"""
FOLLOW_SPIDER = """
import scrapy


class SiteSpider(scrapy.Spider):
    name = "site"
    start_urls = ["{base}/page/1"]

    def parse(self, response):
        yield from self.parse_page(response)
        for href in response.css("li a::attr(href)").getall():
            yield response.follow(href, self.parse_page)

    def parse_page(self, response):
        yield {{"url": response.url, "title": response.css("h1::text").get()}}
"""


def one_line_project(plain_project, site, spider: str, own: str = ""):
    """The project as its user has it, then the one line: the add-on (on the demo site)."""
    add_addon_line(plain_project, own, site=site)
    write_spider(plain_project, "site", spider.format(base=site.base("open")))
    (plain_project / "plainproj" / "pipelines.py").write_text(OWN_PIPELINE)
    return plain_project


def pages_fetched(site) -> list[str]:
    return sorted(r["path"] for r in site.requests_for("open") if r["path"].startswith(("/page/", "/static/")))


def check(project, *args):
    result = run_scrapy(["walsh", "check", "site", *args], cwd=project)
    return result, (json.loads(result.stdout) if "--json" in args else None)


def findings(report, row: str) -> list[tuple[str, str | None, str]]:
    return [(f["status"], f["setting"], f["message"]) for r in report["rows"] if r["row"] == row for f in r["findings"]]


def test_a_crawl_spider_with_an_images_pipeline_in_one_line(plain_project, demo_site):
    project = one_line_project(plain_project, demo_site, CRAWL_SPIDER, OWN_SETTINGS)
    said, report = check(project, "--json")
    assert report["result"] != "fail", said.stdout[-3000:]
    row6 = findings(report, "6")
    switched = [f for f in row6 if "switched off by the preset" in f[2]]
    assert len(switched) == 1 and switched[0][0] == "warn" and "ImagesPipeline" in switched[0][2], row6
    assert any(s == "pass" and "targets come from the site's manifests" in m for s, _, m in row6), row6

    first = run_scrapy(["crawl", "site"], cwd=project)
    assert first.returncode == 0, first.stderr[-4000:]
    assert pages_fetched(demo_site) == PAGES, "the sitemap's pages once each; no link followed, no image"
    items = json.loads((project / "items.json").read_text())
    assert sorted(i["url"].rsplit("/", 2)[-2] + "/" + i["url"].rsplit("/", 1)[-1] for i in items) == [
        p.lstrip("/") for p in PAGES
    ]
    assert len((project / "own.jsonl").read_text().splitlines()) == 3, "the project's own pipeline ran"
    assert not (project / "images").exists(), "the ImagesPipeline is off: nothing stored"
    warned = [line for line in first.stderr.splitlines() if "switched off by the preset" in line]
    assert len(warned) == 1 and "WARNING" in warned[0], first.stderr[-4000:]
    assert "refuses to start" not in first.stderr

    # a re-run the same day: said by check and at start, before the feed file is emptied
    said, report = check(project, "--json")
    words = "a re-run within a day yields nothing; this run would replace items.json with an empty list"
    assert any(words in m for _, _, m in findings(report, "8")), findings(report, "8")
    demo_site.reset()
    again = run_scrapy(["crawl", "site"], cwd=project)
    lines = again.stderr.splitlines()
    (at,) = [i for i, line in enumerate(lines) if words in line]
    assert "WARNING" in lines[at] and "Spider opened" in "\n".join(lines[at:]), "said before the feed is opened"
    assert pages_fetched(demo_site) == []


def test_a_sitemap_spider_in_one_line(plain_project, demo_site):
    project = one_line_project(plain_project, demo_site, SITEMAP_SPIDER)
    said, report = check(project, "--json")
    assert report["result"] != "fail", said.stdout[-3000:]
    result = run_scrapy(["crawl", "site", "-O", "items.jsonl"], cwd=project)
    assert result.returncode == 0, result.stderr[-4000:]
    assert pages_fetched(demo_site) == PAGES
    assert len((project / "items.jsonl").read_text().splitlines()) == 3


def test_check_says_a_sitemap_spider_whose_sitemaps_are_refused_fetches_nothing(plain_project, demo_site):
    """Before, check passed; plan then said "0 to fetch" and the crawl yielded 0 items, exit 0."""
    add_addon_line(plain_project)  # no allowance for loopback: the address rule refuses 127.0.0.2
    write_spider(plain_project, "site", SITEMAP_SPIDER.format(base=demo_site.base("open", by_ip=True)))
    said, report = check(plain_project, "--json")
    refused = [f for r in report["rows"] for f in r["findings"] if f["setting"] == "spider site.sitemap_urls"]
    assert refused and refused[0]["status"] == "warn", said.stdout[-3000:]
    assert "address rule" in refused[0]["message"] and "the crawl would fetch nothing" in refused[0]["message"]
    assert "WALSH_ALLOW_PRIVATE_ADDRESSES" in refused[0]["message"]
    assert report["result"] == "warn"
    assert demo_site.requests == [], "check sent nothing"


def test_a_follow_spider_in_two_lines_the_second_pasted_from_check(plain_project, demo_site):
    project = one_line_project(plain_project, demo_site, FOLLOW_SPIDER)
    said, _ = check(project)
    pasted = re.findall(r"paste into settings\.py: (WALSH_DISCOVERY_ROUTES = \{.*?\})  \(", said.stdout)
    assert pasted and set(pasted) == {'WALSH_DISCOVERY_ROUTES = {r"/page/\\d+$": "parse_page"}'}, said.stdout
    assert "patterns from the" in said.stdout and "URLs the site's sitemap lists" in said.stdout
    assert "declare every page in start_urls" not in said.stdout, "the old two-step advice is gone"
    settings = project / "plainproj" / "settings.py"
    settings.write_text(settings.read_text() + "\n" + pasted[0] + "\n")
    demo_site.reset()

    said, report = check(project, "--json")
    assert [c for c in report["changes"] if c["requirement"] == "R6 scope"] == [], "no stale advice once it passes"
    row6 = findings(report, "6")
    assert all(s != "fail" for s, _, _ in row6) and any("-> parse_page" in m for _, _, m in row6), row6
    result = run_scrapy(["crawl", "site", "-O", "items.jsonl"], cwd=project)
    assert result.returncode == 0, result.stderr[-4000:]
    assert pages_fetched(demo_site) == PAGES
    assert len((project / "items.jsonl").read_text().splitlines()) == 3
    assert stat(result.stderr, "walsh/scope/followups_dropped") is None, "nothing followed"


def test_check_names_a_sitemap_on_a_blocklisted_host(plain_project, demo_site):
    project = one_line_project(
        plain_project, demo_site, SITEMAP_SPIDER, '\nWALSH_BLOCKLIST_EXTRA = ["walsh-demo.test"]\n'
    )
    said, report = check(project, "--json")
    refused = [
        f for r in report["rows"] if r["row"] == "3" for f in r["findings"] if (f["setting"] or "").startswith("spider")
    ]
    assert len(refused) == 1 and refused[0]["status"] == "warn", said.stdout[-3000:]
    assert "refused by the blocklist" in refused[0]["message"] and "would fetch nothing" in refused[0]["message"]
