"""The demo site over real loopback sockets.

``*.walsh-demo.test`` names do not resolve through the OS, so every request connects to
the host's IP and names the host in an explicit ``Host`` header, as a crawler with the
demo resolver would.
"""

from __future__ import annotations

import email.utils
import gzip
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from demo_site import (
    DEFAULT_PORT,
    DEMO_DOMAIN,
    HOSTS,
    DemoSite,
    load_request_log,
)
from demo_site.content import LAST_MODIFIED, default_blocklist
from demo_site.hosts import BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH

UA = "Walsh-Research/0.1 (+https://wal.sh/bot; compliance test)"
SM_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def site() -> Iterator[DemoSite]:
    demo = DemoSite().start()
    try:
        yield demo
    finally:
        demo.stop()


class Resp:
    def __init__(self, r: http.client.HTTPResponse, body: bytes) -> None:
        self.status, self.headers, self.body = r.status, r.headers, body

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


def fetch(
    site: DemoSite,
    key: str,
    path: str = "/",
    headers: dict[str, str] | None = None,
    *,
    host: str | None = None,
    ip: str | None = None,
    method: str = "GET",
    conn: http.client.HTTPConnection | None = None,
) -> Resp:
    """One request to ``key``'s IP (or ``ip``) with ``Host: <name>:<port>`` (or ``host``)."""
    own = conn is None
    if conn is None:
        conn = http.client.HTTPConnection(ip or HOSTS[key].ip, site.port, timeout=10)
    hdrs = {"Host": host or f"{HOSTS[key].name}:{site.port}", "User-Agent": UA}
    hdrs.update(headers or {})
    try:
        conn.request(method, path, headers=hdrs)
        r = conn.getresponse()
        return Resp(r, r.read())
    finally:
        if own:
            conn.close()


# --------------------------------------------------------------------------- robots.txt

ALLOW_ALL = "User-agent: *\nDisallow:\n"
ROBOTS = {
    "open": (200, "User-agent: *\nDisallow: /private/\n\nSitemap: {base}/sitemap.xml\n"),
    "named": (
        200,
        "# A group naming us overrides * in both directions.\nUser-agent: *\nDisallow: /members/\n\n"
        "User-agent: Walsh-Research\nDisallow: /research-off/\n",
    ),
    "slow": (
        200,
        "User-agent: *\nCrawl-delay: 30\nDisallow: /nothing-for-others/\n\n"
        "User-agent: Walsh-Research\nCrawl-delay: 2\nDisallow: /nothing-for-us/\n",
    ),
    "down": (503, "<html><body><h1>503 Service Unavailable</h1><p>User-agent: * Allow: /</p></body></html>"),
    "blocked": (200, "User-agent: *\nAllow: /\n"),
    "www.blocked": (200, "User-agent: *\nAllow: /\n"),
    "busy": (200, ALLOW_ALL),
    "docs": (200, ALLOW_ALL + "\nSitemap: {base}/sitemap.xml\n"),
    "llmsonly": (200, ALLOW_ALL),
    "htmlonly": (200, ALLOW_ALL),
    "decoys": (
        200,
        "".join(
            f"User-agent: {ua}\nDisallow: /\n\n"
            for ua in ("bot", "Mozilla", "wal", "sh", "Walsh", "Walsh-Research-Extra")
        )
        + "User-agent: *\nDisallow: /private/\n",
    ),
    "gone": (404, "not found\n"),
    "hostile": (200, ALLOW_ALL),
    "ops": (200, ALLOW_ALL),
    "usage": (
        200,
        "# Usage preferences: RSL licence, Content Signals, aipref Content-Usage.\n"
        "License: {base}/license.xml\n\nUser-agent: *\nContent-Signal: search=yes, ai-input=yes, ai-train=no\n"
        "Content-Usage: /closed/ search=n\nAllow: /\n",
    ),
    "ratelimit": (200, ALLOW_ALL),
    "feeds": (200, ALLOW_ALL + "\nSitemap: {base}/blog/feed.xml\n"),
}


def test_every_host_has_a_robots_expectation() -> None:
    assert set(ROBOTS) == set(HOSTS)


