"""``scrapy walsh explain`` decides as the crawl does: one table, two real runs.

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

from demo_site import DemoSite
from demo_site.hosts import HOSTS
from scrapy_walsh.policy.vocabulary import Namespace
from scrapy_walsh.store import open_store, parse_state_uri
from tests.helpers import CLOCK_TOLERANCE, add_addon_line, crawl_targets, new_project, run_scrapy

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
    # explain writes only pacing reservations and robots.txt outcomes it read: the
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
    """The first robots.txt request and 5 followed redirects, once: explain
    stores the outcome it read in the crawl's store (one robots.txt fetch per identity), and
    the crawl, agreeing on the verdict above, reads it instead of fetching it again."""
    assert len(site.requests_for("open", "/robots.txt")) == 6


# ------------------------------------------------------------------------------------------
# The rows where explain's own copy of the steps between decisions had drifted from
# the crawl's. Each is explained first, then crawled, in phases that change the world between
# them (a ledger pause, a looser published schema, a stored list no schema passes). Explain now
# runs the crawl's own components, so the two can't disagree by construction; each row failed
# with the copy (cebc668/5825f4c): another gate, another ledger entry, or "error:" and exit 1;
# and the copy re-checked an unreachable robots.txt without the R5 pause its 503 asked for.

LISTED_PRIVATE = "127.0.0.19"  # loopback, not in the demo's allowance, and listed locally
#: down's robots.txt asks this long (s); well over the few seconds an explain takes to start
RETRY_AFTER = 8
DRIFT_ROWS = {
    # the crawl checks the address (85) before the blocklist (90)
    "a private and listed host": (
        "p1",
        lambda s: f"http://{LISTED_PRIVATE}:{s.port}/page/1",
        ("address", "private_address"),
    ),
    # WALSH_PACE_BY = "ip": the pause is in the ledger under the address, not the name
    "WALSH_PACE_BY = ip, a paused address": (
        "p1",
        lambda s: s.url("gone", "/page/1"),
        ("pacing", "host_paused_beyond_max_delay"),
    ),
    # userinfo: Twisted's agent would resolve "user:secret@host" whole, so the URL is refused before
    # any gate spends a robots.txt fetch on it (docs/url-model.md)
    "a URL with userinfo": (
        "p1",
        lambda s: s.url("open", "/page/1").replace("http://", "http://user:secret@"),
        ("checkpoint", "ambiguous_url"),
    ),
    # robots.txt answered 503 with Retry-After on the first check: the re-check waits out the
    # host's R5 pause (the crawl's backoff applies to its own fetches too), then finds it down
    "an unreachable robots.txt re-checked": (
        "p1",
        lambda s: s.url("down", "/page/1"),
        ("robots", "unknown_unreachable"),
    ),
    # the published schema is looser than the bundled one: the crawl adopts the list
    "a list adopted under a looser published schema": (
        "p2",
        lambda s: s.url("htmlonly", "/page/1"),
        ("blocklist", "blocked_by_operator"),
    ),
    # the stored list passes no schema and no fresh list comes: every request is refused
    "a list that fails closed": ("p3", lambda s: s.url("open", "/page/2"), ("blocklist", "blocked_by_operator")),
}


def _explain_then_crawl(project, urls):
    reports = {}
    for row, url in urls.items():
        result = run_scrapy(["walsh", "explain", "--json", url], cwd=project)
        # checked per row (an explain that exits 1 fails its row only)
        reports[row] = json.loads(result.stdout) if result.returncode == 0 else {"exit": result}
    crawl, items = crawl_targets(project, list(urls.values()))
    assert crawl.returncode == 0, crawl.stderr[-3000:]
    return {row: (reports[row], items.get(url)) for row, url in urls.items()}


def _project(tmp_path_factory, site, name, extra=""):
    project = new_project(tmp_path_factory.mktemp(name))
    uri = f"sqlite:///{project / 'state.sqlite3'}"
    add_addon_line(project, f"\nWALSH_STATE_URI = {uri!r}\n{extra}", site=site)
    return project, uri


@pytest.fixture(scope="module")
def drift_runs(tmp_path_factory):
    """{row id: (explain's report, the crawl's item)}, each phase on its own state store."""
    import time

    from demo_site.content import blocklist_schema_bytes, default_blocklist
    from demo_site.hosts import BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH

    out = {}
    with DemoSite() as site:
        urls = {row: build(site) for row, (_, build, _) in DRIFT_ROWS.items()}
        by_phase = {
            p: {row: urls[row] for row, (phase, _, _) in DRIFT_ROWS.items() if phase == p} for p in ("p1", "p2", "p3")
        }

        extra = f'WALSH_PACE_BY = "ip"\nWALSH_BLOCKLIST_EXTRA = [{LISTED_PRIVATE!r}]\n'
        project, uri = _project(tmp_path_factory, site, "p1", extra)
        setup, _ = crawl_targets(project, [site.url("gone", "/page/2")])  # gone's robots.txt is stored
        assert setup.returncode == 0, setup.stderr[-3000:]
        store = open_store(parse_state_uri(uri, "unused"), "Walsh-Research")
        gone_ip = HOSTS["gone"].ip
        paced = store.get(Namespace.PACING, gone_ip)
        assert paced is not None, "the setup crawl paced gone under its address"
        store.set(Namespace.PACING, gone_ip, {**paced, "not_before": time.time() + 86400}, ttl=2 * 86400)
        store.close()
        site.override("down", "/robots.txt", 503, "down", headers=[("Retry-After", str(RETRY_AFTER))])
        first = run_scrapy(["walsh", "explain", "--json", urls["an unreachable robots.txt re-checked"]], cwd=project)
        assert first.returncode == 0, first.stderr[-3000:]  # the first check; the row is the re-check
        out.update(_explain_then_crawl(project, by_phase["p1"]))

        schema = json.loads(blocklist_schema_bytes())
        schema["required"] = [field for field in schema["required"] if field != "policy"]
        site.override("ops", BLOCKLIST_SCHEMA_PATH, 200, json.dumps(schema), content_type="application/json")
        listed = default_blocklist()
        del listed["policy"]
        listed["blocked"] = [*listed["blocked"], {**listed["blocked"][0], "domain": "htmlonly.walsh-demo.test"}]
        site.set_blocklist(listed)
        project, _ = _project(tmp_path_factory, site, "p2")
        out.update(_explain_then_crawl(project, by_phase["p2"]))

        project, uri = _project(tmp_path_factory, site, "p3")
        store = open_store(parse_state_uri(uri, "unused"), "Walsh-Research")
        stored = {"document": {"not": "a blocklist"}, "adopted": time.time() - 3600, "schema": None}
        store.set(Namespace.BLOCKLIST, site.url("ops", BLOCKLIST_PATH), {**stored, "schema_sha256": None})
        store.close()
        site.set_blocklist(status=503)
        out.update(_explain_then_crawl(project, by_phase["p3"]))
        out["_requests"] = site.requests
    return out


@pytest.mark.parametrize("row", list(DRIFT_ROWS))
def test_explain_and_the_crawl_agree_where_the_copy_drifted(drift_runs, row):
    report, item = drift_runs[row]
    expected = DRIFT_ROWS[row][2]
    assert "exit" not in report, (report["exit"].returncode, report["exit"].stderr[-3000:])
    assert crawl_answer(item) == expected, item
    assert explain_answer(report) == expected, json.dumps(report, indent=1)


def test_the_drift_rows_contacted_neither_the_listed_address_nor_the_paused_one(drift_runs):
    seen = drift_runs["_requests"]
    assert LISTED_PRIVATE not in {r["ip"] for r in seen}
    assert not [r for r in seen if r["host_key"] == "gone" and r["path"] == "/page/1"]


def test_an_unreachable_robots_txt_is_rechecked_after_the_hosts_pause(drift_runs):
    """R5 holds for the re-check: explain's second look at down's robots.txt, and the crawl's,
    wait out the Retry-After its 503 asked for (the old copy asked again a second later)."""
    times = [r["mono"] for r in drift_runs["_requests"] if r["host_key"] == "down" and r["path"] == "/robots.txt"]
    assert len(times) == 3, times  # explain, explain again, the crawl
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert min(gaps) >= RETRY_AFTER - CLOCK_TOLERANCE, gaps
