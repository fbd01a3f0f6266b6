"""Paths around the middlewares.

``engine.download`` from a callback, a downloader middleware after ours, ``meta["proxy"]`` and a
``Host`` header: the checkpoint before the network is the last word on each.
"""

import re

import pytest

from demo_site import DemoSite
from scrapy_walsh.settings import USER_AGENT
from tests.helpers import add_addon_line, new_project, run_scrapy, stat, summary_value, write_spider

NEW_HOSTS = ("named", "slow", "gone", "docs", "llmsonly", "htmlonly")

ENGINE_SPIDER = """
import asyncio

import scrapy


class EngineSpider(scrapy.Spider):
    name = "engine"

    async def start(self):
        yield scrapy.Request(f"{self.open_base}/page/1")
        # declared, and scheduled last: its declared Request object is copied below
        self.later = scrapy.Request(f"{self.named_base}/page/2", priority=-10, errback=self.refused)
        yield self.later

    async def parse(self, response):
        if not getattr(self, "done", False):
            self.done = True
            for _ in range(100):  # until the spider middleware declared the later request
                if "walsh_declared" in self.later.meta:
                    break
                await asyncio.sleep(0.05)
            for base in self.new_bases.split(","):
                d = self.crawler.engine.download(scrapy.Request(f"{base}/page/undeclared"))
                d.addErrback(lambda f: None)
            # four at once for one new host, each a copy of a declared request (robots.txt gate)
            self.outcomes = []
            for _ in range(4):
                d = self.crawler.engine.download(self.later.replace(dont_filter=True))
                d.addCallbacks(lambda r: self.outcomes.append(r.status),
                               lambda f: self.outcomes.append(type(f.value).__name__))
        yield {"url": response.url}

    def closed(self, reason):
        self.logger.warning("engine.download outcomes: %s", sorted(map(str, getattr(self, "outcomes", []))))

    def refused(self, failure):
        yield {"refused": failure.request.url, "verdict": getattr(failure.value, "verdict", None)}
"""


@pytest.fixture
def slow_answers(tmp_path):
    """The demo site answering every request after 0.3 s: robots.txt is still being fetched
    when the copies below reach the robots gate."""
    with DemoSite(latency=0.3) as site:
        project = new_project(tmp_path)
        add_addon_line(project, site=site)
        yield project, site


