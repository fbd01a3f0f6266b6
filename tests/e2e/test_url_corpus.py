"""What a URL's text says against what a real server does with the request Scrapy writes for it.

A gate that judges a URL's text while Scrapy and the server act on another reading fails open:
``/pub/../private/a`` passes ``Disallow: /private/`` and nginx serves ``/private/a``;
``http://O\\@S/`` passes a same-host check for S and Scrapy connects to O. Debian's nginx, in
its default configuration, serves several host names on loopback and logs ``$host``,
``$request_uri`` and ``$uri`` (what it resolved) for every request. The corpus
(:mod:`tests.url_corpus`) is the input; nginx's log is the oracle.

* the differential: each spelling's request is written as Scrapy's HTTP/1.1 handler writes it
  (Twisted's origin form and Host header of ``scrapy.Request(url).url``) and sent with a socket;
  no request the add-on would send (``scrapy_walsh.policy.urls``) may resolve under /private/,
  and the host it judges is the host Scrapy writes;
* a real crawl: a stock ``SitemapSpider`` (and a spider reading llms.txt) on sitemaps listing a
  sample of the corpus; nginx's log must show nothing under /private/ and no request to a host
  that is not declared.
"""

from __future__ import annotations

import json
import random
import re
import socket
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urldefrag, urlsplit
from xml.sax.saxutils import escape

import ada_url
import pytest
import scrapy
from twisted.web.client import URI, _AgentBase, _ensureValidURI
from w3lib.url import safe_url_string

from demo_site import DemoSite
from demo_site.hosts import HOSTS
from scrapy_walsh.policy.gates import RobotsFetch, robots_outcome
from scrapy_walsh.policy.hostkey import host_key, url_host
from scrapy_walsh.policy.vocabulary import BLOCKING_VERDICTS
from scrapy_walsh.settings import ROBOTS_TOKEN, USER_AGENT
from tests import nginx_server
from tests.helpers import add_addon_line, new_project, run_scrapy, write_spider
from tests.url_corpus import LEAVES, Hosts, Spelling, corpus, known_bad

DECLARED = tuple(HOSTS[key].name for key in ("open", "docs", "llmsonly", "htmlonly", "feeds", "decoys"))
UNDECLARED = HOSTS["named"].name
BLOCKED = HOSTS["blocked"].name  # listed in the demo's operator blocklist
NAMES = (*DECLARED, UNDECLARED, BLOCKED)
ADDRESSES = tuple(HOSTS[name.split(".")[0]].ip for name in NAMES)
ROBOTS = "User-agent: *\nDisallow: /private/\n"
PROBE = "X-Walsh-Probe"
#: Crawl sample size, and the declared hosts with an llms.txt listing some of it.
SAMPLE = 180
LLMS_HOSTS = DECLARED[1:3]
LLMS_LINKS = 15

HTTP = """
    log_format probe escape=json '{{"host":"$host","request_uri":"$request_uri","uri":"$uri",'
        '"status":"$status","probe":"$http_x_walsh_probe","ua":"$http_user_agent"}}';
    access_log {root}/access.log probe;
{servers}
"""
SERVER = """
    server {{
{listen}
        server_name {name};
        root {root}/sites/{site};
    }}
"""


