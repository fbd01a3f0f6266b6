"""R1 end to end: a plain ``scrapy startproject`` project plus the one add-on line."""

import os

import pytest

from demo_site import DemoSite
from demo_site.hosts import BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH
from scrapy_walsh.settings import USER_AGENT
from tests.helpers import CLOCK_TOLERANCE, add_addon_line, gaps_by_host, run_scrapy, summary_value, write_spider

SPIDER = """
import scrapy


class UaSpider(scrapy.Spider):
    name = "ua"
    custom_settings = {"USER_AGENT": "CustomSettingsBot/1.0"}

    async def start(self):
        a, b = self.site_a, self.site_b
        yield scrapy.Request(f"{a}/page/1")
        yield scrapy.Request(f"{a}/page/2", headers={"User-Agent": "PerRequestBot/2.0"})
        yield scrapy.Request(f"{a}/status/503?times=1", headers={"User-Agent": "RetryBot/3.0"})
        yield scrapy.Request(f"{a}/redirect?to={b}/page/landed", headers={"User-Agent": "RedirBot/4.0"})

    def parse(self, response):
        yield {"url": response.url, "status": response.status}
"""


def crawl(project, site, *extra):
    return run_scrapy(
        [
            "crawl",
            "ua",
            "-a",
            f"site_a={site.base('open', by_ip=True)}",
            "-a",
            f"site_b={site.base('named', by_ip=True)}",
            *extra,
        ],
        cwd=project,
    )


@pytest.fixture(scope="module")
def ua_crawl(tmp_path_factory):
    """One crawl of the plain project with the add-on line; its log and the server's view."""
    root = tmp_path_factory.mktemp("ua")
    made = run_scrapy(["startproject", "plainproj", str(root / "plainproj")], cwd=root)
    assert made.returncode == 0, made.stderr
    project = root / "plainproj"
    write_spider(project, "ua", SPIDER)
    with DemoSite() as site:
        add_addon_line(project, site=site)
        result = crawl(project, site)
        seen = site.requests
    assert result.returncode == 0, result.stderr[-3000:]
    # WALSH_STATE_URI's default: the identity's one store in the per-user state dir
    assert f"state: sqlite:///{os.environ['XDG_STATE_HOME']}/scrapy-walsh/walsh-research.sqlite3" in result.stderr
    return result.stderr, seen


def test_every_request_carries_the_exact_user_agent(ua_crawl):
    log, seen = ua_crawl
    paths = [(r["host_key"], r["path"]) for r in seen]
    # the retry (Scrapy's RetryMiddleware on 503) and the cross-host redirect were sent
    assert paths.count(("open", "/status/503?times=1")) == 2
    assert ("named", "/page/landed") in paths
    # the package's own requests: the blocklist, its schema, and robots.txt per origin
    assert sorted(paths[:2]) == [("ops", BLOCKLIST_PATH), ("ops", BLOCKLIST_SCHEMA_PATH)]
    assert paths.count(("open", "/robots.txt")) == paths.count(("named", "/robots.txt")) == 1
    assert len(seen) == 10
    assert {r["headers"].get("User-Agent") for r in seen} == {USER_AGENT}

    assert log.count("R1: replaced User-Agent") == 1, "the override is logged once"
    # page/1 (CustomSettingsBot via USER_AGENT), page/2, the first 503 attempt and the
    # redirect source each carried another UA; the retry and redirect copies already had ours.
    # The package's own 4 requests carried USER_AGENT's CustomSettingsBot too: the checkpoint,
    # R1's one enforcement, replaced it on them as on any request.
    assert summary_value(log, "UA overrides") == "8"
    assert "USER_AGENT: 'CustomSettingsBot/1.0' is overridden" in log


def test_one_second_floor_and_one_request_in_flight(ua_crawl):
    log, seen = ua_crawl
    assert max(r["in_flight"] for r in seen) == 1
    gaps = gaps_by_host(seen)
    assert len(gaps["127.0.0.2"]) == 5
    assert min(min(g) for g in gaps.values() if g) >= 1.0 - CLOCK_TOLERANCE, gaps
    assert summary_value(log, "requests sent").startswith("10 to 3 host(s), at most 1 in flight")


def test_refuses_to_start_with_concurrent_requests_8(plain_project, demo_site):
    add_addon_line(plain_project, extra="\nCONCURRENT_REQUESTS = 8\n")
    write_spider(plain_project, "ua", SPIDER)
    result = crawl(plain_project, demo_site)
    assert result.returncode != 0
    assert "CONCURRENT_REQUESTS breaks R4" in result.stderr
    assert "serial per process" in result.stderr
    assert demo_site.requests == [], "a refused crawl must not send anything"


def test_refuses_a_command_line_override_too(plain_project, demo_site):
    add_addon_line(plain_project)
    write_spider(plain_project, "ua", SPIDER)
    result = crawl(plain_project, demo_site, "-s", "DOWNLOAD_DELAY=0.25")
    assert result.returncode != 0
    assert "DOWNLOAD_DELAY breaks R4" in result.stderr
    assert demo_site.requests == []
