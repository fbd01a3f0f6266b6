"""Compression bombs (800 MiB decoded) as robots.txt, page, sitemap and feed, and a header flood.

Each crawl runs in its own process and its peak RSS is read from outside (``os.wait4``'s
rusage of that very child, read by a small
launcher). Before the bounds, the robots.txt bomb took 1.73 GB.
"""

from __future__ import annotations

import json
import sys

import pytest

from tests.e2e.hostile_server import MIB, HostileServer, bomb, compressed, header_flood, plain, run_measured
from tests.helpers import GATES_SPIDER, stat

#: The crawl's peak RSS under hostile content: a bomb's decoded size must not reach memory.
MAX_RSS_MB = 300
#: ... and under a response with a million header lines (14 MB of headers).
MAX_RSS_HEADERS_MB = 250
BUDGET = 30  # the preset's DOWNLOAD_TIMEOUT: the most a hostile server may hold the download slot
ROBOTS_HEAD = b"User-agent: *\nDisallow: /private\n"

STRUCTURED_SPIDER = """
from scrapy_walsh import StructuredSourceSpider


class Structured(StructuredSourceSpider):
    name = "structured"

    def __init__(self, targets="", sitemaps="", **kwargs):
        super().__init__(**kwargs)
        self.targets = [t for t in targets.split(",") if t]
        self.sitemap_targets = [s for s in sitemaps.split(",") if s]
"""


@pytest.fixture(scope="module")
def bombs(tmp_path_factory):
    """The bombs, made once per module (a few seconds), 800 MiB each once decoded."""
    cache = tmp_path_factory.mktemp("bombs")
    return {
        "robots": bomb(cache / "robots.gz", "gzip", prefix=ROBOTS_HEAD, fill=b"#"),
        "gzip": bomb(cache / "page.gz", "gzip", prefix=b"<html><title>"),
        "br": bomb(cache / "page.br", "br", prefix=b"<html><title>"),
        "zstd": bomb(cache / "page.zst", "zstd", prefix=b"<html><title>"),
        "sitemap": bomb(
            cache / "sitemap.gz",
            "gzip",
            prefix=b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
            fill=b" ",
        ),
        "feed": bomb(cache / "feed.gz", "gzip", prefix=b'<?xml version="1.0"?><rss version="2.0"><channel>', fill=b" "),
    }


@pytest.fixture
def hostile(project, bombs):
    routes = {
        "/robots.txt": compressed({"Content-Encoding": "gzip", "Content-Type": "text/plain"}, bombs["robots"]),
        "/bomb.gz": compressed({"Content-Encoding": "gzip", "Content-Type": "text/html"}, bombs["gzip"]),
        "/bomb.br": compressed({"Content-Encoding": "br", "Content-Type": "text/html"}, bombs["br"]),
        "/bomb.zst": compressed({"Content-Encoding": "zstd", "Content-Type": "text/html"}, bombs["zstd"]),
        "/sitemap.xml": compressed({"Content-Encoding": "gzip", "Content-Type": "application/xml"}, bombs["sitemap"]),
        "/feed.xml": compressed({"Content-Encoding": "gzip", "Content-Type": "application/rss+xml"}, bombs["feed"]),
        "/page": plain(b"<html><title>fine</title></html>"),
        "/big": plain(b"<html><title>" + b" " * (9 * MIB)),
    }
    plain_robots = dict(routes, **{"/robots.txt": plain(b"User-agent: *\nAllow: /\n", "text/plain")})
    long_robots = dict(
        routes, **{"/robots.txt": plain(ROBOTS_HEAD + b"#" * (6 * MIB) + b"\nDisallow: /\n", "text/plain")}
    )
    servers = {
        "robots": HostileServer("127.0.0.201", routes),
        "pages": HostileServer("127.0.0.202", plain_robots),
        "long_robots": HostileServer("127.0.0.203", long_robots),
    }
    settings = project / "plainproj" / "settings.py"
    settings.write_text(settings.read_text() + "\nWALSH_ALLOW_PRIVATE_ADDRESSES = True\n")
    spiders = project / "plainproj" / "spiders"
    (spiders / "gates.py").write_text(GATES_SPIDER)
    (spiders / "structured.py").write_text(STRUCTURED_SPIDER)
    yield servers
    for server in servers.values():
        server.close()


def crawl_measured(project, spider, *args):
    """Run a crawl; (returncode, stderr, items, peak RSS in MB of that process)."""
    out = project / "items.jsonl"
    out.unlink(missing_ok=True)
    log = project / "crawl.log"
    command = [sys.executable, "-m", "scrapy", "crawl", spider, "-O", str(out), *args]
    code, peak_mb = run_measured(command, project, log)
    items = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    print(f"peak RSS of `scrapy crawl {spider} {' '.join(args)}`: {peak_mb:.0f} MB")
    return code, log.read_text(), items, peak_mb


