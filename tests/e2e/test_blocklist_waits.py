"""The operator's own list can always be refreshed, and no run waits for its host.

With the blocklist host unreachable, pausing us (``503`` with a huge ``Retry-After``) or asking
for an hourly pace (``RateLimit-Policy``), each later run keeps the stored list, says so, and
its first target request reaches the server within 2 s of the crawl's start (the spider stamps
the start; both clocks are this machine's monotonic clock). A wait over 5 s is logged.
"""

from __future__ import annotations

import os
import re
import time

from demo_site import DemoSite
from demo_site.content import blocklist_bytes, default_blocklist
from demo_site.hosts import BLOCKLIST_PATH, HOSTS
from tests.helpers import add_addon_line, new_project, run_scrapy, write_spider

#: Consecutive runs per case (a wait that shows one run in ten needs ten; WALSH_TEST_WAIT_RUNS=10 runs them).
RUNS = int(os.environ.get("WALSH_TEST_WAIT_RUNS", "3"))
#: The most the first target request may lag the crawl's start.
FIRST_REQUEST_WITHIN = 2.0

SPIDER = """
import time
from pathlib import Path

import scrapy


class StampedSpider(scrapy.Spider):
    name = "stamped"

    async def start(self):
        Path(self.stamp).write_text(repr(time.monotonic()))
        for index, url in enumerate(self.urls.split(",")):
            yield scrapy.Request(url, dont_filter=True, priority=-index)

    def parse(self, response):
        yield {"url": response.url}
"""


def _run(project, site, run: int):
    """One crawl of a fresh page on ``open`` (R8 would skip a page fetched before); returns
    (process, seconds from the crawl's start to the first target request, or None)."""
    stamp = project / "start.txt"
    stamp.unlink(missing_ok=True)
    url = site.url("open", f"/page/{run}")
    result = run_scrapy(["crawl", "stamped", "-a", f"urls={url}", "-a", f"stamp={stamp}"], cwd=project)
    started = float(stamp.read_text())
    first = [r["mono"] for r in site.requests if r["host_key"] == "open" and r["path"] == f"/page/{run}"]
    return result, (first[0] - started if first else None)


def _adopt_first(project, site):
    write_spider(project, "stamped", SPIDER)
    result, lag = _run(project, site, 0)
    assert result.returncode == 0 and "Operator blocklist adopted (fetched)" in result.stderr, result.stderr[-3000:]


def _assert_runs_go_at_once(project, site, first_run: int, said: str):
    lags = []
    for run in range(first_run, first_run + RUNS):
        result, lag = _run(project, site, run)
        assert result.returncode == 0, result.stderr[-3000:]
        assert lag is not None, f"run {run}: the target was never requested\n{result.stderr[-3000:]}"
        lags.append(round(lag, 3))
        assert said in result.stderr, result.stderr[-3000:]
        assert "blocked" not in {r["host_key"] for r in site.requests}  # the stored list holds
        for line in re.findall(r"Waiting [\d.]+ s before the next request to .*", result.stderr):
            assert "UTC" in line and ":" in line.split("UTC", 1)[1], line  # host, until when, reason
    assert max(lags) <= FIRST_REQUEST_WITHIN, f"first target request after start, per run: {lags}"
    return lags


def test_an_unreachable_list_host_never_delays_the_targets(plain_project):
    with DemoSite() as site:
        add_addon_line(plain_project, site=site)
        _adopt_first(plain_project, site)
        port = site.port
    with DemoSite(port=port, hosts=[k for k in HOSTS if k != "ops"]) as site:
        lags = _assert_runs_go_at_once(plain_project, site, 1, "keeping the last adopted list")
    print("unreachable: first target request after start", lags)


def test_a_huge_retry_after_on_the_list_is_capped_and_the_targets_go_at_once(project, demo_site):
    _adopt_first(project, demo_site)
    demo_site.override("ops", BLOCKLIST_PATH, 503, b"busy", headers=[("Retry-After", "99999999")])
    result, lag = _run(project, demo_site, 1)
    assert result.returncode == 0 and lag is not None and lag <= FIRST_REQUEST_WITHIN, (lag, result.stderr[-3000:])
    demo_site.override("ops", BLOCKLIST_PATH, None)  # the list is served again
    lags = _assert_runs_go_at_once(project, demo_site, 2, "sending the targets without waiting for it")
    said = re.search(r"its host \S+ is not ready for (\d+) s", _run(project, demo_site, 99)[0].stderr)
    assert said and int(said.group(1)) <= 6 * 3600, "the pause is capped at the list's refresh (PT6H)"
    print("Retry-After 99999999: first target request after start", [lag, *lags])