def test_engine_download_fetches_nothing_undeclared_and_never_two_at_once(slow_answers):
    project, demo_site = slow_answers
    write_spider(project, "engine", ENGINE_SPIDER)
    bases = ",".join(demo_site.base(h) for h in NEW_HOSTS)
    result = run_scrapy(
        [
            "crawl",
            "engine",
            "-a",
            f"open_base={demo_site.base('open')}",
            "-a",
            f"named_base={demo_site.base('named')}",
            "-a",
            f"new_bases={bases}",
        ],
        cwd=project,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    seen = demo_site.requests
    paths = [(r["host_key"], r["path"]) for r in seen]
    assert not [p for p in paths if p[1] == "/page/undeclared"], "engine.download fetched an undeclared URL"
    assert not [p for p in paths if p[0] in NEW_HOSTS and p[0] != "named"], "robots.txt of an undeclared host"
    assert paths.count(("named", "/robots.txt")) == 1
    assert paths.count(("named", "/page/2")) == 1, "R8: the copies of one target were fetched again"
    assert max(r["in_flight"] for r in seen) == 1, "two requests were on the network at once"
    outcomes = re.search(r"engine.download outcomes: (.*)", result.stderr).group(1)
    assert "AttributeError" not in outcomes, (
        f"the robots gate crashed on concurrent requests for one origin: {outcomes}"
    )
    assert stat(result.stderr, "walsh/denied/scope/not_declared") == len(NEW_HOSTS)


EVIL = '''
class EvilUserAgent:
    """A user's middleware after ours: rewrites the User-Agent of every request."""

    def process_request(self, request, spider=None):
        request.headers["User-Agent"] = "EvilBot/1.0"
'''

UA_SPIDER = """
import scrapy


class LateSpider(scrapy.Spider):
    name = "late"

    async def start(self):
        for url in self.urls.split(","):
            yield scrapy.Request(url)

    def parse(self, response):
        yield {"url": response.url}
"""


def test_a_middleware_after_ours_cannot_change_the_user_agent(project, demo_site):
    (project / "plainproj" / "evil.py").write_text(EVIL)
    settings = project / "plainproj" / "settings.py"
    settings.write_text(settings.read_text() + '\nDOWNLOADER_MIDDLEWARES = {"plainproj.evil.EvilUserAgent": 10001}\n')
    write_spider(project, "late", UA_SPIDER)
    urls = [demo_site.url("open", "/page/1"), demo_site.url("named", "/page/1")]
    result = run_scrapy(["crawl", "late", "-a", "urls=" + ",".join(urls)], cwd=project)
    assert result.returncode == 0, result.stderr[-3000:]
    seen = demo_site.requests
    # robots.txt twice, the blocklist and its schema, the two pages
    assert len(seen) == 6, [(r["host_key"], r["path"]) for r in seen]
    assert {r["headers"].get("User-Agent") for r in seen} == {USER_AGENT}
    # the checkpoint is R1's one enforcement: every rewrite is counted there
    assert stat(result.stderr, "walsh/identity/ua_overridden") == 6
    assert summary_value(result.stderr, "UA overrides") == "6"


PROXY_SPIDER = """
import scrapy


class ProxySpider(scrapy.Spider):
    name = "proxied"
    custom_settings = {"RETRY_ENABLED": False}

    async def start(self):
        open_ = self.open_base
        yield scrapy.Request(f"{open_}/page/1", meta={"proxy": self.blocked_base}, errback=self.refused)
        yield scrapy.Request(f"{open_}/page/2", meta={"proxy": self.private_proxy}, errback=self.refused)
        yield scrapy.Request(f"{open_}/page/3", meta={"proxy": self.named_private_proxy}, errback=self.refused)
        yield scrapy.Request(f"{open_}/page/4", headers={"Host": self.blocked_host}, errback=self.refused)
        yield scrapy.Request(f"{open_}/page/5")

    def parse(self, response):
        yield {"url": response.url}

    def refused(self, failure):
        yield {"refused": failure.request.url, "gate": getattr(failure.value, "gate", None),
               "verdict": getattr(failure.value, "verdict", None)}
"""


@pytest.fixture
def guarded_site(tmp_path):
    """The demo site with its sentinels (127.0.0.1, ::1) listening: they must see nothing."""
    with DemoSite(sentinels=True) as site:
        project = new_project(tmp_path)
        add_addon_line(project, site=site)
        yield site, project


def test_a_refused_proxy_and_a_foreign_host_header_get_nothing(guarded_site):
    site, project = guarded_site
    write_spider(project, "proxied", PROXY_SPIDER)
    blocked = site.base("blocked")
    result = run_scrapy(
        [
            "crawl",
            "proxied",
            "-a",
            f"open_base={site.base('open')}",
            "-a",
            f"named_private_proxy=http://localhost:{site.port}",
            "-a",
            f"blocked_base={blocked}",
            "-a",
            f"blocked_host={blocked.split('://')[1]}",
            "-a",
            f"private_proxy=http://127.0.0.1:{site.port}",
        ],
        cwd=project,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    seen = site.requests
    assert not [r for r in seen if r["host_key"] in ("sentinel", "blocked")], [
        (r["host_key"], r["path"], r["method"]) for r in seen
    ]
    assert not [r for r in seen if "blocked" in (r["host"] or "")], "the blocked Host header reached the server"
    pages = sorted(r["path"] for r in seen if r["path"].startswith("/page/"))
    assert pages == ["/page/5"]
    assert stat(result.stderr, "walsh/denied/checkpoint/proxy_refused") == 3
    assert stat(result.stderr, "walsh/denied/checkpoint/host_header_mismatch") == 1
