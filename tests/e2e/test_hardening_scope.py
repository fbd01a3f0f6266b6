"""Scope by meaning, not by shape.

``/static/logo.png;v=1`` and ``/static/logo%2Epng`` were fetched as pages; so is any URL
that answers with an image, whatever its name. An item carrying a 50,000-character body
cut into 1,000-character strings passed ``MetadataOnlyPipeline``. Asserted on what the
recording server saw and on what the crawl emitted.
"""

from __future__ import annotations

import json

from demo_site.content import blocklist_schema_bytes
from tests.helpers import crawl_targets, run_scrapy, stat, write_spider

DISGUISED = [
    "/static/logo.png;v=1",
    "/static/logo%2Epng",
    "/static/logo%2epng",
    "/static/LOGO.PNG",
    "/static/logo.png.",
    "/static/site%2Ecss;x",
]


def test_a_sub_resource_is_refused_by_its_normalised_name_and_dropped_by_its_content_type(project, demo_site):
    demo_site.override("open", "/avatar", 200, b"\x89PNG\r\n\x1a\n" + bytes(40), "image/png")
    demo_site.override("open", "/theme", 200, blocklist_schema_bytes()[:200], "text/css; charset=utf-8")
    urls = [demo_site.url("open", path) for path in DISGUISED]
    typed = [demo_site.url("open", "/avatar"), demo_site.url("open", "/theme")]
    page = demo_site.url("open", "/page/1")
    result, items = crawl_targets(project, [*urls, *typed, page])
    assert result.returncode == 0, result.stderr[-3000:]
    seen = [r["path"] for r in demo_site.requests if r["host_key"] == "open"]
    assert not [p for p in seen if p.startswith("/static/")], seen
    for url in urls:
        assert items[url]["verdict"] == "subresource", items[url]
    # a URL that does not look like an image but answers with one: fetched, never parsed or emitted
    assert sorted(p for p in seen if p in ("/avatar", "/theme")) == ["/avatar", "/theme"]
    for url, kind in zip(typed, ("image", "stylesheet")):
        assert items[url]["verdict"] == "subresource" and items[url]["details"]["kind"] == kind, items[url]
        assert "status" not in items[url], "the callback never saw the bytes"
    assert items[page]["status"] == 200
    assert stat(result.stderr, "walsh/scope/subresource_responses_dropped") == 2
    assert stat(result.stderr, "walsh/denied/scope/subresource") == len(DISGUISED) + 2


SPLIT_BODY_SPIDER = """
import scrapy


class SplitSpider(scrapy.Spider):
    name = "split"

    def __init__(self, url=None, **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [url]

    def parse(self, response):
        body = "x" * 50_000
        yield {"page": response.url, "chunks": [body[i : i + 1000] for i in range(0, len(body), 1000)]}
        yield {"page": response.url, "links": [f"{response.url}?n={n}" for n in range(100)]}
"""


def test_an_item_whose_strings_add_up_to_a_body_is_refused(project, demo_site):
    write_spider(project, "split", SPLIT_BODY_SPIDER)
    out = project / "split.jsonl"
    result = run_scrapy(
        ["crawl", "split", "-a", f"url={demo_site.url('open', '/page/2')}", "-O", str(out)], cwd=project
    )
    assert result.returncode == 0, result.stderr[-3000:]
    items = [json.loads(line) for line in out.read_text().splitlines()]
    # every item carries the usage decision besides its own fields
    assert [sorted(item) for item in items] == [["links", "page", "walsh"]], "the 50 x 1,000 characters never leave"
    assert stat(result.stderr, "walsh/items/content_rejected") == 1
    assert "over WALSH_MAX_ITEM_CHARS=40000 (field chunks holds 50006)" in result.stderr