@pytest.mark.parametrize("key", list(ROBOTS))
def test_robots_per_host(site: DemoSite, key: str) -> None:
    status, body = ROBOTS[key]
    r = fetch(site, key, "/robots.txt")
    assert r.status == status
    assert r.text == body.replace("{base}", site.base(key))
    if key == "down":
        assert r.headers["Content-Type"].startswith("text/html")
    elif status == 200:
        assert r.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert int(r.headers["Content-Length"]) == len(r.body)


# --------------------------------------------------------------------------- dispatch


def test_host_header_dispatch_by_name_and_by_ip(site: DemoSite) -> None:
    # The Host name wins over the address the connection arrived on...
    r = fetch(site, "docs", "/llms.txt", ip=HOSTS["open"].ip)
    assert r.status == 200 and r.text.startswith("# Walsh Demo Docs\n")
    # ...and without a known name, the address decides.
    r = fetch(site, "docs", "/llms.txt", host=f"127.0.0.9:{site.port}")
    assert r.status == 200 and f"http://127.0.0.9:{site.port}/guide/intro.md" in r.text
    r = fetch(site, "open", "/robots.txt", host=f"{HOSTS['open'].ip}:{site.port}")
    assert r.text.endswith(f"Sitemap: {site.base('open', by_ip=True)}/sitemap.xml\n")
    r = fetch(site, "htmlonly", "/llms.txt")
    assert r.status == 404 and r.text == "not found\n"
    keys = [rec["host_key"] for rec in site.requests]
    assert keys == ["docs", "docs", "open", "htmlonly"]
    assert [rec["ip"] for rec in site.requests][:2] == [HOSTS["open"].ip, HOSTS["docs"].ip]


def test_base_and_url(site: DemoSite) -> None:
    assert site.base("open") == f"http://open.{DEMO_DOMAIN}:{site.port}"
    assert site.base("open", by_ip=True) == f"http://127.0.0.2:{site.port}"
    assert site.url("docs", "/llms.txt") == f"http://docs.{DEMO_DOMAIN}:{site.port}/llms.txt"
    assert site.url("docs", "llms.txt", by_ip=True) == f"http://127.0.0.9:{site.port}/llms.txt"
    assert DEFAULT_PORT == 8787


def test_html_page_links_and_assets(site: DemoSite) -> None:
    r = fetch(site, "named", "/page/hello")
    assert r.status == 200
    assert r.headers["Content-Type"] == "text/html; charset=utf-8"
    for needle in (
        "<title>named page hello</title>",
        "<h1>",
        'href="/page/hello-a"',
        'href="/page/hello-b"',
        f'href="http://open.{DEMO_DOMAIN}:{site.port}/page/from-named"',
        '<img src="/static/logo.png"',
        '<link rel="stylesheet" href="/static/site.css">',
        '<script src="/static/app.js"></script>',
    ):
        assert needle in r.text
    # Same request, same bytes.
    assert fetch(site, "named", "/page/hello").body == r.body
    # Areas robots.txt fences off still exist: the crawler must refuse, not the server.
    for key, path in [
        ("open", "/private/x"),
        ("named", "/members/a"),
        ("named", "/research-off/b"),
        ("decoys", "/private/y"),
        ("down", "/page/1"),
        ("gone", "/page/1"),
    ]:
        assert fetch(site, key, path).status == 200, (key, path)
    assert fetch(site, "open", "/nope").status == 404


def test_static_assets(site: DemoSite) -> None:
    expected = {
        "/static/logo.png": "image/png",
        "/static/site.css": "text/css",
        "/static/app.js": "application/javascript",
        "/static/font.woff2": "font/woff2",
        "/static/clip.mp4": "video/mp4",
    }
    for path, ctype in expected.items():
        r = fetch(site, "open", path)
        assert (r.status, r.headers["Content-Type"]) == (200, ctype)
        assert r.body
    assert fetch(site, "open", "/static/logo.png").body.startswith(b"\x89PNG\r\n\x1a\n")


