"""``scrapy walsh check`` says only what is true of the project: the WALSH_DEDUP_KEY it suggests
is a field the items have, a list of image URLs is not said to risk the field bound, code is
quoted whole or not at all, and every message names requirements (no checklist numbers, no
tracker numbers, no seed files). Real ``scrapy walsh check`` and ``scrapy crawl`` commands in a
``scrapy startproject`` project."""

from __future__ import annotations

import json
import re

from tests.helpers import run_scrapy, write_spider
from tests.shop_site import allow_loopback, crawl

POSTS = """
import scrapy


class PostsSpider(scrapy.Spider):
    name = "posts"
    start_urls = ["https://example.com/posts"]

    def parse(self, response):
        for post in response.css("article"):
            yield {
                "url": response.url,
                "title": post.css("h2::text").get(),
                "image_urls": response.css("img::attr(src)").getall(),
                "summary": " ".join(
                    post.css("p.summary::text, p.lead::text, div.abstract p::text, section.intro p::text").getall()
                ).strip(),
            }
"""

#: What no message may carry: checklist numbers and their section sign, tracker numbers, seed files.
NOISE = re.compile(r"§8|checklist #|#\d+\b|(?<![a-z])issues? ?\d+|seed[ -]?0\d\d", re.IGNORECASE)


def _changes(project, spider):
    report = json.loads(run_scrapy(["walsh", "check", spider, "--json"], cwd=project).stdout)
    return report["changes"]


def test_dedup_key_suggestions_are_fields_the_items_have(shop_project):
    write_spider(shop_project, "posts", POSTS)
    dedup = [c for c in _changes(shop_project, "posts") if c["requirement"] == "R7 dedup"]
    assert len(dedup) == 1
    assert "(WALSH_DEDUP_KEY = 'title', or 'summary')" in dedup[0]["todo"], dedup[0]["todo"]
    assert "sku" not in json.dumps(dedup)


def test_image_urls_are_not_said_to_pass_the_field_bound_and_code_is_never_cut(shop_project):
    write_spider(shop_project, "posts", POSTS)
    bound = [c for c in _changes(shop_project, "posts") if c["requirement"] == "R6 item bound"]
    assert ["'image_urls'" in c["change"] for c in bound] == [False], bound
    assert "field 'summary' = the expression on that line may pass" in bound[0]["change"], "too long to quote whole"


def test_check_and_a_refusal_name_requirements_never_numbers(shop_project):
    write_spider(shop_project, "posts", POSTS)
    text = run_scrapy(["walsh", "check"], cwd=shop_project).stdout
    assert "R6 item bound" in text
    assert not NOISE.search(text), NOISE.search(text)
    assert not NOISE.search(run_scrapy(["walsh", "check", "--help"], cwd=shop_project).stdout)
    refused = run_scrapy(["crawl", "posts", "-s", "CONCURRENT_REQUESTS=4"], cwd=shop_project)
    assert refused.returncode != 0
    assert "CONCURRENT_REQUESTS breaks R4 rate limit and Crawl-delay: " in refused.stderr
    assert not NOISE.search(refused.stderr), NOISE.search(refused.stderr)


def test_a_shared_key_drop_lists_the_fields_the_item_has(shop_project, shop):
    allow_loopback(shop_project)
    result, _ = crawl(shop_project)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "this item's fields: 'name', 'sku'" in result.stderr
    assert 'WALSH_DEDUP_KEY = "sku"' not in result.stderr
