"""``scrapy walsh explain`` decides as the crawl does: one table, two real runs (issue 15, item 2).

Every row is a URL whose fate one gate settles. Each is explained with ``scrapy walsh
explain --json URL`` (a real subprocess, before the crawl) and then crawled in one real
``scrapy crawl`` of all rows against the demo site.
Both must name the same gate and verdict, and the crawl must reach the row's expected
answer, so a row can't agree by both sides failing the same way.

The state the rows need is real: a first crawl stores ``named``'s robots.txt and fetches
``htmlonly``'s page (R8); then the demo site's overrides make robots.txt redirect forever,
answer 503, redirect into a blocked host, or ask for a Crawl-delay over the cap.
The copy of ``named``'s robots.txt is then aged by two days in the store (its ``fetched_at``,
nothing else), so it is stale rather than fresh: the 503 row goes through the unreachable
path and its 30-day stale-copy rule, as it would on a later day.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from scrapy_walsh.demo import DemoSite
from scrapy_walsh.demo.hosts import HOSTS
from scrapy_walsh.policy.vocabulary import Namespace
from scrapy_walsh.store import open_store, parse_state_uri

from ..helpers import add_addon_line, crawl_targets, new_project, run_scrapy

FETCH = "fetch"
#: The module fixture runs 11 subprocesses (2 crawls, 9 explains): over the 300 s default on a busy machine.
pytestmark = pytest.mark.timeout(900)

#: id -> (URL builder, expected crawl answer: (gate, verdict) refused, or (FETCH, robots verdict)).
ROWS = {
    "robots.txt redirects more than 5 times": (lambda s: s.url("open", "/page/1"), (FETCH, "allowed_implicit")),
    "robots.txt 503, nothing stored": (lambda s: s.url("down", "/page/1"), ("robots", "unknown_unreachable")),
    "robots.txt 503, a stored copy": (lambda s: s.url("named", "/research-off/a"), ("robots", "disallowed_explicit")),
    "robots.txt 404": (lambda s: s.url("gone", "/page/1"), (FETCH, "allowed_implicit")),
    "robots.txt redirects into a blocked host": (
        lambda s: s.url("decoys", "/page/1"),
        ("robots", "unknown_unreachable"),
    ),
    "a private address": (lambda s: f"http://127.0.0.1:{s.port}/page/1", ("address", "private_address")),
    "a DNS failure": (lambda s: f"http://nosuch.walsh-demo.test:{s.port}/page/1", ("robots", "unknown_unreachable")),
    "Crawl-delay over the cap": (lambda s: s.url("busy", "/page/1"), ("pacing", "crawl_delay_exceeds_cap")),
    "fetched recently": (lambda s: s.url("htmlonly", "/page/1"), ("frequency", "skipped_recently_fetched")),
}


@pytest.fixture(scope="module")
def site():
    with DemoSite(sentinels=True) as demo:
        yield demo


@pytest.fixture(scope="module")
def runs(tmp_path_factory, site):
    """{row id: (explain's report, the crawl's item)} after the setup crawl and overrides."""
    project = new_project(tmp_path_factory.mktemp("agrees"))
    uri = f"sqlite:///{project / 'state.sqlite3'}"
    add_addon_line(project, f"\nWALSH_STATE_URI = {uri!r}\n", site=site)
    setup, items = crawl_targets(
        project, [site.url("named", "/research-off/guide.md"), site.url("htmlonly", "/page/1")]
    )
    assert setup.returncode == 0, setup.stderr[-3000:]
    assert items[site.url("htmlonly", "/page/1")]["status"] == 200, items

    store = open_store(parse_state_uri(uri, "unused"), "Walsh-Research")
    origin = f"http://named.walsh-demo.test:{site.port}"
    record = store.get(Namespace.ROBOTS, origin)
    assert record["outcome"] == "available", record
    store.set(Namespace.ROBOTS, origin, {**record, "fetched_at": record["fetched_at"] - 2 * 86400})
    store.close()

    site.override("open", "/robots.txt", 302, headers=[("Location", "/robots.txt")])
    site.override("named", "/robots.txt", 503, "down for maintenance")
    site.override("decoys", "/robots.txt", 301, headers=[("Location", site.url("blocked", "/robots.txt"))])
    site.override("busy", "/robots.txt", 200, "User-agent: *\nCrawl-delay: 999\n")

    urls = {row: build(site) for row, (build, _) in ROWS.items()}
    # explain writes only pacing reservations and robots.txt outcomes it read (issue 17): the
    # rows are explained side by side, sharing the crawl's ledger
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = dict(
            zip(urls, pool.map(lambda url: run_scrapy(["walsh", "explain", "--json", url], cwd=project), urls.values()))
        )
    reports = {}
    for row, result in results.items():
        assert result.returncode == 0, (row, result.stderr[-3000:])
        reports[row] = json.loads(result.stdout)
    crawl, items = crawl_targets(project, list(urls.values()))
    assert crawl.returncode == 0, crawl.stderr[-3000:]
    return {row: (reports[row], items.get(url)) for row, url in urls.items()}


def crawl_answer(item):
    if item is None:
        return None
    if "denied" in item:
        return (item["denied"], item["verdict"])
    return (FETCH, item["walsh"]["verdicts"].get("robots"))


def explain_answer(report):
    decision = report["decision"]
    if decision["outcome"] == FETCH:
        return (FETCH, report["robots"].get("verdict"))
    return (decision["gate"], decision["verdict"])


@pytest.mark.parametrize("row", list(ROWS))
def test_explain_and_the_crawl_agree(runs, row):
    report, item = runs[row]
    expected = ROWS[row][1]
    assert crawl_answer(item) == expected, item
    assert explain_answer(report) == expected, json.dumps(report, indent=1)


def test_nothing_reached_the_sentinel_or_the_blocked_host(runs, site):
    """The private-address row and the blocked redirect hop were never contacted."""
    hosts = {r["host_key"] for r in site.requests}
    assert "sentinel" not in hosts
    assert "blocked" not in hosts
    assert set(HOSTS) >= hosts


def test_the_redirect_row_met_six_answers_each_time(runs, site):
    """The first robots.txt request and 5 followed redirects, once: since issue 17 explain
    stores the outcome it read in the crawl's store (one robots.txt fetch per identity), and
    the crawl, agreeing on the verdict above, reads it instead of fetching it again."""
    assert len(site.requests_for("open", "/robots.txt")) == 6