def test_keep_alive_and_head(site: DemoSite) -> None:
    conn = http.client.HTTPConnection(HOSTS["open"].ip, site.port, timeout=10)
    try:
        a = fetch(site, "open", "/page/1", conn=conn)
        h = fetch(site, "open", "/page/1", conn=conn, method="HEAD")
        b = fetch(site, "open", "/page/2", conn=conn)
    finally:
        conn.close()
    assert a.status == h.status == b.status == 200
    assert h.body == b"" and int(h.headers["Content-Length"]) == len(a.body)
    assert [r["method"] for r in site.requests] == ["GET", "HEAD", "GET"]


def test_x_robots_tag_and_redirect(site: DemoSite) -> None:
    r = fetch(site, "open", "/page/t?x-robots-tag=noindex&x-robots-tag=walsh-research:%20noai")
    assert r.headers.get_all("X-Robots-Tag") == ["noindex", "walsh-research: noai"]
    r = fetch(site, "open", "/noindex")
    assert r.headers.get_all("X-Robots-Tag") == ["noindex", "walsh-research: noai, nofollow"]
    r = fetch(site, "open", "/redirect?to=/page/there")
    assert (r.status, r.headers["Location"]) == (302, "/page/there")
    target = site.url("docs", "/llms.txt")
    r = fetch(site, "open", f"/redirect?to={target}&code=308")
    assert (r.status, r.headers["Location"]) == (308, target)


# --------------------------------------------------------------------------- the log


def test_log_fields(site: DemoSite) -> None:
    before = time.time()
    fetch(site, "open", "/page/1?q=1", {"X-Extra": "a"}, host=f"OPEN.Walsh-Demo.TEST:{site.port}")
    fetch(site, "gone", "/robots.txt")
    fetch(site, "named", "/members/secret", {"Accept": "text/html"})
    recs = site.requests
    assert [(r["host_key"], r["path"], r["status"]) for r in recs] == [
        ("open", "/page/1?q=1", 200),
        ("gone", "/robots.txt", 404),
        ("named", "/members/secret", 200),
    ]
    first = recs[0]
    assert first["headers"]["User-Agent"] == UA
    assert first["headers"]["X-Extra"] == "a"
    assert first["headers"]["Host"] == f"OPEN.Walsh-Demo.TEST:{site.port}"
    assert first["host"] == "open.walsh-demo.test"
    assert (first["ip"], first["port"], first["method"]) == ("127.0.0.2", site.port, "GET")
    assert set(first) == {
        "t",
        "mono",
        "replied",
        "end",
        "host",
        "host_key",
        "ip",
        "port",
        "method",
        "path",
        "headers",
        "status",
        "in_flight",
        "signature",  # Web Bot Auth: "verified", "missing" or "invalid: ..."
    }
    assert all(r["mono"] <= r["replied"] <= r["end"] for r in recs)
    assert all(r["in_flight"] == 1 for r in recs)
    assert before <= first["t"] <= time.time()
    monos = [r["mono"] for r in recs]
    assert monos == sorted(monos)
    assert all(r["mono"] <= r["end"] for r in recs)
    assert [r["path"] for r in site.requests_for("named")] == ["/members/secret"]
    assert len(site.requests_for(prefix="/robots")) == 1
    assert len(site.requests_for(host_key="open", path="/page/1?q=1")) == 1
    site.reset()
    assert site.requests == []


def test_repeated_request_headers_are_joined(site: DemoSite) -> None:
    sock = socket.create_connection((HOSTS["open"].ip, site.port), timeout=10)
    try:
        sock.sendall(
            f"GET /page/r HTTP/1.1\r\nHost: open.{DEMO_DOMAIN}:{site.port}\r\n"
            "X-Rep: one\r\nX-Rep: two\r\nConnection: close\r\n\r\n".encode()
        )
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    finally:
        sock.close()
    assert data.startswith(b"HTTP/1.1 200 ")
    (rec,) = site.requests
    assert rec["headers"]["X-Rep"] == "one, two"


def test_in_flight_and_arrival_order(site: DemoSite) -> None:
    slow = threading.Thread(target=fetch, args=(site, "slow", "/page/a?latency=0.6"))
    slow.start()
    time.sleep(0.25)
    fetch(site, "open", "/page/b")
    slow.join()
    a, b = site.requests
    assert (a["host_key"], b["host_key"]) == ("slow", "open")  # arrival order, not completion
    assert (a["in_flight"], b["in_flight"]) == (1, 2)
    assert b["end"] < a["end"]
    assert a["end"] - a["mono"] >= 0.6


