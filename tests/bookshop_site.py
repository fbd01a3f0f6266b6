"""A bookshop on loopback, for trying the add-on as a new user would: genres (listing pages with
a "next" link), books with a cover image, authors, a robots.txt that disallows ``/account/`` and
``/staff-picks/`` (both linked from every page) and names a sitemap index; the index has a gzipped
child for the books (with ``lastmod``) and plain ones for the authors and the other pages. It also
serves the operator blocklist, so a crawl never leaves loopback. ``site.lastmod`` dates the books.
It answers as ``www.bookshop.test`` (:class:`Resolver` maps the name to 127.0.0.1).
"""

from __future__ import annotations

import gzip
import json
import time
from importlib import resources

from scrapy.resolver import CachingThreadedResolver
from twisted.internet import defer

from tests.shop_site import Handler, Shop, answer

#: The shop's name on the test network (:class:`Resolver`); its pages link and list URLs on it.
DOMAIN = "bookshop.test"

GENRES = {"mystery": ["quiet-harbour", "salt-and-ashes", "door-in-winter"], "travel": ["roads-to-lisbon"]}
AUTHORS = {"quiet-harbour": "ada-ferreira", "salt-and-ashes": "ada-ferreira", "door-in-winter": "tom-okafor"}
AUTHORS["roads-to-lisbon"] = "tom-okafor"
BOOKS = [book for books in GENRES.values() for book in books]
PER_PAGE = 2
ROBOTS = "User-agent: *\nDisallow: /account/\nDisallow: /staff-picks/\n\nSitemap: {base}/sitemap.xml\n"
BLOCKLIST = {
    "contract": "walsh-research-blocklist/v1",
    "updated": "2026-11-01T00:00:00Z",
    "operator": "a test operator",
    "contact": "optout@example.org",
    "policy": "https://example.org/bot/",
    "refresh": "PT6H",
    "blocked": [],
}


def _urlset(rows) -> str:
    body = "".join(f"<url><loc>{loc}</loc>{f'<lastmod>{mod}</lastmod>' if mod else ''}</url>" for loc, mod in rows)
    return f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</urlset>'


def _page(title: str, body: str) -> str:
    nav = '<nav><a href="/">Home</a> <a href="/staff-picks/">Staff picks</a> <a href="/account/login">Sign in</a></nav>'
    head = f"<!doctype html><html><head><title>{title}</title></head>"
    return f"{head}<body>{nav}<main><h1>{title}</h1>{body}</main></body></html>"


def _title(slug: str) -> str:
    return slug.replace("-", " ").title()


