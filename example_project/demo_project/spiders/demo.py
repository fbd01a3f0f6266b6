"""A spider of declared targets on the demo site: one request per target, no following."""

import scrapy

from demo_project.items import PageMetadata

# (host key, path): one target per contract case the demo site serves.
TARGETS = [
    ("open", "/page/1"),
    ("open", "/private/secret"),  # robots: disallowed for everyone
    ("open", "/noindex"),  # X-Robots-Tag usage warnings
    ("named", "/members/join"),  # * blocks, our named group exempts
    ("named", "/research-off/notes"),  # * allows, our named group blocks
    ("slow", "/page/1"),  # Crawl-delay 2 in our group
    ("slow", "/page/2"),
    ("slow", "/page/3"),
    ("down", "/page/1"),  # robots.txt answers 503
    ("gone", "/page/1"),  # robots.txt answers 404
    ("decoys", "/page/1"),  # groups for "bot", "Mozilla" ... must not apply
    ("blocked", "/page/1"),  # listed in the operator blocklist
    ("www.blocked", "/page/1"),  # subdomain of a listed domain
    ("busy", "/limited"),  # 429 with Retry-After: 3, once
    ("docs", "/guide/intro"),  # markdown by content negotiation
]


class DemoSpider(scrapy.Spider):
    name = "demo"

    async def start(self):
        port = self.settings.getint("DEMO_PORT")
        for key, path in TARGETS:
            yield scrapy.Request(f"http://{key}.walsh-demo.test:{port}{path}")

    def parse(self, response):
        is_html = b"html" in response.headers.get(b"Content-Type", b"")
        yield PageMetadata(
            url=response.url,
            status=response.status,
            title=response.css("title::text").get() if is_html else None,
            links=[response.urljoin(href) for href in response.css("a::attr(href)").getall()]
            if is_html
            else [],
            verdicts=response.meta.get("walsh", {}).get("verdicts", {}),
            recommendation=response.meta.get("walsh", {}).get("recommendation"),
        )
