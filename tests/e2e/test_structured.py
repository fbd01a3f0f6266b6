"""R9 end to end: StructuredSourceSpider on the demo site, judged by what the server saw.

One crawl (module-scoped) reads every structured-source case the demo site serves:
markdown by negotiation (docs), a twin listed in llms.txt (docs /guide/faq), llms.txt as
the representation (llmsonly), nothing structured (htmlonly), hostile twins on the
loopback sentinels and on a disallowing origin (hostile -> named), and three sitemaps
(open). The spider is the fixed API: a subclass with ``name``, ``targets`` and
``sitemap_targets`` only, plus one override that forges follow-ups R6 must still drop.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from demo_site import DemoSite
from tests.helpers import add_addon_line, new_project, run_scrapy, stat, write_spider

SPIDER = """
from scrapy import Request
from scrapy_walsh import StructuredSourceSpider
from scrapy_walsh.discovery.structured import MARKER


class R9Spider(StructuredSourceSpider):
    name = "r9"
    targets = {targets!r}
    sitemap_targets = {sitemaps!r}

    def parse_target(self, response):
        yield from super().parse_target(response)
        if "htmlonly" in response.url:
            # forged follow-ups: they copy the marker, but the spider never planned them
            marker = {{MARKER: {{"target": response.url, "step": "llms_txt"}}}}
            yield Request(response.urljoin("/llms.txt"), meta=marker, dont_filter=True)
            yield Request(response.urljoin("/page/forged"), meta=marker, dont_filter=True)
