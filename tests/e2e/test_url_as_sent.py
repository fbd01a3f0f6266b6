"""A spider's request is judged and sent as the server resolves it.

The open demo host's robots.txt says ``Disallow: /private/``. Each start request below names a
/private page in a spelling a stock nginx resolves into /private (dot segments, ``%2e``, a
``//`` run, an encoded slash), or is a ``verbatim_url`` request Scrapy would have written
otherwise. The server must see robots.txt and the two allowed pages, each once, and nothing else.
"""

from demo_site import DemoSite
from tests.helpers import add_addon_line, new_project, run_scrapy, stat, write_spider

SPIDER = """
import scrapy


class DottedSpider(scrapy.Spider):
    name = "dotted"
    paths = [
        "/pub/../private/a",
        "/./private/b",
        "/pub/%2e%2e/private/c",
        "/pub/%2E%2E/private/d",
        "/pub/.%2e/private/e",
        "//private/f",
        "/pub/..%2Fprivate/g",
        "/pub/..;/private/h",
        "/pub/../page/1",
    ]

    async def start(self):
        for path in self.paths:
            yield scrapy.Request(self.base + path, errback=self.refused)
        yield scrapy.Request(self.base + "/pub/../private/v", meta={"verbatim_url": True}, errback=self.refused)
        yield scrapy.Request(self.base + "/pub/%2e%2e/page/2", meta={"verbatim_url": True}, errback=self.refused)

    def parse(self, response):
        yield {"url": response.url}

    def refused(self, failure):
        yield {"refused": failure.request.url, "verdict": getattr(failure.value, "verdict", None)}
"""


def test_the_server_sees_no_path_that_resolves_into_a_disallowed_one(tmp_path):
    with DemoSite() as site:
        project = new_project(tmp_path)
        add_addon_line(project, site=site)
        write_spider(project, "dotted", SPIDER)
        out = tmp_path / "items.jsonl"
        result = run_scrapy(
            ["crawl", "dotted", "-a", f"base={site.base('open')}", "-o", str(out)], cwd=project, timeout=120
        )
        seen = sorted(r["path"] for r in site.requests_for("open"))
    assert result.returncode == 0, result.stderr[-3000:]
    assert seen == ["/page/1", "/page/2", "/robots.txt"], seen
    log = result.stderr
    assert stat(log, "walsh/url/resolved") == 8, log[-3000:]
    assert out.read_text().count('"disallowed_explicit"') == 9
