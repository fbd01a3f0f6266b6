"""A spider of declared targets on the demo site: one request per target, no following.

It reads its targets the R9 way (``StructuredSourceSpider``): markdown by content
negotiation, else the host's llms.txt (a listed markdown twin, or the llms.txt itself),
else the target is left out with ``no_structured_representation``. It never parses HTML.
Declared sitemaps yield their entries as items and are never followed.
"""

from scrapy_walsh import StructuredSourceSpider

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
    # R9, structured sources
    ("docs", "/guide/intro"),  # markdown by content negotiation
    ("docs", "/guide/faq"),  # HTML only, but llms.txt lists its markdown twin
    ("llmsonly", "/page/alpha"),  # no markdown: the llms.txt is the representation
    ("htmlonly", "/page/1"),  # nothing structured: left out, never scraped
    ("hostile", "/page/loopback"),  # llms.txt twin on 127.0.0.1: never chosen
    ("hostile", "/page/v6"),  # llms.txt twin on [::1]: never chosen
    ("hostile", "/page/by-name"),  # twin on a name resolving to 127.0.0.1: the address guard refuses
    ("hostile", "/research-off/notes"),  # twin on named, whose robots.txt disallows it
]
# Sitemaps are discovery: their entries become items, none of them is fetched.
SITEMAPS = [("open", "/sitemap.xml"), ("open", "/sitemap.xml.gz"), ("open", "/sitemap_index.xml")]


class DemoSpider(StructuredSourceSpider):
    name = "demo"

    def _urls(self, pairs):
        port = self.settings.getint("DEMO_PORT")
        return [f"http://{key}.walsh-demo.test:{port}{path}" for key, path in pairs]

    def declared_targets(self):
        return self._urls(TARGETS)

    def declared_sitemaps(self):
        return self._urls(SITEMAPS)
