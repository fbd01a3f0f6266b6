"""``scrapy walsh plan`` and the crawl decide alike under a ``-s`` override of the refetch interval.

A real crawl an hour ago (run under ``faketime``) fetched two pages under the default interval (a
day); a crawl now fetched a third. With ``-s WALSH_REFETCH_INTERVAL=600``, the first two are due
again and the third is not: the plan and then the crawl, with the same override, must list the
same targets and skips, and the plan's request count must be what the server then saw. Before, the
plan said "fetch" and the crawl skipped them: the expiry written under the old interval won.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from urllib.parse import urlsplit

from demo_site import DemoSite
from tests.helpers import GATES_SPIDER, add_addon_line, crawl_targets, new_project, run_scrapy, write_spider

OVERRIDE = ("-s", "WALSH_REFETCH_INTERVAL=600")


def crawl_an_hour_ago(project, urls) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("SCRAPY_SETTINGS_MODULE", None)
    args = ["crawl", "gates", "-a", "urls=" + ",".join(urls)]
    return subprocess.run(
        ["faketime", "-f", "-1h", sys.executable, "-m", "scrapy", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def pages(site, since: int) -> list[str]:
    return [r["path"] for r in site.requests[since:] if r["host_key"] == "open" and r["path"] != "/robots.txt"]


def test_plan_and_the_crawl_agree_under_a_refetch_interval_override(tmp_path):
    with DemoSite() as site:
        project = new_project(tmp_path)
        add_addon_line(project, site=site)
        write_spider(project, "gates", GATES_SPIDER)
        old = [site.url("open", "/page/1"), site.url("open", "/page/2")]
        recent, disallowed = site.url("open", "/page/3"), site.url("open", "/private/planned")
        earlier = crawl_an_hour_ago(project, old)
        assert earlier.returncode == 0, earlier.stderr[-3000:]
        now, _ = crawl_targets(project, [recent])
        assert now.returncode == 0, now.stderr[-3000:]
        assert pages(site, 0) == ["/page/1", "/page/2", "/page/3"]

        urls = [*old, recent, disallowed]
        before = len(site.requests)
        planned = run_scrapy(["walsh", "plan", "gates", "-a", "urls=" + ",".join(urls), "--json", *OVERRIDE], project)
        assert planned.returncode == 0, planned.stderr[-3000:]
        assert pages(site, before) == [], "the plan sends no target"
        plan = json.loads(planned.stdout)

        before = len(site.requests)
        crawled, items = crawl_targets(project, urls, *OVERRIDE)
        assert crawled.returncode == 0, crawled.stderr[-3000:]
        sent = pages(site, before)

    assert [e["url"] for e in plan["fetch"]] == old, plan
    assert {e["url"]: e["reason"] for e in plan["skip"]} == {recent: "R8", disallowed: "robots.txt"}, plan
    # the crawl: the same two sent, the same two refused, by the same gates
    assert sent == ["/page/1", "/page/2"], sent
    # (a page sent again may answer 304 to its validators: R7's "not modified", no item)
    denied = {url: item.get("denied") for url, item in items.items()}
    assert {url: denied.pop(url) for url in (recent, disallowed)} == {recent: "frequency", disallowed: "robots"}
    assert set(denied.values()) <= {None, "conditional"}, items
    assert plan["hosts"][urlsplit(recent).hostname]["requests"] == len(sent), plan["hosts"]


MAPS = """
from scrapy.spiders import SitemapSpider


class MapsSpider(SitemapSpider):
    name = "maps"
    sitemap_urls = [{url!r}]
    sitemap_rules = [("/page/", "parse_page")]

    def parse_page(self, response):
        yield {{"url": response.url}}
"""


def test_a_plan_with_no_target_says_why_and_counts_no_request_it_would_not_send(tmp_path):
    """A SitemapSpider whose sitemap is refused (the address rule, the blocklist) or not there, and
    a spider whose every target was fetched recently: "0 to fetch" and why, and no request counted
    for a host the crawl would not contact."""
    with DemoSite() as site:
        project = new_project(tmp_path)
        add_addon_line(project, site=site)
        cases = {
            f"http://127.0.0.1:{site.port}/sitemap.xml": "why nothing: manifest refused: "
            f"http://127.0.0.1:{site.port}/robots.txt by address rule",
            site.url("blocked", "/sitemap.xml"): "why nothing: manifest refused: "
            f"{site.url('blocked', '/robots.txt')} by blocklist",
            site.url("open", "/no-sitemap.xml"): "why nothing: manifest not read: "
            f"{site.url('open', '/no-sitemap.xml')} (answered 404)",
        }
        plans = {}
        for url in cases:
            write_spider(project, "maps", MAPS.format(url=url))
            planned = run_scrapy(["walsh", "plan", "maps", "--json"], project)
            assert planned.returncode == 0, planned.stderr[-3000:]
            plans[url] = json.loads(planned.stdout)
        write_spider(project, "gates", GATES_SPIDER)
        urls = [site.url("open", "/page/1"), site.url("open", "/page/2")]
        crawled, _ = crawl_targets(project, urls)
        assert crawled.returncode == 0, crawled.stderr[-3000:]
        recent = run_scrapy(["walsh", "plan", "gates", "-a", "urls=" + ",".join(urls)], project)
    for url, why in cases.items():
        plan = plans[url]
        assert plan["fetch"] == [] and plan["why_nothing"].startswith(why.removeprefix("why nothing: ")), plan
    assert plans[f"http://127.0.0.1:{site.port}/sitemap.xml"]["hosts"] == {}, "the address rule sends nothing"
    assert plans[site.url("blocked", "/sitemap.xml")]["hosts"] == {}, "nor does the blocklist"
    assert plans[site.url("open", "/no-sitemap.xml")]["hosts"]["open.walsh-demo.test"]["requests"] == 1
    assert recent.returncode == 0, recent.stderr[-3000:]
    why = [line for line in recent.stdout.splitlines() if line.startswith("why nothing: ")]
    assert why == [
        "why nothing: every target was fetched within WALSH_REFETCH_INTERVAL (86400 s; R8 2): "
        "`scrapy walsh state forget --spider gates` lets the next crawl fetch them"
    ], recent.stdout
