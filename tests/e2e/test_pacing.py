"""R4 end to end: spacing, Crawl-delay, first requests, redirects and the persistent ledger,
from the demo server's own timestamps."""

import pytest

from demo_site import DemoSite
from scrapy_walsh.sending.queue import host_directory
from tests.helpers import CLOCK_TOLERANCE, add_addon_line, crawl_targets, gaps_by_host, new_project, run_scrapy, stat


@pytest.fixture(scope="module")
def mixed_crawl(tmp_path_factory):
    """Four hosts, one with Crawl-delay 2, and a redirect from open to named."""
    root = tmp_path_factory.mktemp("pacing")
    project = new_project(root)
    with DemoSite() as site:
        add_addon_line(project, site=site)
        urls = [site.url("slow", f"/page/{i}") for i in range(1, 4)]
        urls += [site.url("named", "/page/1"), site.url("named", "/page/2")]
        urls += [site.url("open", "/redirect") + "?to=" + site.url("named", "/page/3")]
        urls += [site.url("gone", f"/page/{i}") for i in range(1, 3)]
        result, items = crawl_targets(project, urls)
        seen = site.requests
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stderr, seen


def test_no_same_host_gap_under_one_second_or_the_crawl_delay(mixed_crawl):
    log, seen = mixed_crawl
    minimum = {"slow.walsh-demo.test": 2.0}
    for host, gaps in gaps_by_host(seen).items():
        assert gaps, host
        floor = minimum.get(host, 1.0)
        assert min(gaps) >= floor - CLOCK_TOLERANCE, (host, gaps)
    assert len(gaps_by_host(seen)["slow.walsh-demo.test"]) == 3  # robots.txt + 3 pages
    assert max(r["in_flight"] for r in seen) == 1
    assert stat(log, "walsh/pacing/interval/slow.walsh-demo.test") == 2.0
    assert stat(log, "walsh/pacing/interval/named.walsh-demo.test") == 1.0


def test_the_first_request_to_each_host_is_not_delayed(mixed_crawl):
    log, seen = mixed_crawl
    first = {}
    for index, record in enumerate(seen):
        first.setdefault(record["host"], index)
    for host, index in first.items():
        if index == 0:
            continue
        # it left right after the request before it (whatever host that was)
        gap = seen[index]["mono"] - seen[index - 1]["mono"]
        assert gap < 0.25, (host, gap)


def test_a_cross_host_redirect_is_paced_under_its_destination(mixed_crawl):
    log, seen = mixed_crawl
    named = [r for r in seen if r["host"] == "named.walsh-demo.test"]
    assert [r["path"] for r in named][0] == "/robots.txt"
    assert "/page/3" in [r["path"] for r in named]
    gaps = [b["mono"] - a["mono"] for a, b in zip(named, named[1:])]
    assert min(gaps) >= 1.0 - CLOCK_TOLERANCE, gaps


def test_the_politeness_queue_keeps_other_hosts_busy(mixed_crawl):
    """slow (Crawl-delay 2) bounds the crawl: its 4 requests need 6 s; everything else fits
    in the gaps, so the whole crawl ends shortly after slow's last request."""
    log, seen = mixed_crawl
    slow = [r["mono"] for r in seen if r["host"] == "slow.walsh-demo.test"]
    others_after = [r for r in seen if r["mono"] > slow[-1]]
    assert len(others_after) <= 2, [(r["host"], r["path"]) for r in others_after]


def test_the_ledger_outlives_the_process(project, demo_site):
    """A host's last request time is ours, in the state store, not a Scrapy slot: a new
    process (no slots at all) still waits out the Crawl-delay."""
    demo_site.override("gone", "/robots.txt", 200, "User-agent: *\nCrawl-delay: 6\n")
    first, _ = crawl_targets(project, [demo_site.url("gone", "/page/1")])
    assert first.returncode == 0, first.stderr[-3000:]
    second, _ = crawl_targets(project, [demo_site.url("gone", "/page/2")])
    assert second.returncode == 0, second.stderr[-3000:]
    gone = [r for r in demo_site.requests if r["host_key"] == "gone"]
    assert [r["path"] for r in gone] == ["/robots.txt", "/page/1", "/page/2"]
    assert gone[2]["mono"] - gone[1]["mono"] >= 6.0 - CLOCK_TOLERANCE


def test_a_crawl_delay_over_the_cap_skips_the_host(project, demo_site):
    demo_site.override("gone", "/robots.txt", 200, "User-agent: *\nCrawl-delay: 90\n")
    urls = [demo_site.url("gone", "/page/1"), demo_site.url("gone", "/page/2")]
    result, items = crawl_targets(project, urls)
    assert result.returncode == 0, result.stderr[-3000:]
    assert [r["path"] for r in demo_site.requests if r["host_key"] == "gone"] == ["/robots.txt"]
    assert {items[u]["verdict"] for u in urls} == {"crawl_delay_exceeds_cap"}
    assert result.stderr.count("asks for Crawl-delay 90") == 1, "logged once per host"
    assert stat(result.stderr, "walsh/pacing/capped_hosts") == 1


