"""A paginated shop on loopback, the shape of a first trial of the add-on: 8 pages of 3 items, a "next" link, a
sitemap listing the pages, and a robots.txt that disallows ``/private/``. Every request is
recorded with the server's own clock (``time.time()``), so tests measure what it saw.

``python -m tests.shop_site PORT`` serves it in the foreground (for a trial by hand).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.helpers import run_scrapy

PAGES = 8
PER_PAGE = 3
ROBOTS = "User-agent: *\nDisallow: /private/\n"


def page(n: int, host: str) -> str:
    items = "".join(
        f'<div class="product"><h2>Product {n}-{i}</h2><span class="sku">sku-{n}-{i}</span></div>'
        for i in range(1, PER_PAGE + 1)
    )
    nxt = f'<a class="next" href="/page-{n + 1}.html">next</a>' if n < PAGES else ""
    return f"<html><head><title>Shop page {n}</title></head><body>{items}{nxt}</body></html>"


def sitemap(host: str) -> str:
    urls = "".join(f"<url><loc>http://{host}/page-{n}.html</loc></url>" for n in range(1, PAGES + 1))
    return f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'


class Shop(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int = 0, handler: type[BaseHTTPRequestHandler] | None = None):
        super().__init__(("127.0.0.1", port), handler or Handler)
        self.log: list[tuple[float, str, dict[str, str]]] = []

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def paths(self) -> list[str]:
        return [p for _, p, _ in self.log]

    def start(self) -> Shop:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self


class Handler(BaseHTTPRequestHandler):
    server: Shop

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.server.log.append((time.time(), self.path, dict(self.headers)))
        host = self.headers.get("Host", "127.0.0.1")
        body, kind, status = "not found", "text/plain", 404
        if self.path == "/robots.txt":
            body, kind, status = ROBOTS, "text/plain", 200
        elif self.path == "/sitemap.xml":
            body, kind, status = sitemap(host), "application/xml", 200
        elif self.path.startswith("/page-") and self.path.endswith(".html"):
            n = int(self.path[len("/page-") : -len(".html")])
            if 1 <= n <= PAGES:
                body, kind, status = page(n, host), "text/html", 200
        dated = status == 200 and kind == "text/html"
        answer(self, status, kind, body, {"Last-Modified": "Mon, 02 Nov 2026 10:00:00 GMT"} if dated else {})


def answer(handler: BaseHTTPRequestHandler, status: int, kind: str, body: str | bytes, headers=None) -> None:
    """Send ``body`` (text is UTF-8) with its type, its length and ``headers``: the test sites' answer."""
    data = body if isinstance(body, bytes) else body.encode()
    handler.send_response(status)
    handler.send_header("Content-Type", kind)
    handler.send_header("Content-Length", str(len(data)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)


#: The spider as a Scrapy user writes it: three items per page, the page URL in ``url``,
#: the "next" link followed.
PAGINATED_SPIDER = """
import scrapy


class ShopSpider(scrapy.Spider):
    name = "shop"
    start_urls = ["{base}/page-1.html"]

    def parse(self, response):
        for product in response.css("div.product"):
            yield {{
                "url": response.url,
                "name": product.css("h2::text").get(),
                "sku": product.css(".sku::text").get(),
            }}
        next_page = response.css("a.next::attr(href)").get()
        if next_page:
            yield response.follow(next_page, self.parse)
"""


def allow_loopback(project, extra=""):
    settings = project / "plainproj" / "settings.py"
    settings.write_text(settings.read_text() + f'\nWALSH_ALLOW_PRIVATE_ADDRESSES = ["127.0.0.1"]\n{extra}\n')


def declare_pages(project, base, pages=PAGES):
    """The compliant spider: every page declared, no follow."""
    spider = project / "plainproj" / "spiders" / "shop.py"
    text = spider.read_text()
    text = text.replace(
        f'start_urls = ["{base}/page-1.html"]',
        f'start_urls = [f"{base}/page-{{n}}.html" for n in range(1, {pages + 1})]',
    )
    text = text.split("        next_page =")[0]
    spider.write_text(text)


def crawl(project, *args, env=None):
    out = project / "items.jsonl"
    out.unlink(missing_ok=True)
    result = run_scrapy(["crawl", "shop", "-O", str(out), *args], cwd=project, env=env)
    items = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return result, items


if __name__ == "__main__":
    shop = Shop(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(shop.base, flush=True)
    shop.serve_forever()
