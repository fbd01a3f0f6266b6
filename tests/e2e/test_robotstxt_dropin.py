"""The drop-in middleware and parser for a stock Scrapy project without the add-on, in real crawls.

Each test runs ``scrapy runspider`` (Scrapy's default settings, ``ROBOTSTXT_OBEY = True``)
against recording servers on loopback, one per origin, and asserts on what they saw.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import scrapy
from packaging.version import Version

from tests.e2e.hostile_server import MIB, HostileServer, bomb, compressed, long_file, run_measured
from tests.helpers import new_project, run_scrapy, stat

STOCK_OFF = (
    '{"scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": null, "scrapy_walsh.RobotsTxtMiddleware": 100}'
)
OURS = ("-s", f"DOWNLOADER_MIDDLEWARES={STOCK_OFF}")
PARSER = ("-s", "ROBOTSTXT_PARSER=scrapy_walsh.RobotParser")
#: The last Scrapy version measured to let requests that wait on robots.txt through unchecked.
#: A later one may have fixed it.
LEAKING_SCRAPY = Version("2.19.99")

SIX = ["/ok1", "/private/a", "/ok2", "/private/b", "/ok3", "/private/c"]
DISALLOW_PRIVATE = b"User-agent: *\nDisallow: /private\n"

SPIDER = """
import json, scrapy

class Targets(scrapy.Spider):
    name = "targets"

    async def start(self):
        for url in json.loads(self.urls):
            yield scrapy.Request(url, dont_filter=True)

    def parse(self, response):
        pass