RESUMABLE_SPIDER = """
import scrapy


class ResumableSpider(scrapy.Spider):
    name = "resumable"

    async def start(self):
        for index, url in enumerate(self.urls.split(",")):
            yield scrapy.Request(url, priority=-index)

    def parse(self, response):
        yield {"url": response.url}
"""


def test_the_politeness_queue_resumes_a_paused_crawl_from_jobdir(project, demo_site):
    (project / "plainproj" / "spiders" / "resumable.py").write_text(RESUMABLE_SPIDER)
    urls = [demo_site.url(host, f"/page/{i}") for i in range(1, 4) for host in ("open", "named")]
    args = ["crawl", "resumable", "-a", "urls=" + ",".join(urls), "-s", f"JOBDIR={project / 'job'}"]
    first = run_scrapy([*args, "-s", "CLOSESPIDER_ITEMCOUNT=2"], cwd=project)
    assert first.returncode == 0, first.stderr[-3000:]
    pages_first = [r for r in demo_site.requests if r["path"].startswith("/page/")]
    assert 2 <= len(pages_first) < len(urls), "the first run stopped early"
    # the waiting hosts' queues sit in directories named as Scrapy names them (host_directory)
    kept = {p.name for p in (project / "job").rglob("*") if p.is_dir() and ".walsh-demo.test-" in p.name}
    assert kept and kept <= {host_directory(f"{h}.walsh-demo.test") for h in ("open", "named")}, kept
    second = run_scrapy(args, cwd=project)
    assert second.returncode == 0, second.stderr[-3000:]
    pages = [(r["host_key"], r["path"]) for r in demo_site.requests if r["path"].startswith("/page/")]
    assert sorted(pages) == sorted({(h, f"/page/{i}") for i in range(1, 4) for h in ("open", "named")}), (
        "every target fetched exactly once across the two runs"
    )
    for host, gaps in gaps_by_host(demo_site.requests).items():
        assert min(gaps) >= 1.0 - CLOCK_TOLERANCE, (host, gaps)
    left = [p.name for p in (project / "job").rglob("*") if p.is_dir() and ".walsh-demo.test-" in p.name]
    assert left == [], f"emptied hosts' JOBDIR directories were not reclaimed: {left}"


@pytest.mark.parametrize(
    "host, name",
    [  # Scrapy's names for download-slot directories: an existing JOBDIR must keep resuming
        ("open.walsh-demo.test", "open.walsh-demo.test-6343a8211fcb1f92c1731dcc7daf8ab4"),
        ("some@symbol?", "some_symbol_-ca0283b318fe44277a5d6d32cf1ad0ba"),
        ("xn--bcher-kva.example", "xn--bcher-kva.example-f8dd7b47a155bcd1727de887f47eeb06"),
        ("", "-d41d8cd98f00b204e9800998ecf8427e"),
    ],
)
def test_jobdir_host_directories_keep_their_names(host, name):
    assert host_directory(host) == name


STALL = '''
import time


class StallOnce:
    """Blocks the reactor for 150 ms after pacing stamped a request, once: a GC pause."""

    stalled = False

    def process_request(self, request, spider=None):
        if not StallOnce.stalled and request.url.endswith("/page/2"):
            StallOnce.stalled = True
            time.sleep(0.15)
'''


def test_a_stall_between_stamp_and_socket_never_shortens_a_gap(project, demo_site):
    """The ledger counts from the answer, so a pause after the stamp can't shorten the
    next gap the server sees (the pacing bench once caught a GC pause doing that)."""
    (project / "plainproj" / "stall.py").write_text(STALL)
    # Crawl-delay 2: over Scrapy's own DOWNLOAD_DELAY, which would otherwise mask the stall
    demo_site.override("gone", "/robots.txt", 200, "User-agent: *\nCrawl-delay: 2\n")
    urls = [demo_site.url("gone", f"/page/{i}") for i in range(1, 4)]
    result, _ = crawl_targets(project, urls, "-s", 'DOWNLOADER_MIDDLEWARES={"plainproj.stall.StallOnce": 9500}')
    assert result.returncode == 0, result.stderr[-3000:]
    gaps = gaps_by_host(demo_site.requests)["gone.walsh-demo.test"]
    assert len(gaps) == 3 and min(gaps) >= 2.0 - CLOCK_TOLERANCE, gaps
