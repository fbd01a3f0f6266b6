"""The R6 audit of ``scrapy walsh check`` reads the spider's code with ``ast``, on quotesbot.

``tests/data/quotesbot`` is a copy of Scrapy's classic example project (``scrapy/quotesbot``:
its settings, ``toscrape-css`` and ``toscrape-xpath``, whose callbacks paginate with
``scrapy.Request(response.urljoin(next_page_url))``) with the add-on line added, plus
``other_ways.py``: the other ways a spider asks for pages after a response. The real command
runs in a copy of the project; each finding is asserted exactly, by file and line.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import run_scrapy

QUOTESBOT = Path(__file__).resolve().parent.parent / "data" / "quotesbot"
DROPPED = "a request a callback yields is dropped (R6: no link following), so it is never fetched; "


@pytest.fixture(scope="module")
def quotesbot(tmp_path_factory):
    root = tmp_path_factory.mktemp("quotesbot") / "quotesbot"
    shutil.copytree(QUOTESBOT, root)
    return root


@pytest.fixture(scope="module")
def report(quotesbot):
    result = run_scrapy(["walsh", "check", "--json"], cwd=quotesbot, timeout=120)
    assert result.stdout.strip(), result.stderr[-3000:]
    return result, json.loads(result.stdout)


def findings(report, row, spider):
    rows = {r["row"]: r for r in report["rows"]}
    return [
        (f["status"], f["setting"], f["message"])
        for f in rows[row]["findings"]
        if (f["setting"] or "").split(".")[0] == f"spider {spider}"
    ]


@pytest.mark.parametrize("spider, file", [("toscrape-css", "toscrape-css.py"), ("toscrape-xpath", "toscrape-xpath.py")])
def test_quotesbot_pagination_fails_row_6_by_line(report, spider, file):
    result, data = report
    assert result.returncode == 1, "a spider written to paginate fails the self-audit"
    ((status, setting, message),) = findings(data, "6", spider)
    assert (status, setting) == ("fail", f"spider {spider}.parse")
    assert message.startswith(f"{file}:21: scrapy.Request(...) in callback parse: {DROPPED}")
    # its own callback in the line to paste; the third follow spider of the project is not read for patterns
    assert 'paste into settings.py: WALSH_DISCOVERY_ROUTES = {r"/": "parse"}' in message, message
    assert f"`scrapy walsh check {spider}` reads them" in message
    assert findings(data, "9", spider) == [
        (
            "warn",
            f"spider {spider}",
            f"extracts with CSS/XPath selectors ({file} lines 12, 14, 15, 16, 19): a warning, because R9's "
            "MUST NOT is about per-site HTML scraping and only a reader can tell it from generic extraction; "
            "keep them generic (title, headings, links)",
        )
    ]


def test_every_other_way_of_asking_for_pages(report):
    _, data = report
    where = {
        spider: [(status, setting, ": ".join(message.split(": ")[:2])) for status, setting, message in found]
        for spider in ("quotes-follow", "quotes-login", "quotes-crawl", "quotes-sitemap", "quotes-declared")
        for found in [findings(data, "6", spider)]
    }
    assert where["quotes-follow"] == [
        ("fail", "spider quotes-follow.parse", "other_ways.py:18: response.follow_all(...) in callback parse"),
        # line 19 follows a declared target: fetched once, as a target, so not reported
        ("fail", "spider quotes-follow.parse", "other_ways.py:22: response.follow(...) in callback parse"),
        ("fail", "spider quotes-follow.failed", "other_ways.py:28: scrapy.Request(...) in errback failed"),
    ]
    assert where["quotes-login"] == [
        # login_page() builds the start request (called from start()): declared, not reported
        ("fail", "spider quotes-login.login", "other_ways.py:41: FormRequest.from_response(...) in callback login"),
        ("fail", "spider quotes-login.after_login", "other_ways.py:44: JsonRequest(...) in callback after_login"),
        ("fail", "spider quotes-login.parse_api", "other_ways.py:47: scrapy.Request(...) in callback parse_api"),
        (
            "fail",
            "spider quotes-login.parse_api",
            "other_ways.py:47: self.crawler.engine.download_async(...) in callback parse_api",
        ),
    ]
    # a CrawlSpider's rules with a callback route what the site's sitemap lists: discovery, by default;
    # its rule picks links by their place on a page (restrict_css), so it names every URL: a warning
    assert [s[:2] for s in where["quotes-crawl"]] == [
        ("pass", "spider quotes-crawl"),
        ("warn", "spider quotes-crawl.rules"),
    ]
    assert "every URL -> parse_page" in findings(data, "6", "quotes-crawl")[0][2]
    assert "picks its links by where they sit on a page" in findings(data, "6", "quotes-crawl")[1][2]
    # a SitemapSpider's sitemap_rules route what its sitemaps list: discovery declares them
    assert [s[:2] for s in where["quotes-sitemap"]] == [("pass", "spider quotes-sitemap")]
    assert "scrapy walsh plan quotes-sitemap" in findings(data, "6", "quotes-sitemap")[0][2]
    assert findings(data, "6", "quotes-declared") == [
        (
            "pass",
            "spider quotes-declared",
            "no request built after a response, no rules, link extractors or sitemap following",
        )
    ]
    assert findings(data, "6", "quotes-start") == [
        (
            "warn",
            "spider quotes-start.start_urls",
            "other_ways.py:84: start() neither reads start_urls nor calls the inherited start(), so the 1 "
            "start_urls are not declared targets and are never fetched; the declared targets are what start() yields",
        )
    ]
    errback = findings(data, "6", "quotes-follow")[2][2]
    assert "around the spider middlewares and are dropped there" in errback
    engine = findings(data, "6", "quotes-login")[3][2]
    assert "not a declared target, around the scheduler and the spider middlewares" in engine