"""

TARGETS = [
    ("docs", "/guide/intro"),
    ("docs", "/guide/faq"),
    ("llmsonly", "/page/alpha"),
    ("llmsonly", "/page/beta"),
    ("htmlonly", "/page/1"),
    ("hostile", "/page/loopback"),
    ("hostile", "/page/v6"),
    ("hostile", "/research-off/notes"),
    ("hostile", "/page/by-name"),
    ("hostile", "/page/by-name6"),
]
SITEMAPS = ["/sitemap.xml", "/sitemap_index.xml", "/sitemap.xml.gz", "/sitemap-many.xml", "/sitemap-huge.xml.gz"]
MAX_URLS = 50_000
HTML_FIELDS = {"title", "headings", "links", "name", "summary", "sections"}


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    root = tmp_path_factory.mktemp("r9")
    with DemoSite(sentinels=True) as site:
        project = new_project(root)
        add_addon_line(project, site=site)
        targets = [site.url(key, path) for key, path in TARGETS]
        write_spider(project, "r9", SPIDER.format(targets=targets, sitemaps=[site.url("open", p) for p in SITEMAPS]))
        out = project / "items.jsonl"
        result = run_scrapy(["crawl", "r9", "-O", str(out)], cwd=project, timeout=150)
        records = site.requests
        items = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
        for item in items:  # the usage decision on every item is tested in test_usage_preferences
            item.pop("walsh", None)
        yield site, result, records, items


def seen(records, key):
    return [r["path"] for r in records if r["host_key"] == key]


def by_target(items, site, key, path):
    found = [i for i in items if i.get("target") == site.url(key, path)]
    assert len(found) == 1, (key, path, found)
    return found[0]


def test_crawl_ran_and_every_item_passed_the_pipelines(crawl):
    site, result, records, items = crawl
    assert result.returncode == 0, result.stderr[-3000:]
    assert stat(result.stderr, "item_dropped_count") is None, result.stderr[-3000:]
    assert len(items) == len(TARGETS) + 3 + 2 + 3 + (MAX_URLS + 1) + 1
    assert all(len(json.dumps(v)) < 2000 for item in items[:1000] for v in item.values())


def test_markdown_host_yields_items_from_markdown(crawl):
    site, _, records, items = crawl
    intro = by_target(items, site, "docs", "/guide/intro")
    assert intro["source"] == "markdown" and intro["url"] == site.url("docs", "/guide/intro")
    assert intro["title"] == "Introduction"
    assert [h["text"] for h in intro["headings"]] == ["Introduction", "Getting started", "Next steps"]
    assert {"text": "setup guide", "url": site.url("docs", "/guide/setup")} in intro["links"]
    assert site.url("docs", "/sitemap.xml") in intro["sitemap_candidates"]
    assert intro["verdicts"]["robots"] == "allowed_implicit" and intro["recommendation"] == "recommended"
    asked = [r for r in records if r["host_key"] == "docs" and r["path"] == "/guide/intro"]
    assert len(asked) == 1 and asked[0]["headers"]["Accept"].startswith("text/markdown")


def test_twin_listed_in_llms_txt_is_fetched_instead(crawl):
    site, _, records, items = crawl
    faq = by_target(items, site, "docs", "/guide/faq")
    assert faq["source"] == "llms_txt_twin" and faq["url"] == site.url("docs", "/guide/faq.md")
    assert faq["title"] == "FAQ" and faq["twin"] == faq["url"]
    assert faq["twin_verdicts"]["robots"] == "allowed_implicit"
    # intro needed no llms.txt; faq's HTML answer led to one llms.txt and then its twin
    assert seen(records, "docs") == ["/robots.txt", "/guide/intro", "/guide/faq", "/llms.txt", "/guide/faq.md"]


def test_llms_txt_only_host_yields_its_sections(crawl):
    site, _, records, items = crawl
    alpha = by_target(items, site, "llmsonly", "/page/alpha")
    assert alpha["source"] == "llms_txt" and alpha["llms_txt"] == site.url("llmsonly", "/llms.txt")
    assert "url" not in alpha
    assert alpha["name"] == "Llms Only Demo" and alpha["summary"].startswith("HTML pages listed")
    assert [(s["name"], [e["title"] for e in s["links"]]) for s in alpha["sections"]] == [("Pages", ["Alpha", "Beta"])]
    assert [e["title"] for e in alpha["optional"]] == ["About"]
    assert alpha["listed"]["url"] == site.url("llmsonly", "/page/alpha")
    beta = by_target(items, site, "llmsonly", "/page/beta")
    assert beta["source"] == "llms_txt" and "url" not in beta and "sections" not in beta
    assert beta["llms_txt"] == site.url("llmsonly", "/llms.txt") and beta["listed"]["title"] == "Beta"
    assert Counter(seen(records, "llmsonly")) == Counter(["/robots.txt", "/page/alpha", "/page/beta", "/llms.txt"])


def test_html_only_host_is_left_out_and_forged_followups_are_dropped(crawl):
    site, result, records, items = crawl
    item = by_target(items, site, "htmlonly", "/page/1")
    assert item["verdict"] == "no_structured_representation"
    assert "llms.txt answered 404" in item["reason"] and item["markdown"] == "answered 200 text/html"
    assert not HTML_FIELDS & set(item) and "url" not in item
    # one llms.txt (the planned one): the forged copy and /page/forged never left
    assert seen(records, "htmlonly") == ["/robots.txt", "/page/1", "/llms.txt"]
    assert stat(result.stderr, "walsh/scope/followups_dropped") == 2
    # 4 llms.txt (docs, llmsonly, htmlonly, hostile) + 4 twins (docs faq.md, named notes.md and
    # the two loopback names, let through by R6 and refused by the address guard)
    assert stat(result.stderr, "walsh/scope/structured_followups") == 8
    assert stat(result.stderr, "walsh/structured/llms_txt_requested") == 4


def test_hostile_twins_are_never_requested(crawl):
    site, _, records, items = crawl
    # the sentinels on 127.0.0.1 and ::1 saw nothing; no other address was contacted
    assert "127.0.0.1" in site.sentinel_ips  # the sentinel was listening
    assert [r for r in records if r["host_key"] == "sentinel"] == []
    assert {r["ip"] for r in records} <= {f"127.0.0.{n}" for n in range(2, 16)}
    for path in ("/page/loopback", "/page/v6"):
        item = by_target(items, site, "hostile", path)
        assert item["verdict"] == "no_structured_representation" and not HTML_FIELDS & set(item)
        assert [(t["gate"], t["verdict"]) for t in item["twin_refused"]] == [("structured", "private_address")]
        assert "twin" not in item
    # names resolving to 127.0.0.1 / ::1: the pure code can't see it, the address guard refuses
    for path, host in (("/page/by-name", "loopback"), ("/page/by-name6", "loopback6")):
        item = by_target(items, site, "hostile", path)
        assert item["verdict"] == "no_structured_representation" and not HTML_FIELDS & set(item)
        assert item["twin"] == f"http://{host}.walsh-demo.test:{site.port}{path}.md"
        assert [(t["gate"], t["verdict"]) for t in item["twin_refused"]] == [("address", "private_address")]
    assert stat(crawl[1].stderr, "walsh/structured/twin_refused/address") == 2
    assert stat(crawl[1].stderr, "walsh/structured/twin_refused/structured") == 2
    notes = by_target(items, site, "hostile", "/research-off/notes")
    assert notes["verdict"] == "no_structured_representation"
    assert notes["twin"] == site.url("named", "/research-off/notes.md")
    assert [(t["gate"], t["verdict"]) for t in notes["twin_refused"]] == [("robots", "disallowed_explicit")]
    # the disallowing origin: its robots.txt was read, the candidate never requested
    assert seen(records, "named") == ["/robots.txt"]
    assert Counter(seen(records, "hostile")) == Counter(
        [
            "/robots.txt",
            "/page/loopback",
            "/page/v6",
            "/research-off/notes",
            "/page/by-name",
            "/page/by-name6",
            "/llms.txt",
        ]
    )


def test_sitemaps_yield_entries_and_fetch_none_of_them(crawl):
    site, result, records, items = crawl
    urlset = [i for i in items if i.get("sitemap") == site.url("open", "/sitemap.xml")]
    assert urlset == [
        {"sitemap": site.url("open", "/sitemap.xml"), "loc": site.url("open", f"/page/{n}"), "lastmod": f"2026-11-0{n}"}
        for n in (1, 2, 3)
    ]
    gz = [i for i in items if i.get("sitemap") == site.url("open", "/sitemap.xml.gz")]
    assert [i["loc"] for i in gz] == [i["loc"] for i in urlset]
    index = [i for i in items if i.get("sitemap") == site.url("open", "/sitemap_index.xml")]
    assert [i["child_sitemap"] for i in index] == [
        site.url("open", "/sitemap.xml"),
        site.url("open", "/sitemap.xml.gz"),
    ]
    assert all("loc" not in i and "url" not in i for i in index)
    # 0 requests to the listed URLs; each sitemap fetched once, the index's children not again
    assert Counter(seen(records, "open")) == Counter(["/robots.txt", *SITEMAPS])
    assert stat(result.stderr, "walsh/sitemaps/urls") == 6 + MAX_URLS
    assert stat(result.stderr, "walsh/sitemaps/child_sitemaps") == 2


def test_sitemap_limits_stop_and_say_so(crawl):
    site, result, records, items = crawl
    many = [i for i in items if i.get("sitemap") == site.url("open", "/sitemap-many.xml")]
    assert len(many) == MAX_URLS + 1 and sum("loc" in i for i in many) == MAX_URLS
    assert many[-1]["verdict"] == "sitemap_truncated_at_url_limit"
    assert many[MAX_URLS - 1]["loc"] == site.url("open", f"/page/n{MAX_URLS - 1}")
    huge = [i for i in items if i.get("sitemap") == site.url("open", "/sitemap-huge.xml.gz")]
    assert [i["verdict"] for i in huge] == ["sitemap_over_size_limit"]
    assert stat(result.stderr, "walsh/sitemaps/sitemap_truncated_at_url_limit") == 1
    assert stat(result.stderr, "walsh/sitemaps/sitemap_over_size_limit") == 1
    assert "lists more than 50000 URLs" in result.stderr
    assert not any(r["path"].startswith("/page/") for r in records if r["host_key"] == "open")