def test_an_hourly_ratelimit_on_the_list_does_not_stop_the_next_runs(project, demo_site):
    demo_site.override(
        "ops",
        BLOCKLIST_PATH,
        200,
        blocklist_bytes(default_blocklist()),
        content_type="application/json",
        headers=[("RateLimit-Policy", '"hourly";q=1;w=3600')],
    )
    _adopt_first(project, demo_site)
    start = time.monotonic()
    lags = _assert_runs_go_at_once(project, demo_site, 1, "sending the targets without waiting for it")
    assert time.monotonic() - start < 60 * RUNS
    print("RateLimit hourly: first target request after start", lags)


def test_a_wait_over_five_seconds_is_logged_once_with_host_reason_and_until(project, demo_site):
    demo_site.override("open", "/robots.txt", 200, "User-agent: *\nCrawl-delay: 6\n")
    write_spider(project, "stamped", SPIDER)
    stamp = project / "start.txt"
    urls = ",".join(demo_site.url("open", f"/page/{n}") for n in (1, 2))
    result = run_scrapy(["crawl", "stamped", "-a", f"urls={urls}", "-a", f"stamp={stamp}"], cwd=project)
    assert result.returncode == 0, result.stderr[-3000:]
    said = re.findall(r"INFO: Waiting ([\d.]+) s before the next request to (\S+), until (.+) UTC: (.*)", result.stderr)
    assert len(said) == 2, result.stderr[-3000:]  # page 1 after robots.txt, page 2 after page 1: once each
    for seconds, host, until, reason in said:
        assert float(seconds) > 5 and host == HOSTS["open"].name and re.fullmatch(r"[\d-]+ [\d:]+", until)
        assert reason == "its robots.txt Crawl-delay of 6 s"
    # explain shows the same reason while the ledger still holds the host back (6 s from page 2)
    explained = run_scrapy(["walsh", "explain", demo_site.url("open", "/page/3"), "--offline"], cwd=project)
    if time.monotonic() < max(r["mono"] for r in demo_site.requests) + 6 - 0.5:  # not too slow to see it
        assert "its robots.txt Crawl-delay of 6 s" in explained.stdout, explained.stdout + explained.stderr
        assert re.search(r"^wait +[\d.]+ s before the next request", explained.stdout, re.M), explained.stdout


#: The shortest ``refresh`` a list can set (MIN_REFRESH_SECONDS): a test past it waits this long.
SHORT_REFRESH = "PT1M"
DAILY = [("RateLimit-Policy", '"daily";q=1;w=86400')]


def _serve_list(site, doc: dict, headers=()) -> None:
    body = blocklist_bytes(doc)
    site.override("ops", BLOCKLIST_PATH, 200, body, content_type="application/json", headers=list(headers))


def _open_listed(doc: dict, updated: str) -> dict:
    listed = {"domain": HOSTS["open"].name, "added": updated[:10], "reason": "a later opt-out"}
    return {**doc, "updated": updated, "blocked": [*doc["blocked"], listed]}


def test_a_day_long_pace_on_a_list_never_keeps_it_past_its_refresh(project, demo_site, tmp_path):
    """The pace the list's host asks in answer to a list is capped at that list's own
    ``refresh``, on the first adoption as on a later one that shortens the refresh: a run past
    the refresh fetches the current list, and the host it newly lists is never contacted."""
    (tmp_path / "later").mkdir()
    later = new_project(tmp_path / "later")
    add_addon_line(later, f"\nWALSH_STATE_URI = {'sqlite:///' + str(tmp_path / 'later.sqlite3')!r}\n", site=demo_site)
    write_spider(later, "stamped", SPIDER)
    _serve_list(demo_site, default_blocklist())  # PT6H, no pace asked
    assert _run(later, demo_site, 0)[0].returncode == 0
    short = {**default_blocklist(), "updated": "2026-11-02T00:00:00Z", "refresh": SHORT_REFRESH}
    _serve_list(demo_site, short, DAILY)
    _adopt_first(project, demo_site)  # the first list this project adopts
    result, _ = _run(later, demo_site, 1)  # a later adoption, whose refresh is shorter
    assert "Operator blocklist adopted (fetched)" in result.stderr, result.stderr[-3000:]
    adopted = max(r["mono"] for r in demo_site.requests if r["host_key"] == "ops")
    _serve_list(demo_site, _open_listed(short, "2026-11-03T00:00:00Z"), DAILY)
    time.sleep(max(0.0, adopted + 61 - time.monotonic()))  # both lists are now past their refresh
    kept = {}
    for run, name, crawl in ((2, "first adoption", project), (3, "later adoption", later)):
        seen = len(demo_site.requests)
        result, _ = _run(crawl, demo_site, run)
        assert result.returncode == 0, result.stderr[-3000:]
        contacted = "open" in {r["host_key"] for r in demo_site.requests[seen:]}
        if contacted or "Operator blocklist adopted (fetched)" not in result.stderr:
            kept[name] = "\n".join(re.findall(r"Operator blocklist .*", result.stderr))
    # each run fetched the current list, and the host it newly lists was never contacted
    assert not kept, "\n".join(f"{name}: {said}" for name, said in kept.items())