@dataclass
class Nginx:
    port: int
    log: Path
    hosts: Hosts
    sample: list[Spelling]
    #: the log's length before the crawl tests: each reads the lines its crawl added
    mark: int = 0

    def records(self, since: int = 0) -> list[dict]:
        with self.log.open("rb") as f:
            f.seek(since)
            # nginx writes $uri's decoded octets as they are, not always UTF-8
            return [json.loads(line.decode("latin-1")) for line in f.read().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def nginx(tmp_path_factory):
    root = tmp_path_factory.mktemp("nginx")
    port = nginx_server.free_port(ADDRESSES)
    hosts = Hosts(DECLARED, UNDECLARED, BLOCKED, port, tuple((n, HOSTS[n.split(".")[0]].ip) for n in DECLARED))
    sample = crawl_sample(hosts)
    files = root / "files"
    for folder in ("pub", "private", "post"):
        (files / folder).mkdir(parents=True)
        for leaf in LEAVES:
            (files / folder / leaf).write_text(f"<html><title>{folder}/{leaf}</title><body>{folder}</body></html>")
    servers = []
    for name in (*NAMES, "_"):
        site = root / "sites" / name
        site.mkdir(parents=True)
        for folder in ("pub", "private", "post"):
            (site / folder).symlink_to(files / folder)
        (site / "index.html").write_text("<html><title>index</title></html>")
        (site / "robots.txt").write_text(ROBOTS + robots_sitemaps(hosts, name))
        listen = "\n".join(f"        listen {a}:{port}{' default_server' if name == '_' else ''};" for a in ADDRESSES)
        servers.append(SERVER.format(listen=listen, name=name, root=root, site=name))
    for name in DECLARED:  # each lists one plain page too: a crawl that fetches nothing proves nothing
        listed = [f"http://{name}:{port}/pub/a.html"] + [s.text for s in sample if s.host == name]
        (root / "sites" / name / "sitemap.xml").write_text(sitemap(listed))
        if name in LLMS_HOSTS:
            (root / "sites" / name / "llms.txt").write_text(llms_txt(listed))
    unreadable = [u.format(host=DECLARED[-1], port=port) for u in UNREADABLE]
    (root / "sites" / DECLARED[-1] / "unreadable.xml").write_text(sitemap(unreadable))
    with nginx_server.running(root, HTTP.format(root=root, servers="".join(servers)), port, ADDRESSES):
        yield Nginx(port, root / "access.log", hosts, sample)


def robots_sitemaps(hosts: Hosts, name: str) -> str:
    """The first declared host's robots.txt names its sitemap and, through the backslash host
    trick, one on the undeclared host and one on the blocklisted host."""
    if name != hosts.declared[0]:
        return ""
    port, own = hosts.port, f"{name}:{hosts.port}"
    return (
        f"Sitemap: http://{own}/sitemap.xml\n"
        f"Sitemap: http://{hosts.undeclared}:{port}\\@{own}/sitemap.xml\n"
        f"Sitemap: http://{hosts.blocked}:{port}\\@{own}/sitemap.xml\n"
    )


def crawl_sample(hosts: Hosts) -> list[Spelling]:
    """:data:`SAMPLE` spellings a sitemap can carry: the known bad ones, every backslash and userinfo
    host trick on the first three declared hosts (spread: a request Scrapy can't send slows its
    host's pace, R5), and a seeded draw of the rest. None names
    port 80 or no port (nothing of ours listens there)."""
    every = corpus(hosts)
    writable = [s for s in every if xml_safe(s.text) and f":{hosts.port}" in s.text]
    tricks = [
        s
        for s in writable
        if s.aim in ("undeclared", "blocked")
        and s.host in hosts.declared[:3]
        and s.text.endswith("/post/b.html")
        and ("userinfo" in s.family or "backslash" in s.family)
    ]
    chosen = {s.text: s for s in known_bad(hosts) + tricks}
    rest = [s for s in writable if s.text not in chosen]
    for spelling in random.Random(7).sample(rest, max(0, SAMPLE - len(chosen))):
        chosen[spelling.text] = spelling
    return list(chosen.values())


def xml_safe(text: str) -> bool:
    return all(c in "\t\n" or ord(c) >= 0x20 for c in text) and text == text.strip()


def sitemap(urls: list[str]) -> str:
    entries = "".join(f"<url><loc>{escape(u)}</loc></url>" for u in urls)
    return f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'


def llms_txt(urls: list[str]) -> str:
    """An llms.txt linking the first :data:`LLMS_LINKS` of ``urls`` a Markdown link can hold (no
    blank, no angle bracket), escapes written."""
    lines = ["# Corpus", "", "> URL spellings.", "", "## Pages", ""]
    for index, url in enumerate([u for u in urls if not re.search(r"[\s<>]", u)][:LLMS_LINKS]):
        destination = re.sub(r"([\\()])", r"\\\1", url)
        lines.append(f"- [page {index}]({destination}): one spelling")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- what Scrapy writes


@dataclass(frozen=True)
class Written:
    """The request Scrapy's HTTP/1.1 handler writes for a URL: Twisted's ``Agent`` builds it."""

    target: bytes  # the request line's origin form
    host_header: bytes
    host: str  # the name Twisted resolves and connects to (the Host header, port aside)


def scrapy_writes(url: str) -> Written | None:
    """None when Scrapy's handler can't write it (not ASCII, or Twisted refuses the URI)."""
    try:
        raw = _ensureValidURI(urldefrag(url)[0].encode("ascii").strip())
    except (UnicodeEncodeError, ValueError):
        return None
    uri = URI.fromBytes(raw)
    host_header = _AgentBase._computeHostValue(None, uri.scheme, uri.host, uri.port)  # type: ignore[arg-type]
    return Written(uri.originForm, host_header, uri.host.decode("ascii"))


def written_key(host: str) -> str:
    """The host key of a name Scrapy resolves; text that is no host name (``user@s``, ``o%40s``)
    is compared as it is: it is what the resolver is asked."""
    return host_key(host) if re.fullmatch(r"[A-Za-z0-9._-]*", host) else host.lower()


def send(port: int, written: Written, probe: int) -> None:
    request = (
        b"GET " + written.target + b" HTTP/1.1\r\nHost: " + written.host_header
        + f"\r\nUser-Agent: {USER_AGENT}\r\n{PROBE}: {probe}\r\nConnection: close\r\n\r\n".encode()
    )  # fmt: skip
    with socket.create_connection((ADDRESSES[0], port), timeout=10) as s:
        s.sendall(request)
        while s.recv(65536):
            pass


def readers(text: str) -> dict[str, str | None]:
    """The host each reader makes of the raw text, as a host key (None: it reads no URL): a WHATWG
    parser (ada), w3lib (Scrapy's ``safe_url_string``, then read by urllib), Scrapy's handler (the
    name Twisted resolves for ``scrapy.Request(text).url``) and urllib on the text as it is."""
    found: dict[str, str | None] = dict.fromkeys(("ada", "w3lib", "scrapy", "urllib"))
    try:
        found["ada"] = host_key(ada_url.URL(text).hostname)
    except ValueError:
        pass
    try:
        found["w3lib"] = host_key(urlsplit(safe_url_string(text)).hostname)
        written = scrapy_writes(scrapy.Request(text).url)
        found["scrapy"] = written_key(written.host) if written else None
    except ValueError:
        pass
    try:
        found["urllib"] = host_key(urlsplit(text).hostname)
    except ValueError:
        pass
    return found


# ---------------------------------------------------------------------- test A: the differential


@pytest.mark.timeout(120)
def test_no_request_the_addon_sends_resolves_under_private_or_to_another_host(nginx, tmp_path):
    from scrapy_walsh.policy.urls import UnsafeURL, readings, sent_url

    spellings = corpus(nginx.hosts)
    assert len(spellings) >= 2000
    robots = robots_outcome("", RobotsFetch(200, ROBOTS.encode()), time.time())  # as the robots gate reads it
    probes: dict[tuple[bytes, bytes], int] = {}  # one request per distinct (target, Host), in turn
    start = nginx.log.stat().st_size

    def probe(written: Written) -> int:
        key = (written.target, written.host_header)
        if key not in probes:
            probes[key] = len(probes)
            send(nginx.port, written, probes[key])
        return probes[key]

    counts: Counter[str] = Counter()
    rows, sends, disagreements = [], [], []
    for spelling in spellings:
        try:
            request_url = scrapy.Request(spelling.text).url
        except ValueError:
            counts["scrapy refuses"] += 1
            rows.append((spelling, None, None))
            continue
        written = scrapy_writes(request_url)
        rows.append((spelling, request_url, written and probe(written)))
        seen = readers(spelling.text)
        if len(set(seen.values())) > 1:
            disagreements.append((spelling, seen))
        try:
            sent = sent_url(spelling.text)
        except UnsafeURL:
            counts["refused as ambiguous"] += 1
            continue
        scrapy_sent = scrapy_writes(scrapy.Request(sent).url)
        verdicts = {robots.verdict(f"http://robots.invalid{r}", ROBOTS_TOKEN) for r in readings(sent)}
        allowed = not verdicts & BLOCKING_VERDICTS
        counts["robots refuses" if not allowed else "sent"] += 1
        sends.append((spelling, sent, scrapy_sent, allowed, scrapy_sent and probe(scrapy_sent)))
    # one line per request, in order (a request nginx refuses at its request line has no probe header)
    log = dict(enumerate(nginx.records(start)))
    assert len(log) == len(probes) and all(int(r["probe"] or n) == n for n, r in log.items())
    nginx.mark = nginx.log.stat().st_size

    table = tmp_path / "oracle.tsv"
    with table.open("w") as out:
        out.write("spelling\trequest.url\tstatus\t$host\t$request_uri\t$uri\n")
        for spelling, request_url, number in rows:
            record = log.get(number, {}) if number is not None else {}
            fields = (spelling.text, request_url or "(refused)", *(record.get(k, "") for k in ("status", "host")))
            out.write("\t".join(map(repr, (*fields, record.get("request_uri", ""), record.get("uri", "")))) + "\n")

    with (tmp_path / "disagreements.tsv").open("w") as out:
        out.write("spelling\tada\tw3lib\tscrapy\turllib\n")
        for spelling, seen in disagreements:
            out.write("\t".join(map(repr, (spelling.text, *seen.values()))) + "\n")

    fail_open, wrong_host, undeclared = [], [], []
    for spelling, sent, scrapy_sent, allowed, number in sends:
        if scrapy_sent is None:
            continue  # Scrapy's handler can't write it: nothing reaches a server
        if url_host(sent) != written_key(scrapy_sent.host):
            wrong_host.append((spelling.text, sent, url_host(sent), scrapy_sent.host))
        if allowed and log[number]["uri"].startswith("/private/"):
            fail_open.append((spelling.text, sent, log[number]["request_uri"], log[number]["uri"]))
    for spelling, seen in disagreements:
        try:
            sent = sent_url(spelling.text)
        except UnsafeURL:
            continue
        written = scrapy_writes(scrapy.Request(sent).url)
        if written is not None and written_key(written.host) not in DECLARED:
            undeclared.append((spelling.text, seen, written.host))
    summary = (
        f"{len(spellings)} spellings, {len(probes)} distinct requests to nginx, {dict(counts)}; "
        f"{len(fail_open)} sent and resolved under /private/, {len(wrong_host)} sent to another host than "
        f"judged, {len(undeclared)} of {len(disagreements)} where the readers disagree sent to a host not "
        f"declared; the oracle's table: {table}"
    )
    print(summary)
    assert not fail_open and not wrong_host and not undeclared, (
        summary + "\nfail open:\n" + "\n".join(map(repr, fail_open[:20]))
        + "\nanother host:\n" + "\n".join(map(repr, wrong_host[:20]))
        + "\nundeclared:\n" + "\n".join(map(repr, undeclared[:20]))
    )  # fmt: skip


# ---------------------------------------------------------------------- test B: real crawls

#: Sitemap entries urllib reads no port or host in, then one it reads (on the last declared host).
UNREADABLE = (
    "http://{host}:{port}\\private/a.html",
    "http://{host}:{port}%5Cprivate%5Ca.html",
    "http://{host}:99999/pub/a.html",
    "http://[{host}/pub/a.html",
    "http://{host}:{port}/pub/b.html",
)

SITEMAP_SPIDER = """
from scrapy.spiders import SitemapSpider


class CorpusSpider(SitemapSpider):
    name = "corpus"
    sitemap_urls = {sitemap_urls!r}

    def parse(self, response):
        yield {{"url": response.url, "status": response.status}}
"""

LLMS_SPIDER = """
import scrapy


class LlmsSpider(scrapy.Spider):
    name = "llms"
    start_urls = {start_urls!r}
    custom_settings = {{"WALSH_DISCOVERY": ["llms.txt"], "WALSH_DISCOVERY_ROUTES": {{".": "parse"}}}}

    def parse(self, response):
        yield {{"url": response.url, "status": response.status}}
"""


def crawl(nginx: Nginx, tmp_path: Path, spider: str, source: str) -> list[dict]:
    """Run ``spider`` with the add-on, kept on loopback by the demo's resolver and blocklist;
    nginx's records of its requests."""
    since = nginx.log.stat().st_size
    with DemoSite(hosts=["ops"]) as site:  # the operator blocklist only
        project = new_project(tmp_path)
        add_addon_line(project, site=site)
        write_spider(project, spider, source)
        result = run_scrapy(["crawl", spider], cwd=project, timeout=110)
    assert result.returncode in (0, 1), result.stderr[-3000:]  # 1: a refusal the crawl reported
    records = nginx.records(since)
    # a request nginx refuses at its request line (400) has no headers in the log
    assert records and all(r["ua"] == USER_AGENT for r in records if r["request_uri"]), result.stderr[-3000:]
    return records


def assert_nothing_leaked(records: list[dict]) -> None:
    """Nothing under /private/, and no host but the declared ones (robots.txt included). A request
    nginx could not read (400 at the request line) names no host: it is counted, not judged."""
    read = [r for r in records if r["request_uri"]]
    private = [(r["host"], r["request_uri"], r["uri"]) for r in read if r["uri"].startswith("/private/")]
    elsewhere = [(r["host"], r["request_uri"]) for r in read if r["host"] not in DECLARED]
    assert not private and not elsewhere, (
        f"{len(records)} requests ({len(records) - len(read)} unreadable); {len(private)} resolved under "
        f"/private/: {private[:20]}; {len(elsewhere)} to hosts not declared: {elsewhere[:20]}"
    )


@pytest.mark.timeout(120)
def test_a_sitemap_crawl_of_the_corpus_fetches_nothing_under_private_and_no_other_host(nginx, tmp_path):
    port = nginx.port  # the first host's sitemaps come from its robots.txt, the backslash trick among them
    sitemap_urls = [f"http://{DECLARED[0]}:{port}/robots.txt"]
    sitemap_urls += [f"http://{h}:{port}/sitemap.xml" for h in DECLARED[1:]]
    records = crawl(nginx, tmp_path, "corpus", SITEMAP_SPIDER.format(sitemap_urls=sitemap_urls))
    assert {r["uri"] for r in records} >= {"/robots.txt", "/sitemap.xml"}
    assert sum(r["uri"] == "/pub/a.html" for r in records) >= len(DECLARED)  # the plain page of each
    assert_nothing_leaked(records)


@pytest.mark.timeout(120)
def test_an_llms_txt_crawl_of_the_corpus_fetches_nothing_under_private_and_no_other_host(nginx, tmp_path):
    start_urls = [f"http://{h}:{nginx.port}/" for h in LLMS_HOSTS]
    records = crawl(nginx, tmp_path, "llms", LLMS_SPIDER.format(start_urls=start_urls))
    assert "/llms.txt" in {r["uri"] for r in records}
    assert sum(r["uri"] == "/pub/a.html" for r in records) >= len(LLMS_HOSTS)
    assert_nothing_leaked(records)


@pytest.mark.timeout(120)
def test_a_sitemap_entry_urllib_reads_no_port_in_is_skipped_and_the_next_one_fetched(nginx, tmp_path):
    # such an entry raised out of discovery and ended the crawl's start: nothing after it was read
    sitemap_urls = [f"http://{DECLARED[-1]}:{nginx.port}/unreadable.xml"]
    records = crawl(nginx, tmp_path, "corpus", SITEMAP_SPIDER.format(sitemap_urls=sitemap_urls))
    assert [r["request_uri"] for r in records] == ["/robots.txt", "/unreadable.xml", "/pub/b.html"]
