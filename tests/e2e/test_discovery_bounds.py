"""Discovery at scale, real crawls and plans of a generated sitemap on loopback: a crawl's memory
stays bounded however many targets its sitemap lists, ``plan`` decides a large sitemap's targets
without spacing them, and a plan with nothing to fetch says why.

The memory figure is the crawl process's own peak RSS (``os.wait4``), against the same crawl of a
100-URL sitemap in the same test; the 50,000-URL (49 MiB) figure is bench/discovery_bench.py's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import add_addon_line, new_project, run_scrapy, stat, write_spider
from tests.sitemap_site import SPIDER, BigSitemap

LOOPBACK = 'WALSH_ALLOW_PRIVATE_ADDRESSES = ["127.0.0.1"]\n'
#: 10,000 URLs of 1,990 characters: 20 MB of URLs in a 20 MB sitemap (100 KB gzipped).
URLS, LOC_LEN = 10_000, 1_990
#: What the crawl of those may hold beyond the crawl of a 100-URL sitemap: 3x the URLs' bytes
#: (the targets wait as their URLs; the code before streaming took 100 MiB more here).
GROWTH_MIB = 60


def project_for(root: Path, site: BigSitemap, settings: str = LOOPBACK, routes: str = r"/p/") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    project = new_project(root)
    write_spider(project, "big", SPIDER.replace("{base}", site.base).replace('r"/p/"', f"r{routes!r}"))
    add_addon_line(project, settings)
    return project


def peak_rss_mib(project: Path, args: list[str]) -> tuple[float, str]:
    """The peak RSS of ``scrapy ARGS`` (its own process), and its log."""
    env = {k: v for k, v in os.environ.items() if k != "SCRAPY_SETTINGS_MODULE"}
    with open(project / "err.txt", "w") as err:
        child = subprocess.Popen([sys.executable, "-m", "scrapy", *args], cwd=project, env=env, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, (project / "err.txt").read_text()[-4000:]
    return usage.ru_maxrss / 1024, (project / "err.txt").read_text()


def crawl_peak(root: Path, count: int) -> tuple[float, str, BigSitemap]:
    site = BigSitemap(count, LOC_LEN).start()
    try:
        project = project_for(root, site)
        # the spider stops at its first page once every target is decided: the most a crawl holds
        peak, log = peak_rss_mib(project, ["crawl", "big", "-a", f"expected={count}"])
    finally:
        site.shutdown()
        site.server_close()
    return peak, log, site


def test_a_large_sitemap_is_crawled_within_a_memory_bound(tmp_path):
    small, _, _ = crawl_peak(tmp_path / "small", 100)
    large, log, site = crawl_peak(tmp_path / "large", URLS)
    assert stat(log, "walsh/discovery/targets") == URLS, log[-4000:]
    assert site.paths().count("/sitemap.xml.gz") == 1
    assert 1 <= len(site.pages()) < 100, "it stopped at the first page that saw every target decided"
    assert large - small <= GROWTH_MIB, f"peak RSS {large:.1f} MiB, {large - small:.1f} MiB over a 100-URL crawl"
    assert "at most 1 in flight" in log, "targets yielded while the manifest is read: still serial (R4)"


def test_plan_decides_many_targets_without_spacing_them(tmp_path):
    # 300 targets a dry run never sends: spaced a DOWNLOAD_DELAY apart they took 300 s
    site = BigSitemap(300, 100, split=2).start()
    try:
        project = project_for(tmp_path, site)
        made = run_scrapy(["walsh", "plan", "big", "--json"], cwd=project, timeout=120)
    finally:
        site.shutdown()
        site.server_close()
    assert made.returncode == 0, made.stderr[-4000:]
    plan = json.loads(made.stdout)
    assert len(plan["fetch"]) == 300 and plan["why_nothing"] is None
    assert site.pages() == [], "a dry run sends no target"


#: The big spider, counting what reaches Scrapy's scheduler and downloader and what the state store
#: read, written to ``counted.json`` once the engine stops.
COUNTING = (
    SPIDER.replace("import scrapy\n", "import json\n\nimport scrapy\nfrom scrapy import signals\n")
    + """
    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.counted = {"scheduled": 0, "reached_downloader": 0}
        crawler.signals.connect(spider.scheduled, signal=signals.request_scheduled)
        crawler.signals.connect(spider.reached, signal=signals.request_reached_downloader)
        crawler.signals.connect(spider.stopped, signal=signals.engine_stopped)
        return spider

    def scheduled(self, request, spider):
        self.counted["scheduled"] += 1

    def reached(self, request, spider):
        self.counted["reached_downloader"] += 1

    def stopped(self):
        stats = self.crawler.stats.get_stats()
        self.counted.update({k: v for k, v in stats.items() if k.startswith("walsh/store/")})
        with open("counted.json", "w") as out:
            json.dump(self.counted, out)
"""
)


def test_a_plan_target_costs_no_scheduling_and_a_bounded_number_of_store_reads(tmp_path):
    # counted, not timed: each target meets the crawl's gates and checkpoint where the engine would
    # hand it to the downloader; Scrapy's scheduler, downloader and scraper never see it
    targets = 400
    site = BigSitemap(targets, 100, split=2).start()
    try:
        project = project_for(tmp_path, site)
        write_spider(project, "big", COUNTING.replace("{base}", site.base))
        made = run_scrapy(["walsh", "plan", "big", "--json"], cwd=project, timeout=120)
    finally:
        site.shutdown()
        site.server_close()
    assert made.returncode == 0, made.stderr[-4000:]
    assert len(json.loads(made.stdout)["fetch"]) == targets and site.pages() == []
    counted = json.loads((project / "counted.json").read_text())
    assert counted["scheduled"] == 0, counted
    # own fetches only (the operator's list and its schema, robots.txt, the index and its two
    # children), not one per target
    assert counted["reached_downloader"] <= 6, counted
    # discovery's lastmod record, R8's record and validators, the pacing ledger's peek
    assert counted["walsh/store/keys_read"] <= 4 * targets + 50, counted


def plan_text(root: Path, site: BigSitemap, **kwargs: str) -> str:
    try:
        made = run_scrapy(["walsh", "plan", "big"], cwd=project_for(root, site, **kwargs), timeout=120)
    finally:
        site.shutdown()
        site.server_close()
    assert made.returncode == 0, made.stderr[-4000:]
    assert site.pages() == []
    return made.stdout


def test_a_plan_with_nothing_to_fetch_says_why(tmp_path):
    # robots.txt disallows the sitemap: the manifest, and what refused it
    site = BigSitemap(20, 100, disallow="/sitemap").start()
    text = plan_text(tmp_path / "robots", site)
    assert "0 to fetch" in text
    assert f"why nothing: manifest refused: {site.base}/sitemap.xml.gz by robots.txt" in text, text

    # the address rule refuses the site's address: robots.txt is not read, nor the manifest
    site = BigSitemap(20, 100).start()
    text = plan_text(tmp_path / "address", site, settings="")
    assert f"why nothing: manifest refused: {site.base}/robots.txt by address rule" in text, text

    # the sitemap lists pages, and no route names them
    site = BigSitemap(20, 100).start()
    text = plan_text(tmp_path / "routes", site, routes=r"/q/")
    why = [line for line in text.splitlines() if line.startswith("why nothing:")]
    assert len(why) == 1, text
    listed = f"why nothing: nothing routed: 20 URL(s) listed that no route of the spider names ({site.base}/p/0/"
    assert why[0].startswith(listed), text
