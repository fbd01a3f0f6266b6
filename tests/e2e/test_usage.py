"""Usage warnings (seed 000): X-Robots-Tag parsed per Google's rules, surfaced, never blocking."""

from __future__ import annotations

import dataclasses
from urllib.parse import quote

import pytest
import scrapy
from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from scrapy_walsh import Addon
from scrapy_walsh.middlewares.usage_preferences import UsagePreferencesItemMiddleware, UsagePreferencesMiddleware
from scrapy_walsh.policy.xrobotstag import MAX_DIRECTIVES, usage_warnings
from scrapy_walsh.sending import admission
from tests.helpers import add_addon_line, crawl_targets, new_project, stat

TOKEN = "Walsh-Research"


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        (["noindex"], ["noindex"]),
        (["noindex, nofollow"], ["nofollow", "noindex"]),
        (["NoIndex ,  NOARCHIVE"], ["noarchive", "noindex"]),
        (["noindex", "walsh-research: noai, nofollow"], ["noai", "nofollow", "noindex"]),
        (["Walsh-Research: noai"], ["noai"]),  # the agent is case-insensitive
        (["googlebot: noindex"], []),  # another agent's
        (["googlebot: noindex", "nosnippet"], ["nosnippet"]),
        (["noarchive, googlebot: noindex, nofollow"], ["noarchive"]),  # the agent scopes the rest
        (["googlebot: noindex, walsh-research: noai"], ["noai"]),  # ... up to the next agent
        (["walsh-research-extra: noindex"], []),  # a longer token is another agent
        (["max-snippet: 20, noimageindex"], ["max-snippet: 20", "noimageindex"]),
        (["walsh-research: max-image-preview: none"], ["max-image-preview: none"]),
        (["unavailable_after: 2027-01-01"], ["unavailable_after: 2027-01-01"]),
        (["unavailable_after: 25 Jun 2010 15:00:00 PST"], ["unavailable_after: 25 Jun 2010 15:00:00 PST"]),
        (
            ["unavailable_after: Friday, 25-Jun-10 15:00:00 GMT, noai"],
            ["noai", "unavailable_after: Friday, 25-Jun-10 15:00:00 GMT"],
        ),
        (["all", "index, follow"], []),  # the defaults warn of nothing
        (["none"], ["none"]),
        ([b"noindex, noai"], ["noai", "noindex"]),  # raw header bytes
        (["", " , ,", "walsh-research:"], []),
        (["noindex", "noindex"], ["noindex"]),
    ],
)
def test_directives_that_apply_to_us(headers, expected):
    assert usage_warnings(headers, TOKEN) == expected


def test_a_hostile_header_cannot_bloat_items():
    many = ", ".join(f"d{i}" for i in range(1000))
    assert len(usage_warnings([many, "x" * 5000], TOKEN)) == MAX_DIRECTIVES


# --- the adapters, on real Scrapy objects (no network) -------------------------------


@pytest.fixture
def crawler():
    return get_crawler(settings_dict={"ADDONS": {Addon: 500}})


def _response(url, *values, meta=None):
    request = Request(url, meta=meta or {})
    return HtmlResponse(
        url, headers={"X-Robots-Tag": list(values)} if values else {}, body=b"<html></html>", request=request
    )


def test_the_downloader_middleware_writes_meta_and_counts(crawler):
    mw = UsagePreferencesMiddleware.from_crawler(crawler)
    before = {"verdicts": {"robots": "allowed_implicit"}}
    response = _response(
        "http://example.com/a", "noindex", "walsh-research: noai", "googlebot: nofollow", meta={"walsh": before}
    )
    assert mw.process_response(response.request, response) is response  # never blocks
    assert response.meta["walsh"]["usage_warnings"] == ["noai", "noindex"]
    assert response.meta["walsh"]["verdicts"] == {"robots": "allowed_implicit"}
    assert before == {"verdicts": {"robots": "allowed_implicit"}}  # copy-on-write
    plain = _response("http://example.com/b")
    mw.process_response(plain.request, plain)
    assert "usage_warnings" not in plain.meta["walsh"]
    assert plain.meta["walsh"]["usage"]["reserved"] == []  # every response is judged for usage
    stats = crawler.stats.get_stats()
    assert stats["walsh/usage/responses"] == 1
    assert stats["walsh/usage/directive/noindex"] == 1 and stats["walsh/usage/directive/noai"] == 1
    assert "walsh/usage/directive/nofollow" not in stats


