"""R6 end to end: a request yielded from an errback never reaches the network.

Scrapy hands an errback's output to the scheduler without passing it through any
spider middleware, so ``DeclaredTargetsMiddleware`` also guards the scheduler's door.
"""

import json

from demo_site import DemoSite
from tests.helpers import add_addon_line, new_project, run_scrapy, stat, write_spider

SPIDER = """
import scrapy


class ErrbackSpider(scrapy.Spider):
    name = "errback"

    async def start(self):
        yield scrapy.Request(self.blocked, errback=self.failed)
        yield scrapy.Request(self.page, callback=self.parse)

    def parse(self, response):
        yield {"url": response.url}

    def failed(self, failure):
        yield {"failed": failure.request.url}
        yield scrapy.Request(self.followup)  # not a declared target
"""


def test_a_request_yielded_from_an_errback_is_dropped(tmp_path):
    project = new_project(tmp_path)
    with DemoSite() as site:
        add_addon_line(project, site=site)
        write_spider(project, "errback", SPIDER)
        out = tmp_path / "items.jsonl"
        result = run_scrapy(
            [
                "crawl",
                "errback",
                "-O",
                str(out),
                "-a",
                f"blocked={site.url('blocked', '/page/1')}",
                "-a",
                f"page={site.url('open', '/page/1')}",
                "-a",
                f"followup={site.url('open', '/page/errback-followup')}",
            ],
            cwd=project,
        )
        seen = site.requests
    assert result.returncode == 0, result.stderr[-3000:]
    items = [json.loads(line) for line in out.read_text().splitlines()]
    # the errback ran (the blocklist refused its target) and yielded the follow-up ...
    assert {"failed": site.url("blocked", "/page/1")} in items
    # ... which never reached the server, while the declared target on the same host did
    open_paths = [r["path"] for r in seen if r["host_key"] == "open"]
    assert "/page/1" in open_paths
    assert "/page/errback-followup" not in open_paths
    assert stat(result.stderr, "walsh/scope/followups_dropped") == 1
    assert "scheduled without passing the spider middlewares" in result.stderr
