"""A site whose sitemap is as large as sitemaps.org allows, on loopback: discovery's memory and time.

robots.txt names ``/sitemap.xml.gz`` (a gzip file, as sites serve them) or, with ``split``, a
sitemap index of that many children. Every entry is a routed page (``/p/N/pad...``) padded to
``loc_len`` characters with a ``lastmod``; a page answers a few bytes. ``disallow`` is a path robots.txt
disallows (``/p/``: every target; ``/sitemap``: the manifests). Requests are recorded by
:class:`tests.shop_site.Shop`.
"""

from __future__ import annotations

import gzip
import time
from http.server import BaseHTTPRequestHandler

from tests.shop_site import Shop

#: One entry's markup around its ``loc``, to size a document.
ENTRY = "<url><loc>{loc}</loc><lastmod>2026-01-01</lastmod></url>\n"

SPIDER = """import scrapy
from scrapy.exceptions import CloseSpider
from scrapy.spiders import SitemapSpider


class BigSpider(SitemapSpider):
    name = "big"
    sitemap_urls = ["{base}/robots.txt"]
    sitemap_rules = [(r"/p/", "parse_page")]

    def parse_page(self, response):
        # once every target is queued, the crawl has held all it will hold: stop there
        if self.crawler.stats.get_value("walsh/discovery/targets", 0) >= int(getattr(self, "expected", 0)):
            raise CloseSpider("measured")
        yield {"url": response.url}
"""


def loc(base: str, n: int, loc_len: int) -> str:
    head = f"{base}/p/{n}/"
    return head + "a" * max(0, loc_len - len(head) - len(".html")) + ".html"


def urlset(base: str, numbers: range, loc_len: int) -> bytes:
    rows = "".join(ENTRY.format(loc=loc(base, n, loc_len)) for n in numbers)
    head = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    return (head + rows + "</urlset>\n").encode()


class SitemapHandler(BaseHTTPRequestHandler):
    server: BigSitemap

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        site = self.server
        site.log.append((time.time(), self.path, dict(self.headers)))
        body, kind, status = b"not found", "text/plain", 404
        if self.path == "/robots.txt":
            named = "/sitemap_index.xml" if site.split else "/sitemap.xml.gz"
            rules = f"Disallow: {site.disallow}\n" if site.disallow else "Allow: /\n"
            body, kind, status = f"User-agent: *\n{rules}Sitemap: {site.base}{named}\n".encode(), "text/plain", 200
        elif self.path == "/sitemap.xml.gz" and not site.split:
            body, kind, status = site.document(range(site.count)), "application/x-gzip", 200
        elif self.path == "/sitemap_index.xml" and site.split:
            rows = "".join(f"<sitemap><loc>{site.base}/sitemap-{i}.xml.gz</loc></sitemap>" for i in range(site.split))
            body = f'<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{rows}</sitemapindex>'.encode()
            kind, status = "application/xml", 200
        elif self.path.startswith("/sitemap-") and site.split:
            i, share = int(self.path[len("/sitemap-") : -len(".xml.gz")]), -(-site.count // site.split)
            body, kind, status = (
                site.document(range(i * share, min(site.count, (i + 1) * share))),
                "application/x-gzip",
                200,
            )
        elif self.path.startswith("/p/"):
            body, kind, status = b"<html><body><h1>page</h1></body></html>", "text/html", 200
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class BigSitemap(Shop):
    def __init__(self, count: int, loc_len: int = 975, split: int = 0, disallow: str = ""):
        super().__init__(0, SitemapHandler)
        self.count, self.loc_len, self.split, self.disallow = count, loc_len, split, disallow
        self._documents: dict[tuple[int, int], bytes] = {}

    def document(self, numbers: range) -> bytes:
        """The gzipped urlset of ``numbers``, made once."""
        key = (numbers.start, numbers.stop)
        if key not in self._documents:
            self._documents[key] = gzip.compress(urlset(self.base, numbers, self.loc_len), compresslevel=9)
        return self._documents[key]

    def pages(self) -> list[str]:
        return [p for p in self.paths() if p.startswith("/p/")]
