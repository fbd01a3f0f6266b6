"""R8 names the spider that fetched a target before, and the command that lets it be fetched again.

Two spiders of one project, one state store: the second asks for the page the first fetched,
gets nothing (R8), and its log says who fetched it and how to reset, for that exact URL.
"""

from __future__ import annotations

from tests.helpers import run_scrapy, write_spider

SPIDER = """
import scrapy


class {cls}(scrapy.Spider):
    name = "{name}"

    async def start(self):
        yield scrapy.Request(self.url)

    def parse(self, response):
        yield {{"url": response.url, "status": response.status}}
"""


def test_recently_fetched_names_the_spider_and_the_reset(project, demo_site):
    url = demo_site.url("open", "/page/1")
    write_spider(project, "alpha", SPIDER.format(cls="AlphaSpider", name="alpha"))
    write_spider(project, "beta", SPIDER.format(cls="BetaSpider", name="beta"))
    first = run_scrapy(["crawl", "alpha", "-a", f"url={url}", "-L", "WARNING"], cwd=project)
    assert first.returncode == 0, first.stderr[-3000:]
    second = run_scrapy(["crawl", "beta", "-a", f"url={url}", "-L", "WARNING"], cwd=project)
    assert second.returncode == 0, second.stderr[-3000:]
    assert [r["path"] for r in demo_site.requests if r["path"] == "/page/1"] == ["/page/1"], "fetched once"
    log = second.stderr
    assert "frequency: skipped_recently_fetched" in log, log[-3000:]
    assert "by spider alpha" in log, log[-3000:]
    assert f"`scrapy walsh state forget {url}`" in log, log[-3000:]