@pytest.mark.parametrize("name", ["robots", "long_robots"])
def test_a_robots_txt_bomb_is_read_up_to_its_bound_never_allow_all(project, hostile, name):
    """A gzip bomb, and a plain robots.txt of 6 MiB with its Content-Length: both read up to the bound."""
    server = hostile[name]
    urls = [server.url("/page"), server.url("/private/x")]
    code, log, items, rss = crawl_measured(project, "gates", "-a", "urls=" + ",".join(urls))
    assert code == 0, log[-3000:]
    assert rss <= MAX_RSS_MB, f"peak RSS {rss:.0f} MB"
    by_url = {i.get("url") or i["target"]: i for i in items}
    assert by_url[urls[0]]["status"] == 200
    # the rule at the start of the bomb holds: read up to the bound, not refused, not "allow all"
    assert by_url[urls[1]]["verdict"] == "disallowed_explicit", by_url
    assert stat(log, "walsh/bounds/cut/robots") == 1
    assert "read up to its bound" in log
    assert [r["path"] for r in server.log].count("/private/x") == 0


@pytest.mark.parametrize("path", ["/bomb.gz", "/bomb.br", "/bomb.zst", "/big"])
def test_a_page_bomb_is_refused_at_the_page_bound(project, hostile, path):
    server = hostile["pages"]
    urls = [server.url(path), server.url("/page")]
    code, log, items, rss = crawl_measured(project, "gates", "-a", "urls=" + ",".join(urls))
    assert code == 0, log[-3000:]
    assert rss <= MAX_RSS_MB, f"peak RSS {rss:.0f} MB"
    by_url = {i.get("url") or i["target"]: i for i in items}
    assert by_url[urls[0]]["denied"] == "bounds" and by_url[urls[0]]["verdict"] == "response_too_large"
    assert by_url[urls[0]]["details"]["bound"] == 8 * MIB
    assert by_url[urls[1]]["status"] == 200, "the crawl goes on"
    assert stat(log, "walsh/bounds/refused/page") == 1
    assert "body bounds       1 refused over its bound" in log


def test_sitemap_and_feed_bombs_are_refused(project, hostile):
    server = hostile["pages"]
    code, log, items, rss = crawl_measured(
        project,
        "structured",
        "-a",
        f"sitemaps={server.url('/sitemap.xml')}",
        "-a",
        f"targets={server.url('/feed.xml')}",
    )
    assert code == 0, log[-3000:]
    assert rss <= MAX_RSS_MB, f"peak RSS {rss:.0f} MB"
    assert stat(log, "walsh/bounds/refused/sitemap") == 1, log[-3000:]
    assert stat(log, "walsh/bounds/refused/target") == 1, log[-3000:]


def test_a_header_flood_is_refused_while_it_arrives(project):
    """A million header lines (14 MB): the header block is refused once over its bound, while
    it arrives, so the crawl's memory stays low and the other host waits for no parse of it."""
    flood = HostileServer("127.0.0.204", {"/flood": header_flood(1_000_000)})
    other = HostileServer("127.0.0.205", {})
    try:
        settings = project / "plainproj" / "settings.py"
        settings.write_text(settings.read_text() + "\nWALSH_ALLOW_PRIVATE_ADDRESSES = True\n")
        (project / "plainproj" / "spiders" / "gates.py").write_text(GATES_SPIDER)
        urls = [flood.url("/flood"), other.url("/page")]
        code, log, items, rss = crawl_measured(project, "gates", "-a", "urls=" + ",".join(urls))
    finally:
        flood.close()
        other.close()
    assert code == 0, log[-3000:]
    sent = [r for r in flood.log if r["path"] == "/flood"]
    held = sent[0]["end"] - sent[0]["mono"]  # the flood's hold on the one download slot
    print(f"header flood: peak RSS {rss:.0f} MB, the download slot held {held:.2f} s")
    assert rss <= MAX_RSS_HEADERS_MB, f"peak RSS {rss:.0f} MB"
    assert len(sent) == 1 and held <= BUDGET, held  # refused, not retried; at most one budget
    by_url = {i.get("url") or i["target"]: i for i in items}
    assert by_url[urls[0]]["denied"] == "bounds" and by_url[urls[0]]["verdict"] == "response_too_large", by_url
    assert by_url[urls[0]]["details"]["part"] == "headers"
    assert by_url[urls[1]]["status"] == 200, "the other host is crawled"
    assert stat(log, "walsh/bounds/refused_headers/page") == 1
    assert "header bounds     1 refused over its bound" in log