class BookshopHandler(Handler):
    server: Bookshop

    def do_GET(self) -> None:
        self.server.log.append((time.time(), self.path, dict(self.headers)))
        status, kind, body = self._route(f"http://{self.headers.get('Host', '127.0.0.1')}", self.path)
        answer(self, status, kind, body)

    def _route(self, base: str, path: str) -> tuple[int, str, str | bytes]:  # noqa: C901 - one branch per page kind
        if path == "/robots.txt":
            return 200, "text/plain", ROBOTS.format(base=base)
        if path.startswith("/.well-known/walsh-research/blocklist.json"):
            return 200, "application/json", json.dumps(BLOCKLIST)
        if path.startswith("/.well-known/walsh-research/blocklist.schema.json"):
            schema = resources.files("scrapy_walsh") / "schemas" / "blocklist.schema.json"
            return 200, "application/schema+json", schema.read_bytes()
        if path == "/sitemap.xml":
            rows = "".join(
                f"<sitemap><loc>{base}{p}</loc><lastmod>2026-11-20</lastmod></sitemap>"
                for p in ("/sitemaps/books.xml.gz", "/sitemaps/authors.xml", "/sitemaps/pages.xml")
            )
            index = f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{rows}</sitemapindex>'
            return 200, "application/xml", f'<?xml version="1.0" encoding="UTF-8"?>{index}'
        if path == "/sitemaps/books.xml.gz":
            xml = _urlset([(f"{base}/book/{b}/", self.server.lastmod[b]) for b in BOOKS])
            return 200, "application/x-gzip", gzip.compress(xml.encode())
        if path == "/sitemaps/authors.xml":
            return (
                200,
                "application/xml",
                _urlset([(f"{base}/author/{a}/", "2026-09-30") for a in sorted(set(AUTHORS.values()))]),
            )
        if path == "/sitemaps/pages.xml":
            return (
                200,
                "application/xml",
                _urlset([(f"{base}/", None)] + [(f"{base}/genre/{g}/", None) for g in GENRES]),
            )
        if path == "/":
            links = "".join(f'<li><a class="genre" href="/genre/{g}/">{_title(g)}</a></li>' for g in GENRES)
            return 200, "text/html", _page("Welcome", f"<ul>{links}</ul>")
        slug, _, query = path.partition("?")
        parts = slug.strip("/").split("/")
        if len(parts) == 2 and parts[0] == "genre" and parts[1] in GENRES:
            n = int(query.split("page=")[1]) if "page=" in query else 1
            books = GENRES[parts[1]]
            links = "".join(
                f'<article class="book"><a href="/book/{b}/">{_title(b)}</a></article>'
                for b in books[(n - 1) * PER_PAGE : n * PER_PAGE]
            )
            if n * PER_PAGE < len(books):
                links += f'<a class="next" href="/genre/{parts[1]}/?page={n + 1}">Next</a>'
            return 200, "text/html", _page(_title(parts[1]), links)
        if len(parts) == 2 and parts[0] == "book" and parts[1] in AUTHORS:
            book = parts[1]
            body = (
                f'<img class="cover" src="/media/{book}.jpg"><p class="price">9.99</p>'
                f'<a class="author" href="/author/{AUTHORS[book]}/">{_title(AUTHORS[book])}</a>'
                f'<a href="/account/wishlist?add={book}">Add to wishlist</a>'
            )
            return 200, "text/html", _page(_title(book), body)
        if len(parts) == 2 and parts[0] == "author" and parts[1] in AUTHORS.values():
            links = "".join(
                f'<li><a href="/book/{b}/">{_title(b)}</a></li>' for b, a in AUTHORS.items() if a == parts[1]
            )
            return 200, "text/html", _page(_title(parts[1]), f"<ul>{links}</ul>")
        if parts[0] in ("account", "staff-picks"):
            return 200, "text/html", _page("Members only", "")
        if parts[0] == "media":
            return 200, "image/jpeg", b"\xff\xd8\xff\xe0" + b"\x00" * 32 + b"\xff\xd9"
        return 404, "text/html", _page("Not found", "")


class Bookshop(Shop):
    def __init__(self, port: int = 0):
        super().__init__(port, BookshopHandler)
        #: each book's lastmod in the gzipped sitemap: datetimes and dates, all in the past
        self.lastmod = {
            b: f"2026-10-0{i + 1}T08:30:00+00:00" if i % 2 else f"2026-10-1{i}" for i, b in enumerate(BOOKS)
        }

    @property
    def named(self) -> str:
        """The shop's base URL by its name, as a spider of a public site has it."""
        return f"http://www.{DOMAIN}:{self.server_address[1]}"

    def pages(self) -> list[str]:
        """The paths asked for but robots.txt, the manifests and the blocklist, in order."""
        own = ("/robots.txt", "/sitemap", "/.well-known/")
        return [p for p in self.paths() if not p.startswith(own)]

    def settings(self) -> str:
        """What a test network needs, not an edit: its names, loopback allowed, the operator list served here."""
        return (
            "\nfrom scrapy.settings import default_settings as _defaults\n"
            '_RESOLVER = "tests.bookshop_site.Resolver"\n'
            'if hasattr(_defaults, "TWISTED_DNS_RESOLVER"):\n    TWISTED_DNS_RESOLVER = _RESOLVER\n'
            "else:\n    DNS_RESOLVER = _RESOLVER\n"
            'WALSH_ALLOW_PRIVATE_ADDRESSES = ["127.0.0.1"]\n'
            f'WALSH_BLOCKLIST_URL = "{self.base}/.well-known/walsh-research/blocklist.json"\n'
            f'WALSH_BLOCKLIST_SCHEMA_URL = "{self.base}/.well-known/walsh-research/blocklist.schema.json"\n'
        )


class Resolver(CachingThreadedResolver):
    """``bookshop.test`` and its subdomains on 127.0.0.1: the test network's names (a public site
    needs no resolver of its own)."""

    def getHostByName(self, name: str, timeout=()) -> defer.Deferred[str]:
        if name.lower().rstrip(".").endswith(DOMAIN):
            return defer.succeed("127.0.0.1")
        return super().getHostByName(name, timeout)
