"""A blog on loopback, the shape of an ordinary link-following project's site: a home page,
listing pages (navigation), posts with a cover image, and a robots.txt that names a sitemap
index and disallows one post. The index has a child for posts (with ``lastmod``), one for
other pages, and one on another host. Requests are recorded by :class:`tests.shop_site.Shop`.

``site.lastmod`` is the posts' ``lastmod``; ``site.hostile`` makes ``/sitemap-posts.xml``
one of a few hostile documents (see :data:`HOSTILE`); ``site.busy`` answers a path's first
requests (or all of them) with a status and a ``Retry-After``, or with no answer.
"""

from __future__ import annotations

import gzip
import time
from http.server import BaseHTTPRequestHandler

from tests.shop_site import Shop, answer

POSTS = 4
#: The post robots.txt disallows; the sitemap lists it anyway.
SECRET = 5
ROBOTS = "User-agent: *\nDisallow: /post/5.html\nSitemap: {base}/sitemap_index.xml\n"
LINK_PROJECTS = "link_projects"


def _urlset(urls: list[tuple[str, str | None]]) -> str:
    rows = "".join(f"<url><loc>{loc}</loc>{f'<lastmod>{mod}</lastmod>' if mod else ''}</url>" for loc, mod in urls)
    return f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{rows}</urlset>'


def _index(locs: list[str]) -> str:
    rows = "".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
    return (
        f'<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{rows}</sitemapindex>'
    )


def _self_index(base: str, depth: int) -> str:
    return _index([f"{base}/sitemap-loop-{depth + 1}.xml", f"{base}/sitemap_index.xml"])


#: Hostile ``/sitemap-posts.xml`` bodies: a gzip bomb, not XML, an entity bomb, a huge entry count.
HOSTILE = {
    "gzip_bomb": lambda base: gzip.compress(b"<urlset>" + b" " * 80_000_000 + b"</urlset>"),
    "not_xml": lambda base: b"\x00\xff<html><body>hello</body>",
    "entities": lambda base: (
        b'<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><urlset><url><loc>&c;</loc></url></urlset>'
    ),
    "many": lambda base: _urlset([(f"{base}/junk/{n}.html", None) for n in range(60_000)]).encode(),
    "loop": lambda base: _self_index(base, 0).encode(),
}


class BlogHandler(BaseHTTPRequestHandler):
    server: Blog

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: C901 - one branch per page kind
        self.server.log.append((time.time(), self.path, dict(self.headers)))
        base = self.server.base
        body: str | bytes = "not found"
        kind, status = "text/plain", 404
        path = self.path
        if self._busy(path):
            return
        if path == "/robots.txt":
            body, kind, status = ROBOTS.format(base=base), "text/plain", 200
        elif path == "/sitemap_index.xml":
            other = base.replace("127.0.0.1", "localhost")
            body = _index([f"{base}/sitemap-posts.xml", f"{base}/sitemap-pages.xml", f"{other}/sitemap-posts.xml"])
            kind, status = "application/xml", 200
        elif path == "/sitemap-posts.xml":
            if self.server.hostile:
                body = HOSTILE[self.server.hostile](base)
            else:
                posts = [(f"{base}/post/{n}.html", self.server.lastmod) for n in range(1, SECRET + 1)]
                body = _urlset([*posts, (f"{base}/images/cover.png", None), (f"{base}/page/2.html", None)])
            kind, status = "application/xml", 200
        elif path.startswith("/sitemap-loop-"):
            depth = int(path[len("/sitemap-loop-") : -len(".xml")])
            body, kind, status = _self_index(base, depth), "application/xml", 200
        elif path == "/sitemap-pages.xml":
            body, kind, status = _urlset([(f"{base}/about.html", None), (f"{base}/", None)]), "application/xml", 200
        elif path in ("/", "/page/1.html", "/page/2.html"):
            n = 2 if path == "/page/2.html" else 1
            posts = range(1, 3) if n == 1 else range(3, POSTS + 1)
            links = "".join(f'<a class="post" href="/post/{p}.html">post {p}</a>' for p in posts)
            nxt = '<a class="next" href="/page/2.html">next</a>' if n == 1 else ""
            body, kind, status = f"<html><body><h1>Blog page {n}</h1>{links}{nxt}</body></html>", "text/html", 200
        elif path.startswith("/post/") and path.endswith(".html"):
            n = int(path[len("/post/") : -len(".html")])
            if 1 <= n <= SECRET:
                body = (
                    f'<html><body><h1>Post {n}</h1><img src="/images/cover.png">'
                    f'<a href="/page/1.html">all posts</a><a href="/post/{n % POSTS + 1}.html">next</a></body></html>'
                )
                kind, status = "text/html", 200
        elif path == "/feed.xml":
            items = "".join(
                f"<item><title>Post {n}</title><link>{base}/post/{n}.html</link>"
                f"<pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item>"
                for n in range(1, POSTS + 1)
            )
            body = f'<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title>{items}</channel></rss>'
            kind, status = "application/rss+xml", 200
        elif path == "/llms.txt":
            links = "".join(f"- [Post {n}]({base}/post/{n}.html)\n" for n in range(1, POSTS + 1))
            body, kind, status = f"# Blog\n\n> A blog.\n\n## Posts\n\n{links}", "text/markdown", 200
        elif path == "/about.html":
            body, kind, status = "<html><body><h1>About</h1></body></html>", "text/html", 200
        elif path == "/images/cover.png":
            body, kind, status = b"\x89PNG\r\n\x1a\n", "image/png", 200
        answer(self, status, kind, body)

    def _busy(self, path: str) -> bool:
        """Answer ``path`` as ``site.busy`` says, while it says so: True when answered."""
        if (busy := self.server.busy.get(path)) is None:
            return False
        status, retry_after, times = busy
        if times is not None and self.server.paths().count(path) > times:
            return False
        if status <= 0:  # no answer: the connection is closed at once (0) or after 10 s (-1)
            time.sleep(10.0 if status < 0 else 0.0)
            self.close_connection = True
            return True
        self.send_response(status)
        if retry_after is not None:
            self.send_header("Retry-After", retry_after)
        self.send_header("Content-Length", "0")
        self.end_headers()
        return True


class Blog(Shop):
    def __init__(self, port: int = 0):
        super().__init__(port, BlogHandler)
        self.lastmod: str | None = "2020-01-01"
        self.hostile: str | None = None
        #: path -> (status, Retry-After or None, how many first requests get it; None: every one)
        self.busy: dict[str, tuple[int, str | None, int | None]] = {}

    def asked(self, path: str) -> list[float]:
        """When ``path`` was asked for, by the server's clock."""
        return [t for t, p, _ in self.log if p == path]

    def fetched(self) -> list[str]:
        """Paths asked for, but the robots.txt and the manifests."""
        return [p for p in self.paths() if p != "/robots.txt" and not p.startswith("/sitemap")]
