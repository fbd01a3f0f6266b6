"""Records by who made them: the store records the project, the spider and the command that
fetched a target, ``state forget --spider`` forgets from that record (dynamic start requests
too, never another project's records, whatever the port), and a page looked at with ``scrapy
shell``/``fetch`` is refused to a later crawl in words that name the command.

Real ``scrapy startproject`` projects, real shops on loopback (:mod:`tests.shop_site`), one
shared state store (the identity's default): what the shops saw is the evidence.
"""

from __future__ import annotations

import json

import pytest

from tests.helpers import add_addon_line, new_project, run_scrapy, write_spider
from tests.shop_site import Shop, allow_loopback, crawl

#: A spider whose targets come from an environment variable: nothing static to read them from.
DYNAMIC_SPIDER = """
import os

import scrapy


class ShopSpider(scrapy.Spider):
    name = "shop"

    async def start(self):
        for url in os.environ["SHOP_PAGES"].split(","):
            yield scrapy.Request(url)

    def parse(self, response):
        yield {"url": response.url, "skus": response.css(".sku::text").getall()}
"""


@pytest.fixture
def shops():
    started = [Shop().start(), Shop().start()]
    yield started
    for site in started:
        site.shutdown()
        site.server_close()


def _project(root, name):
    (root / name).mkdir()
    project = new_project(root / name)
    write_spider(project, "shop", DYNAMIC_SPIDER)
    add_addon_line(project)
    allow_loopback(project)
    return project


def _env(shop, pages=2):
    return {"SHOP_PAGES": ",".join(f"{shop.base}/page-{n}.html" for n in range(1, pages + 1))}


def _pages(shop, since=0):
    return sorted(p for _, p, _ in shop.log[since:] if p.startswith("/page-"))


def _crawl(project, shop):
    return crawl(project, env=_env(shop))


def test_forget_spider_with_dynamic_start_requests_fetches_and_emits_again(tmp_path, shops):
    shop = shops[0]
    project = _project(tmp_path, "one")
    first, items = _crawl(project, shop)
    assert first.returncode == 0, first.stderr[-3000:]
    assert len(items) == 2

    forgot = run_scrapy(["walsh", "state", "forget", "--spider", "shop", "--json"], cwd=project)
    assert forgot.returncode == 0, forgot.stderr
    dropped = json.loads(forgot.stdout)["dropped"]
    assert len(dropped["fetched"]) == 2, "read from the store's record of the fetcher, not from start_urls"

    before = len(shop.log)
    again, items = _crawl(project, shop)
    assert again.returncode == 0, again.stderr[-3000:]
    assert _pages(shop, before) == ["/page-1.html", "/page-2.html"], "fetched again"
    assert len(items) == 2, "and emitted again"


def test_forget_in_one_project_leaves_another_project_on_the_same_host(tmp_path, shops):
    """Two projects, one spider name, one host (127.0.0.1), two ports, one store: forgetting in one
    leaves the other's records, so its next run fetches nothing new and emits nothing twice."""
    one, two = _project(tmp_path, "one"), _project(tmp_path, "two")
    for project, shop in ((one, shops[0]), (two, shops[1])):
        result, items = _crawl(project, shop)
        assert result.returncode == 0, result.stderr[-3000:]
        assert len(items) == 2

    forgot = run_scrapy(["walsh", "state", "forget", "--spider", "shop"], cwd=one)
    assert forgot.returncode == 0, forgot.stderr
    assert shops[1].base not in forgot.stdout, "the other project's records are not touched"
    assert "has a spider of this name too" in forgot.stdout, "the shared R7 record is said"
    kept = run_scrapy(["walsh", "state", "show", f"{shops[1].base}/page-1.html", "--json"], cwd=two)
    record = json.loads(kept.stdout)["targets"][f"{shops[1].base}/page-1.html"]
    assert record["emitted_by"]["shop"] and record["fetched"], "the other project's R7 and R8 records stay"

    before = [len(shop.log) for shop in shops]
    other, items = _crawl(two, shops[1])
    assert other.returncode == 0, other.stderr[-3000:]
    assert _pages(shops[1], before[1]) == [], "the other project fetches nothing new"
    assert items == [], "and emits nothing twice"
    again, items = _crawl(one, shops[0])
    assert again.returncode == 0, again.stderr[-3000:]
    assert _pages(shops[0], before[0]) == ["/page-1.html", "/page-2.html"]
    assert len(items) == 2


@pytest.mark.parametrize("command", ["shell", "fetch"])
def test_a_page_looked_at_by_hand_is_named_by_the_crawl_that_skips_it(tmp_path, shops, command):
    shop = shops[0]
    project = _project(tmp_path, "one")
    page = f"{shop.base}/page-1.html"
    looked = run_scrapy(
        [command, page] + (["-c", "response.status"] if command == "shell" else ["--nolog"]), cwd=project
    )
    assert looked.returncode == 0, looked.stderr[-3000:]

    shown = run_scrapy(["walsh", "state", "show", page, "--json"], cwd=project)
    assert json.loads(shown.stdout)["targets"][page]["fetched_by"]["by"] == f"`scrapy {command}`"

    result, items = crawl(project, env=_env(shop, pages=1))
    assert result.returncode == 0, result.stderr[-3000:]
    assert items == []
    assert f"by `scrapy {command}` (a page looked at by hand), not by a spider" in result.stderr
    assert "(this spider" not in result.stderr