def test_internal_resources_are_not_content(crawler):
    mw = UsagePreferencesMiddleware.from_crawler(crawler)
    response = _response("http://example.com/robots.txt", "noindex")
    admission.register_own_fetch(response.request, "robots")  # what own_fetch.fetch() does; meta can't
    mw.process_response(response.request, response)
    assert "walsh" not in response.meta


class DeclaredItem(scrapy.Item):
    url = scrapy.Field()
    usage_warnings = scrapy.Field()


class UndeclaredItem(scrapy.Item):
    url = scrapy.Field()


@dataclasses.dataclass
class Record:
    url: str
    usage_warnings: list | None = None


def test_items_carry_the_warnings_when_they_can(crawler, caplog):
    mw = UsagePreferencesItemMiddleware.from_crawler(crawler)
    response = _response("http://example.com/a", meta={"walsh": {"usage_warnings": ["noai", "noindex"]}})
    assert mw.get_processed_item({"url": "u"}, response)["usage_warnings"] == ["noai", "noindex"]
    assert mw.get_processed_item(DeclaredItem(url="u"), response)["usage_warnings"] == ["noai", "noindex"]
    assert mw.get_processed_item(Record(url="u"), response).usage_warnings == ["noai", "noindex"]
    own = {"url": "u", "usage_warnings": ["mine"]}
    assert mw.get_processed_item(own, response)["usage_warnings"] == ["mine"]
    for _ in range(3):
        item = mw.get_processed_item(UndeclaredItem(url="u"), response)
        assert "usage_warnings" not in item
    assert caplog.text.count("UndeclaredItem items can't carry the usage warnings") == 1
    assert crawler.stats.get_value("walsh/usage/items_without_field") == 3
    quiet = _response("http://example.com/b")
    assert mw.get_processed_item({"url": "u"}, quiet) == {"url": "u"}
    assert mw.get_processed_item({"url": "u"}, None) == {"url": "u"}


# --- a real crawl of the demo site ----------------------------------------------------


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    from demo_site import DemoSite

    with DemoSite(hosts=["open", "ops"]) as site:
        project = new_project(tmp_path_factory.mktemp("usage"))
        add_addon_line(project, site=site)
        urls = {
            "noindex": site.url("open", "/noindex"),
            "param": site.url("open", "/page/p?x-robots-tag=" + quote("googlebot: noindex, walsh-research: noarchive")),
            "plain": site.url("open", "/page/plain"),
        }
        result, items = crawl_targets(project, list(urls.values()))
        assert result.returncode == 0, result.stderr[-3000:]
        yield urls, result.stderr, items, site.requests


def test_the_noindex_page_yields_an_item_carrying_the_warnings(crawled):
    urls, log, items, seen = crawled
    item = items[urls["noindex"]]
    assert item["status"] == 200  # fetched and emitted: warnings never block
    assert item["usage_warnings"] == ["noai", "nofollow", "noindex"]
    assert item["walsh"]["usage_warnings"] == ["noai", "nofollow", "noindex"]


def test_other_agents_directives_are_ignored_and_plain_pages_carry_none(crawled):
    urls, log, items, seen = crawled
    assert items[urls["param"]]["usage_warnings"] == ["noarchive"]
    assert "usage_warnings" not in items[urls["plain"]]
    assert "usage_warnings" not in (items[urls["plain"]]["walsh"] or {})


def test_warnings_are_counted(crawled):
    urls, log, items, seen = crawled
    assert stat(log, "walsh/usage/responses") == 2
    assert stat(log, "walsh/usage/directive/noindex") == 1
    assert stat(log, "walsh/usage/directive/noarchive") == 1
    assert stat(log, "walsh/usage/directive/noai") == 1
    assert [r["path"] for r in seen if r["host_key"] == "open"].count("/noindex") == 1