SERIAL_CLIENT = """
import http.client, sys
port, a_ip, b_ip = int(sys.argv[1]), sys.argv[2], sys.argv[3]
conns = {"open": http.client.HTTPConnection(a_ip, port, timeout=10),
         "named": http.client.HTTPConnection(b_ip, port, timeout=10)}
for i in range(60):
    key = ("open", "named")[i % 2]
    conns[key].request("GET", f"/page/{i}", headers={"Host": f"{key}.walsh-demo.test:{port}"})
    conns[key].getresponse().read()
"""


def test_a_serial_client_is_never_seen_with_two_in_flight(site: DemoSite) -> None:
    """Back-to-back requests on kept-alive connections to two hosts, as Scrapy sends them.

    The client runs in its own process (as a crawl does), so its next request can
    arrive while the server is still logging the previous one; that must not count as
    two in flight, or the R4 "never two at once" measure would lie.
    """
    subprocess.run(
        [sys.executable, "-c", SERIAL_CLIENT, str(site.port), HOSTS["open"].ip, HOSTS["named"].ip],
        check=True,
        timeout=60,
    )
    recs = site.requests
    assert len(recs) == 60
    assert [r["in_flight"] for r in recs] == [1] * 60
    assert all(a["replied"] <= b["mono"] for a, b in zip(recs, recs[1:]))


def test_latency() -> None:
    with DemoSite(latency=0.2, hosts=["open"]) as demo:
        t0 = time.monotonic()
        assert fetch(demo, "open", "/page/1").status == 200
        assert time.monotonic() - t0 >= 0.2
        t0 = time.monotonic()
        fetch(demo, "open", "/page/1?latency=0")
        assert time.monotonic() - t0 < 0.15
        fetch(demo, "open", "/page/1?latency=0.3")
        slow, fast, slower = demo.requests
        assert slow["end"] - slow["mono"] >= 0.2
        assert fast["end"] - fast["mono"] < 0.15
        assert slower["end"] - slower["mono"] >= 0.3
        # docs is not served here: its name in Host is ignored and the address decides.
        assert fetch(demo, "docs", "/llms.txt", ip=HOSTS["open"].ip).status == 404
        assert demo.requests[-1]["host_key"] == "open"


