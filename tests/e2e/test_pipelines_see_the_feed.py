"""The project's own pipelines see exactly the items the feed gets: the add-on's item drops (R6
bounds, R7 dedup) run before them, and what a project pipeline adds is bounded after them.

A ``scrapy startproject`` project with the paginated shop spider (three items per page, all
carrying the page URL, so R7 dedup keeps one per page) and a pipeline of its own at 300 that
writes every item it sees, against a real shop on loopback.
"""

from __future__ import annotations

import json

from tests.helpers import run_scrapy, stat
from tests.shop_site import allow_loopback, crawl, declare_pages

PIPELINES = """
import json


class WritesEveryItem:
    def process_item(self, item, spider):
        with open("pipeline_saw.jsonl", "a") as out:
            out.write(json.dumps(dict(item)) + "\\n")
        return item


class AddsTheBody:
    def process_item(self, item, spider):
        if item["sku"].startswith("sku-2-"):
            item["body"] = "x" * 5000
        return item
"""


def _setup(project, site, pipelines):
    (project / "plainproj" / "pipelines.py").write_text(PIPELINES)
    allow_loopback(project, f"ITEM_PIPELINES = {pipelines!r}\nWALSH_MAX_FIELD_CHARS = 1000")
    declare_pages(project, site.base, pages=2)


def _saw(project):
    path = project / "pipeline_saw.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_project_pipeline_at_300_counts_the_items_the_feed_gets(shop_project, shop):
    _setup(shop_project, shop, {"plainproj.pipelines.WritesEveryItem": 300})
    result, items = crawl(shop_project)
    assert result.returncode == 0, result.stderr[-3000:]
    assert stat(result.stderr, "walsh/dedup/dropped") == 4, "two of the three items of each page share its URL"
    assert len(items) == 2
    assert _saw(shop_project) == items, "the project's pipeline saw exactly what the feed got"

    checked = run_scrapy(["walsh", "check"], cwd=shop_project)
    assert "runs before the add-on drops items" not in checked.stdout


def test_content_a_project_pipeline_adds_is_dropped_last_and_said(shop_project, shop):
    _setup(shop_project, shop, {"plainproj.pipelines.AddsTheBody": 400})
    result, items = crawl(shop_project)
    assert result.returncode == 0, result.stderr[-3000:]
    assert [item["sku"] for item in items] == ["sku-1-1"], "the item grown past the R6 bound never leaves"
    assert stat(result.stderr, "walsh/items/content_added") == 1
    assert "one of them added content" in result.stderr


def test_check_names_a_project_pipeline_placed_before_the_drops(shop_project, shop):
    _setup(shop_project, shop, {"plainproj.pipelines.WritesEveryItem": -2000})
    checked = run_scrapy(["walsh", "check"], cwd=shop_project)
    assert "WritesEveryItem runs before the add-on drops items" in checked.stdout, checked.stdout[-3000:]