"""


class _Recorder(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        server = self.server
        with server.lock:  # type: ignore[attr-defined]
            server.seen.append(self.path)  # type: ignore[attr-defined]
        status, body = server.robots if self.path == "/robots.txt" else (200, b"<html>ok</html>")  # type: ignore[attr-defined]
        self.send_response(status)
        self.send_header("Content-Type", "text/plain" if self.path == "/robots.txt" else "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def origins(count: int, robots: bytes, status: int = 200) -> Iterator[list[ThreadingHTTPServer]]:
    """``count`` recording servers (origins), each serving ``robots`` as robots.txt."""
    servers = []
    try:
        for _ in range(count):
            server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
            server.seen, server.lock, server.robots = [], threading.Lock(), (status, robots)  # type: ignore[attr-defined]
            threading.Thread(target=server.serve_forever, daemon=True).start()
            servers.append(server)
        yield servers
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


def base(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def crawl(tmp_path: Path, urls: list[str], *settings: str) -> str:
    """Run the spider over ``urls`` with Scrapy's defaults plus ``settings``; return the log."""
    spider = tmp_path / "targets.py"
    spider.write_text(SPIDER)
    result = run_scrapy(
        ["runspider", str(spider), "-a", "urls=" + json.dumps(urls), "-s", "ROBOTSTXT_OBEY=True", *settings],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stderr


def private_seen(servers: list[ThreadingHTTPServer]) -> list[str]:
    return [p for s in servers for p in s.seen if p.startswith("/private")]  # type: ignore[attr-defined]


def fifty(servers: list[ThreadingHTTPServer]) -> list[str]:
    """50 URLs, 10 per origin in a row, allowed and disallowed alternating (the order the
    six-URL case has; interleaving origins hides the leak, as robots.txt then arrives first)."""
    return [base(servers[i // 10]) + (f"/private/{i}" if i % 2 else f"/ok{i}") for i in range(50)]


# -------------------------------------- the leak: stock requests that wait on robots.txt go out unchecked


def test_stock_scrapy_leaks_requests_that_wait_on_robots_txt(tmp_path, record_property):
    """The baseline: stock middleware, stock parser, six URLs on one fresh origin."""
    with origins(1, DISALLOW_PRIVATE) as servers:
        crawl(tmp_path, [base(servers[0]) + p for p in SIX])
    leaked = private_seen(servers)
    record_property("stock_leaked", len(leaked))
    print(f"stock Scrapy {scrapy.__version__}: {len(leaked)} of 3 disallowed URLs reached the server: {leaked}")
    # measured on 2.19.0: /private/b and /private/c (2 of 3); a later Scrapy may have fixed it
    assert leaked or Version(scrapy.__version__) > LEAKING_SCRAPY
    if Version(scrapy.__version__) <= LEAKING_SCRAPY:
        assert len(leaked) >= 1


@pytest.mark.parametrize("parser", [PARSER, ()], ids=["walsh-parser", "protego-parser"])
def test_dropin_middleware_lets_no_disallowed_url_through(tmp_path, parser):
    """Six URLs on one origin at default concurrency: only the allowed ones are fetched,
    with our parser and with Scrapy's Protego (the middleware alone closes the leak)."""
    with origins(1, DISALLOW_PRIVATE) as servers:
        log = crawl(tmp_path, [base(servers[0]) + p for p in SIX], *OURS, *parser)
    seen = servers[0].seen  # type: ignore[attr-defined]
    assert sorted(seen) == ["/ok1", "/ok2", "/ok3", "/robots.txt"]
    assert stat(log, "robotstxt/forbidden") == 3
    assert stat(log, "robotstxt/request_count") == 1


@pytest.mark.parametrize("parser", [PARSER, ()], ids=["walsh-parser", "protego-parser"])
def test_dropin_middleware_fifty_urls_over_five_origins(tmp_path, parser):
    with origins(5, DISALLOW_PRIVATE) as servers:
        log = crawl(tmp_path, fifty(servers), *OURS, *parser)
    assert private_seen(servers) == []
    for server in servers:
        seen = server.seen  # type: ignore[attr-defined]
        assert seen.count("/robots.txt") == 1 and len(seen) == 1 + 5  # robots.txt and its 5 allowed URLs
    assert stat(log, "robotstxt/forbidden") == 25


def test_stock_scrapy_fifty_urls_baseline(tmp_path, record_property):
    """The 50-URL variant under stock Scrapy: the count it leaks, for the record."""
    with origins(5, DISALLOW_PRIVATE) as servers:
        crawl(tmp_path, fifty(servers))
    leaked = private_seen(servers)
    record_property("stock_leaked_of_25", len(leaked))
    print(f"stock Scrapy {scrapy.__version__}: {len(leaked)} of 25 disallowed URLs reached the servers")
    assert leaked or Version(scrapy.__version__) > LEAKING_SCRAPY


def test_dropin_middleware_refuses_all_when_robots_txt_is_unreachable(tmp_path):
    """RFC 9309 §2.3.1.4: a 503 robots.txt disallows everything (stock Scrapy parses the
    error page and fetches every URL)."""
    with origins(1, b"Service unavailable", status=503) as servers:
        log = crawl(tmp_path, [base(servers[0]) + p for p in SIX], *OURS, *PARSER)
    seen = servers[0].seen  # type: ignore[attr-defined]
    assert set(seen) == {"/robots.txt"}  # fetched, retried by Scrapy's RetryMiddleware, nothing else
    assert stat(log, "walsh/robotstxt/unreachable") == 6


# ------------------------------------------------- the parser: RFC 9309 groups by product token

#: The site wrote the version of our crawler it saw; the product token is what counts (§2.2.1).
NAMED = b"""User-agent: *
Disallow: /private/

User-agent: WalshBot/1.0
Allow: /private/shared
Disallow: /members
"""
NAMED_URLS = ["/private/shared", "/private/other", "/members/a", "/ok"]
UA = ("-s", "USER_AGENT=WalshBot/2.0 (+https://walsh.example/bot)")


def _named_crawl(tmp_path: Path, *settings: str) -> list[str]:
    with origins(1, NAMED) as servers:
        # one request at a time: the stock middleware's leak can't blur the parser's decisions
        crawl(tmp_path, [base(servers[0]) + p for p in NAMED_URLS], *UA, "-s", "CONCURRENT_REQUESTS=1", *settings)
    return sorted(p for p in servers[0].seen if p != "/robots.txt")  # type: ignore[attr-defined]


def test_stock_scrapy_with_our_parser_obeys_the_named_group_both_ways(tmp_path):
    """Only ``ROBOTSTXT_PARSER`` set, stock middleware: our group overrides ``*`` both ways."""
    fetched = _named_crawl(tmp_path, *PARSER)
    # * disallows /private/, our group doesn't (and allows /private/shared): fetched.
    # * allows /members, our group disallows it: never sent.
    assert fetched == ["/ok", "/private/other", "/private/shared"]


def test_protego_decides_the_same_file_differently(tmp_path):
    """Stock Scrapy (Protego) looks for "walshbot/1.0" in the User-Agent, finds nothing and
    applies ``*``: the swap matters."""
    fetched = _named_crawl(tmp_path)
    assert fetched == ["/members/a", "/ok"]


# --------------------------------------------------- the check: row 2 names the leaking middleware


def _row_2_findings(project: Path) -> list[dict]:
    result = run_scrapy(["walsh", "check", "--json"], cwd=project)
    report = json.loads(result.stdout)
    return [f for row in report["rows"] if row["row"] == "2" for f in row["findings"]]


def test_check_warns_about_the_stock_middleware_on_an_affected_scrapy(tmp_path):
    """A project without the add-on, ``ROBOTSTXT_OBEY = True`` (the template's), stock middleware."""
    project = new_project(tmp_path)
    assert "ROBOTSTXT_OBEY = True" in (project / "plainproj" / "settings.py").read_text()
    warned = [f for f in _row_2_findings(project) if f["setting"] == "ROBOTSTXT_OBEY"]
    assert [f["status"] for f in warned] == ["warn"]
    assert f"on Scrapy {scrapy.__version__}" in warned[0]["message"]
    assert "scrapy_walsh.RobotsTxtMiddleware" in warned[0]["message"]
    # the two lines of docs/robotstxt-any-project.md: the warning goes
    settings = project / "plainproj" / "settings.py"
    settings.write_text(
        settings.read_text()
        + f"\nDOWNLOADER_MIDDLEWARES = {STOCK_OFF.replace('null', 'None')}\n"
        + 'ROBOTSTXT_PARSER = "scrapy_walsh.RobotParser"\n'
    )
    assert not [f for f in _row_2_findings(project) if f["setting"] == "ROBOTSTXT_OBEY"]


# ---------------------------------------------------------------------- the robots.txt bound

#: The most a crawl reading a huge robots.txt may take (the add-on's bombs stay near 100 MB).
MAX_RSS_MB = 250


def _measured_dropin_crawl(tmp_path: Path, robots) -> tuple[HostileServer, str, float]:
    """``/ok1`` and ``/private/a`` of a server answering ``robots`` for robots.txt, crawled by
    ``scrapy runspider`` with both drop-ins and no add-on: (the server, the log, peak RSS in MB)."""
    server = HostileServer("127.0.0.206", {"/robots.txt": robots})
    try:
        spider = tmp_path / "targets.py"
        spider.write_text(SPIDER)
        urls = json.dumps([server.url("/ok1"), server.url("/private/a")])
        command = ["-m", "scrapy", "runspider", str(spider), "-a", f"urls={urls}", "-s", "ROBOTSTXT_OBEY=True"]
        code, rss = run_measured([sys.executable, *command, *OURS, *PARSER], tmp_path, tmp_path / "crawl.log")
    finally:
        server.close()
    log = (tmp_path / "crawl.log").read_text()
    assert code == 0, log[-3000:]
    assert rss <= MAX_RSS_MB, f"peak RSS {rss:.0f} MB"
    return server, log, rss


def test_dropin_middleware_reads_a_huge_robots_txt_up_to_its_bound(tmp_path):
    """A 400 MiB robots.txt, without the add-on: the drop-in reads it up to the add-on's bound
    (4 MiB + 64 KiB) with the add-on's code, so the crawl stays small; the rule at its start
    holds, and the ``Disallow: /`` at its end, past the bound, is not read."""
    server, log, rss = _measured_dropin_crawl(tmp_path, long_file(DISALLOW_PRIVATE, 400 * MIB, b"Disallow: /\n"))
    print(f"drop-in, 400 MiB robots.txt: peak RSS {rss:.0f} MB")
    assert [r["path"] for r in server.log] == ["/robots.txt", "/ok1"]  # /private/a refused, /ok1 allowed
    assert stat(log, "robotstxt/forbidden") == 1
    assert stat(log, "walsh/bounds/cut/robots") == 1


def test_dropin_middleware_never_decodes_a_robots_txt_bomb_whole(tmp_path):
    """A gzip robots.txt decoding to 200 MiB, without the add-on: Scrapy's decompression stops
    at the same bound, the file counts as unreachable (RFC 9309 §2.3.1.4: disallow all), and
    the crawl stays small."""
    body = bomb(tmp_path / "robots.gz", "gzip", prefix=DISALLOW_PRIVATE, size=200 * MIB, fill=b"#")
    server, log, rss = _measured_dropin_crawl(tmp_path, compressed({"Content-Encoding": "gzip"}, body))
    print(f"drop-in, robots.txt gzip bomb (200 MiB decoded): peak RSS {rss:.0f} MB")
    assert [r["path"] for r in server.log] == ["/robots.txt"]
    assert stat(log, "walsh/robotstxt/unreachable") == 2