def test_log_path_round_trip(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with DemoSite(log_path=log, hosts=["open", "docs"]) as demo:
        threading.Thread(target=fetch, args=(demo, "docs", "/llms.txt?latency=0.3")).start()
        time.sleep(0.1)
        fetch(demo, "open", "/robots.txt")
        fetch(demo, "open", "/page/1")
        time.sleep(0.4)
        seen = demo.requests
    assert len(log.read_text().splitlines()) == 3
    assert load_request_log(log) == seen
    assert [r["path"] for r in seen] == ["/llms.txt?latency=0.3", "/robots.txt", "/page/1"]


def test_sentinels_catch_loopback() -> None:
    with DemoSite(sentinels=True, hosts=["hostile"]) as demo:
        assert "127.0.0.1" in demo.sentinel_ips
        r = fetch(demo, "hostile", "/page/loopback", ip="127.0.0.1", host=f"127.0.0.1:{demo.port}")
        assert (r.status, r.body) == (200, b"sentinel")
        # Even a demo name in Host does not make a sentinel listener serve content.
        r = fetch(demo, "hostile", "/llms.txt", ip="127.0.0.1")
        assert r.body == b"sentinel"
        if "::1" in demo.sentinel_ips:
            r = fetch(demo, "hostile", "/page/v6", ip="::1", host=f"[::1]:{demo.port}")
            assert r.body == b"sentinel"
        recs = demo.requests
        assert {r["host_key"] for r in recs} == {"sentinel"}
        assert recs[0]["ip"] == "127.0.0.1" and recs[0]["path"] == "/page/loopback"


def test_stop_is_idempotent_and_cuts_idle_keep_alive() -> None:
    demo = DemoSite(hosts=["open"]).start()
    conn = http.client.HTTPConnection(HOSTS["open"].ip, demo.port, timeout=10)
    fetch(demo, "open", "/page/1", conn=conn)  # leaves an idle keep-alive connection
    t0 = time.monotonic()
    demo.stop()
    demo.stop()
    assert time.monotonic() - t0 < 2
    conn.close()
    with pytest.raises(OSError):
        socket.create_connection((HOSTS["open"].ip, demo.port), timeout=1).close()


# --------------------------------------------------------------------------- status & backoff


def test_status_times_then_200(site: DemoSite) -> None:
    path = "/status/429?times=1&retry-after=3"
    r = fetch(site, "busy", path)
    assert (r.status, r.headers["Retry-After"]) == (429, "3")
    r = fetch(site, "busy", path)
    assert r.status == 200 and r.headers["Retry-After"] is None
    assert "<html" in r.text
    # Another host, or another query, counts separately.
    assert fetch(site, "open", path).status == 429
    assert fetch(site, "busy", path + "&x=1").status == 429
    # No times: every time.
    assert [fetch(site, "busy", "/status/503").status for _ in range(3)] == [503, 503, 503]
    assert fetch(site, "busy", "/status/999").status == 404
    site.reset()
    assert fetch(site, "busy", path).status == 429


def test_retry_after_date(site: DemoSite) -> None:
    r = fetch(site, "busy", "/status/503?retry-after-date=120")
    assert r.status == 503
    when = email.utils.parsedate_to_datetime(r.headers["Retry-After"])
    assert abs(when.timestamp() - (time.time() + 120)) < 5
    assert r.headers["Retry-After"].endswith(" GMT")


def test_repeated_and_garbage_retry_after(site: DemoSite) -> None:
    r = fetch(site, "busy", "/status/429?retry-after=1&retry-after=2")
    assert r.headers.get_all("Retry-After") == ["1", "2"]
    for raw in ("-5", "1.5", "soon"):
        assert fetch(site, "busy", f"/status/503?retry-after={raw}").headers["Retry-After"] == raw


def test_limited_is_429_once(site: DemoSite) -> None:
    r = fetch(site, "busy", "/limited")
    assert (r.status, r.headers["Retry-After"]) == (429, "3")
    assert fetch(site, "busy", "/limited").status == 200
    assert fetch(site, "busy", "/limited?again=1").status == 200  # per path, not per query
    site.reset()
    assert fetch(site, "busy", "/limited").status == 429
    assert [r["status"] for r in site.requests_for("busy")] == [429]


# --------------------------------------------------------------------------- markdown & llms.txt


def test_docs_content_negotiation(site: DemoSite) -> None:
    md = fetch(site, "docs", "/guide/intro", {"Accept": "text/markdown, text/html;q=0.5"})
    assert md.headers["Content-Type"] == "text/markdown; charset=utf-8"
    assert md.headers["Vary"] == "Accept"
    lines = md.text.splitlines()
    assert lines[0].startswith("# ")
    assert sum(line.startswith("## ") for line in lines) == 2
    assert f"]({site.base('docs')}/guide/setup)" in md.text
    html = fetch(site, "docs", "/guide/intro", {"Accept": "text/html"})
    assert html.headers["Content-Type"] == "text/html; charset=utf-8"
    assert html.headers["Vary"] == "Accept"
    assert "<h1>" in html.text and "<h2>" in html.text
    assert html.headers["ETag"] != md.headers["ETag"]
    assert fetch(site, "docs", "/guide/setup").headers["Content-Type"].startswith("text/html")
    assert (
        fetch(site, "docs", "/guide/setup", {"Accept": "text/markdown;q=0"})
        .headers["Content-Type"]
        .startswith("text/html")
    )
    twin = fetch(site, "docs", "/guide/intro.md", {"Accept": "text/html"})
    assert twin.headers["Content-Type"] == "text/markdown; charset=utf-8" and twin.body == md.body
    assert fetch(site, "docs", "/changelog.md").headers["Content-Type"].startswith("text/markdown")
    # /guide/faq answers HTML whatever Accept says; its twin /guide/faq.md is markdown.
    faq = fetch(site, "docs", "/guide/faq", {"Accept": "text/markdown"})
    assert faq.headers["Content-Type"] == "text/html; charset=utf-8" and "Vary" not in faq.headers
    assert fetch(site, "docs", "/guide/faq.md").headers["Content-Type"] == "text/markdown; charset=utf-8"
    assert fetch(site, "hostile", "/research-off/notes").headers["Content-Type"].startswith("text/html")
    # Hosts without markdown ignore Accept.
    other = fetch(site, "llmsonly", "/page/alpha", {"Accept": "text/markdown"})
    assert other.headers["Content-Type"] == "text/html; charset=utf-8"


def test_docs_llms_txt(site: DemoSite) -> None:
    base = site.base("docs")
    r = fetch(site, "docs", "/llms.txt")
    assert r.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert r.text == (
        "# Walsh Demo Docs\n\n"
        "> Documentation for the demo product, served for crawler tests.\n\n"
        "The pages below have markdown twins.\n\n"
        "## Docs\n\n"
        f"- [Intro]({base}/guide/intro.md): Getting started\n"
        f"- [Setup]({base}/guide/setup.md): Installing the demo\n"
        f"- [FAQ]({base}/guide/faq.md): Questions (the HTML page has no negotiation)\n\n"
        "## Optional\n\n"
        f"- [Changelog]({base}/changelog.md): Release notes\n"
    )
    sm = ET.fromstring(fetch(site, "docs", "/sitemap.xml").body)
    assert [e.text for e in sm.iter(f"{SM_NS}loc")] == [f"{base}/guide/intro", f"{base}/guide/setup"]


def test_llmsonly_and_hostile_llms_txt(site: DemoSite) -> None:
    r = fetch(site, "llmsonly", "/llms.txt")
    base = site.base("llmsonly")
    assert r.text.startswith("# Llms Only Demo\n\n> ")
    assert "## Pages\n" in r.text and "## Optional\n" in r.text
    assert f"({base}/page/alpha)" in r.text and f"({base}/page/beta)" in r.text
    r = fetch(site, "hostile", "/llms.txt")
    assert r.text.startswith("# Hostile Demo\n")
    p = site.port
    for url in (
        f"http://127.0.0.1:{p}/page/loopback.md",
        f"http://[::1]:{p}/page/v6.md",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/internal/admin",
        f"http://named.{DEMO_DOMAIN}:{p}/research-off/notes.md",
        f"{site.base('hostile')}/page/ok",
        f"http://loopback.{DEMO_DOMAIN}:{p}/page/by-name.md",
        f"http://loopback6.{DEMO_DOMAIN}:{p}/page/by-name6.md",
    ):
        assert f"]({url})" in r.text
    assert len(site.requests) == 2  # the server fetched nothing itself


# --------------------------------------------------------------------------- conditional GET


def test_conditional_get(site: DemoSite) -> None:
    r = fetch(site, "open", "/page/c")
    etag, lm = r.headers["ETag"], r.headers["Last-Modified"]
    assert etag.startswith('"') and etag.endswith('"') and lm == LAST_MODIFIED
    for hdrs in (
        {"If-None-Match": etag},
        {"If-None-Match": f'"nope", W/{etag}'},
        {"If-None-Match": "*"},
        {"If-Modified-Since": LAST_MODIFIED},
        {"If-Modified-Since": "Tue, 01 Dec 2026 00:00:00 GMT"},
    ):
        nm = fetch(site, "open", "/page/c", hdrs)
        assert (nm.status, nm.body) == (304, b""), hdrs
        assert (nm.headers["ETag"], nm.headers["Last-Modified"]) == (etag, lm)
    for hdrs in (
        {"If-None-Match": '"other"'},
        {"If-Modified-Since": "Sun, 01 Nov 2026 00:00:00 GMT"},
        {"If-None-Match": '"other"', "If-Modified-Since": LAST_MODIFIED},
        {"If-Modified-Since": "garbage"},
    ):
        full = fetch(site, "open", "/page/c", hdrs)
        assert (full.status, full.body) == (200, r.body), hdrs


# --------------------------------------------------------------------------- sitemaps


def test_sitemaps(site: DemoSite) -> None:
    base = site.base("open")
    r = fetch(site, "open", "/sitemap.xml")
    assert r.headers["Content-Type"] == "application/xml; charset=utf-8"
    root = ET.fromstring(r.body)
    assert root.tag == f"{SM_NS}urlset"
    urls = root.findall(f"{SM_NS}url")
    assert [u.findtext(f"{SM_NS}loc") for u in urls] == [f"{base}/page/{n}" for n in (1, 2, 3)]
    assert [u.findtext(f"{SM_NS}lastmod") for u in urls] == ["2026-11-01", "2026-11-02", "2026-11-03"]
    gz = fetch(site, "open", "/sitemap.xml.gz")
    assert gz.headers["Content-Type"] == "application/gzip"
    assert gzip.decompress(gz.body) == r.body
    assert fetch(site, "open", "/sitemap.xml.gz").body == gz.body  # deterministic (mtime=0)
    index = ET.fromstring(fetch(site, "open", "/sitemap_index.xml").body)
    assert index.tag == f"{SM_NS}sitemapindex"
    assert [s.findtext(f"{SM_NS}loc") for s in index.findall(f"{SM_NS}sitemap")] == [
        f"{base}/sitemap.xml",
        f"{base}/sitemap.xml.gz",
    ]


# --------------------------------------------------------------------------- blocklist


def _schema() -> dict:
    return json.loads((resources.files("scrapy_walsh") / "schemas" / "blocklist.schema.json").read_bytes())


def test_blocklist_default_and_schema(site: DemoSite) -> None:
    r = fetch(site, "ops", BLOCKLIST_PATH)
    assert (r.status, r.headers["Content-Type"]) == (200, "application/json")
    assert r.body == (json.dumps(default_blocklist(), indent=2, sort_keys=True) + "\n").encode()
    doc = json.loads(r.body)
    schema = fetch(site, "ops", BLOCKLIST_SCHEMA_PATH)
    assert schema.headers["Content-Type"] == "application/schema+json"
    assert json.loads(schema.body) == _schema()
    validator = jsonschema.Draft202012Validator(_schema(), format_checker=jsonschema.FormatChecker())
    validator.validate(doc)
    assert [e["domain"] for e in doc["blocked"]] == [f"blocked.{DEMO_DOMAIN}"]
    # Only the ops host has it.
    assert fetch(site, "open", BLOCKLIST_PATH).status == 404


def test_set_blocklist(site: DemoSite) -> None:
    doc = default_blocklist() | {"blocked": []}
    site.set_blocklist(doc)
    assert json.loads(fetch(site, "ops", BLOCKLIST_PATH).body)["blocked"] == []
    site.set_blocklist("{not json", status=200)
    assert fetch(site, "ops", BLOCKLIST_PATH).body == b"{not json"
    site.set_blocklist(b"", status=503)
    assert fetch(site, "ops", BLOCKLIST_PATH).status == 503
    site.set_blocklist()
    r = fetch(site, "ops", BLOCKLIST_PATH)
    assert r.status == 200 and json.loads(r.body) == default_blocklist()


# --------------------------------------------------------------------------- CLI


def test_cli_serve(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "demo_site",
            "serve",
            "--port",
            "0",
            "--ready-file",
            str(ready),
            "--log",
            str(tmp_path / "log.jsonl"),
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 10
        while not ready.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "demo server never became ready"
            time.sleep(0.05)
        port = int(ready.read_text())
        conn = http.client.HTTPConnection(HOSTS["open"].ip, port, timeout=10)
        conn.request("GET", "/robots.txt", headers={"Host": f"open.{DEMO_DOMAIN}:{port}", "User-Agent": UA})
        r = conn.getresponse()
        assert r.status == 200 and b"Disallow: /private/" in r.read()
        conn.close()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert f"http://open.{DEMO_DOMAIN}:{port}/" in out and "127.0.0.15" in out
    (rec,) = load_request_log(tmp_path / "log.jsonl")
    assert rec["headers"]["User-Agent"] == UA and rec["host_key"] == "open"


def test_cli_hosts() -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run(
        [sys.executable, "-m", "demo_site", "hosts"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    ).stdout
    for host in HOSTS.values():
        assert host.name in out and host.ip in out
    assert f":{DEFAULT_PORT}/" in out
