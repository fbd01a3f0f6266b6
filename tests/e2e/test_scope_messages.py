"""R6's message says what to do, and a follow-up to a page that is declared anyway is not "dropped"."""

from __future__ import annotations

from tests.helpers import run_scrapy, stat, write_spider

PAGINATED = """
import scrapy


class PagesSpider(scrapy.Spider):
    name = "pages"

    async def start(self):
        for url in self.urls.split(","):
            yield scrapy.Request(url)

    def parse(self, response):
        yield {"url": response.url}
        for page in ("/page/2", "/page/9"):
            yield scrapy.Request(response.urljoin(page))  # quotesbot's pagination, by hand
"""


def test_declared_follow_up_is_not_reported_and_the_warning_says_what_to_do(project, demo_site):
    write_spider(project, "pages", PAGINATED)
    first, second = demo_site.url("open", "/page/1"), demo_site.url("open", "/page/2")
    result = run_scrapy(["crawl", "pages", "-a", f"urls={first},{second}", "-O", str(project / "p.jsonl")], cwd=project)
    assert result.returncode == 0, result.stderr[-3000:]
    pages = sorted(r["path"] for r in demo_site.requests if r["path"].startswith("/page/"))
    assert pages == ["/page/1", "/page/2"], "each declared page once, nothing followed"
    assert result.stderr.count("R6: dropped") == 1
    assert "R6: dropped " + demo_site.url("open", "/page/9") in result.stderr, "only the undeclared page is reported"
    assert "declare them: list them in start_urls, yield them from start()" in result.stderr
    assert stat(result.stderr, "walsh/scope/followups_already_declared") == 2
    assert stat(result.stderr, "walsh/scope/followups_dropped") == 2
