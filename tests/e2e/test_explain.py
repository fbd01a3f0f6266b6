"""``scrapy walsh explain URL``: the gate-by-gate decision, against the real demo site.

The command runs as a user runs it, in a copy of ``example_project/`` (its demo settings:
the demo resolver, the demo operator's blocklist, the demo's addresses allowed). What it
sent is read from the demo server's log: the blocklist, its published schema (the crawl
validates with it, and explain runs the crawl's steps) and the robots.txt, once each, with the exact User-Agent, and
never the target itself.
"""

from __future__ import annotations

import json
import shutil

import pytest

from demo_site import DemoSite
from scrapy_walsh.settings import USER_AGENT
from tests.helpers import GATES_SPIDER, REPO, run_scrapy


@pytest.fixture(scope="module")
def site():
    with DemoSite(sentinels=True) as demo:
        yield demo


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("explain") / "example_project"
    shutil.copytree(REPO / "example_project", root, ignore=shutil.ignore_patterns("output", ".scrapy"))
    settings = root / "demo_project" / "settings.py"
    settings.write_text(settings.read_text() + f'\nWALSH_STATE_URI = "sqlite:///{root / "state.sqlite3"}"\n')
    (root / "demo_project" / "spiders" / "gates.py").write_text(GATES_SPIDER)
    return root


def explain(project, site, *args):
    return run_scrapy(["walsh", "explain", *args], cwd=project, env={"WALSH_DEMO_PORT": str(site.port)})


def sent_since(site, mark):
    return [(r["host"], r["path"], r["headers"].get("User-Agent")) for r in site.requests[mark:]]


@pytest.fixture(scope="module")
def named(project, site):
    """The README's example: the named host's own group refuses /research-off/."""
    mark = len(site.requests)
    result = explain(project, site, site.url("named", "/research-off/guide.md"))
    return result, sent_since(site, mark)


def test_explain_prints_the_deciding_line_of_the_named_group(named):
    result, _ = named
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "selected: group naming us\n               group at lines 5-6 (User-agent: Walsh-Research)\n" in out
    assert "(overrides group at lines 2-3 (User-agent: *))" in out
    assert "rule: line 6: Disallow: /research-off/\n" in out
    assert "verdict: disallowed_explicit -> not_recommended" in out
    assert "blocklist    not blocked: no entry covers this host" in out
    assert "pacing       1 s between requests to this host = max(WALSH_MIN_INTERVAL 1 s, Crawl-delay -" in out
    assert "cached       blocklist: no; robots.txt: no" in out
    assert out.rstrip().endswith("decision     REFUSED by the robots gate (disallowed_explicit)")


def test_explain_asks_once_for_each_resource_with_the_exact_user_agent(named):
    _, sent = named
    assert sorted(sent) == sorted(
        [
            ("ops.walsh-demo.test", "/.well-known/walsh-research/blocklist.json", USER_AGENT),
            ("ops.walsh-demo.test", "/.well-known/walsh-research/blocklist.schema.json", USER_AGENT),
            ("named.walsh-demo.test", "/robots.txt", USER_AGENT),
        ]
    )


def test_a_blocked_host_is_never_contacted(project, site):
    mark = len(site.requests)
    result = explain(project, site, site.url("www.blocked", "/page/1"))
    assert result.returncode == 0, result.stderr
    assert "BLOCKED by entry 'blocked.walsh-demo.test' (added 2026-11-01: demo opt-out by email)" in result.stdout
    assert "REFUSED by the blocklist gate (blocked_by_operator)" in result.stdout
    assert {h for h, _, _ in sent_since(site, mark)} == {"ops.walsh-demo.test"}


def test_crawl_delay_line_and_pacing_interval_as_json(project, site):
    result = explain(project, site, site.url("slow", "/page/1"), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["robots"]["crawl_delay"] == 2.0 and report["robots"]["crawl_delay_line"] == 6
    assert report["robots"]["groups"] == ["group at lines 5-7 (User-agent: Walsh-Research)"]
    assert report["pacing"]["interval"] == 2.0
    assert report["decision"] == {"outcome": "fetch", "gate": None, "verdict": None}


def test_an_unreachable_robots_txt_and_a_loopback_target(project, site):
    down = explain(project, site, site.url("down", "/page/1"))
    assert "source: unreachable (HTTP 503), nothing stored" in down.stdout
    assert "REFUSED by the robots gate (unknown_unreachable)" in down.stdout
    mark = len(site.requests)
    loopback = explain(project, site, f"http://127.0.0.1:{site.port}/")
    assert "127.0.0.1 is a loopback address and WALSH_ALLOW_PRIVATE_ADDRESSES" in loopback.stdout
    assert "REFUSED by the address gate (private_address)" in loopback.stdout
    assert "sentinel" not in [r["host_key"] for r in site.requests[mark:]]


def test_cached_copies_from_a_crawls_state_store_are_used_and_said(project, site):
    crawl = run_scrapy(
        ["crawl", "gates", "-a", "urls=" + site.url("gone", "/page/1")],
        cwd=project,
        env={"WALSH_DEMO_PORT": str(site.port)},
    )
    assert crawl.returncode == 0, crawl.stderr[-2000:]
    mark = len(site.requests)
    online = explain(project, site, site.url("gone", "/page/2"))
    assert "source: stored copy fetched" in online.stdout
    assert "cached       blocklist: no; robots.txt: yes" in online.stdout
    assert "s (stored ledger))" in online.stdout  # the crawl's adaptive delay for this host is a term
    # as the next crawl would: the list again, its schema from the store (fetched by the crawl, within a day)
    assert [p for _, p, _ in sent_since(site, mark)] == ["/.well-known/walsh-research/blocklist.json"]
    mark = len(site.requests)
    offline = explain(project, site, site.url("gone", "/page/2"), "--offline")
    assert "list: stored copy adopted" in offline.stdout
    assert "cached       blocklist: yes; robots.txt: yes" in offline.stdout
    assert len(site.requests) == mark  # --offline sent nothing


def test_a_settings_module_that_would_not_start_a_crawl_is_refused(site, tmp_path):
    """tests/data/broken_project breaks rows 1-8 on purpose: explain names them and sends nothing."""
    broken = tmp_path / "broken_project"
    shutil.copytree(REPO / "tests" / "data" / "broken_project", broken)
    mark = len(site.requests)
    result = explain(broken, site, site.url("named", "/", by_ip=True))
    assert result.returncode == 2
    assert "these settings would not start a crawl" in result.stderr
    for broken_setting in (
        "WALSH_BLOCKLIST_URL breaks R3",
        "CONCURRENT_REQUESTS breaks R4",
        "HTTPCACHE_ENABLED breaks R6",
    ):
        assert broken_setting in result.stderr
    assert result.stdout == ""
    assert site.requests[mark:] == []


def test_offline_files(project, site, tmp_path):
    robots = tmp_path / "robots.txt"
    robots.write_text("User-agent: *\nCrawl-delay: 90\n\nUser-agent: walsh-research\nAllow: /\nDisallow: /x/*.pdf$\n")
    listed = tmp_path / "blocklist.json"
    listed.write_text(
        json.dumps(
            {
                "contract": "walsh-research-blocklist/v1",
                "updated": "2026-11-01T00:00:00Z",
                "operator": "o",
                "contact": "c",
                "policy": "https://wal.sh/",
                "blocked": [],
            }
        )
    )
    mark = len(site.requests)
    result = explain(
        project,
        site,
        "https://files.example/x/a.pdf",
        "--offline",
        "--robots-file",
        str(robots),
        "--blocklist-file",
        str(listed),
        "--json",
    )
    report = json.loads(result.stdout)
    assert report["robots"]["rule"] == "line 6: Disallow: /x/*.pdf$"
    # only a rule ends a group's User-agent lines (robots.py), so both agents share one group
    assert report["robots"]["groups"] == ["group at lines 1-6 (User-agent: *, User-agent: walsh-research)"]
    assert report["robots"]["crawl_delay"] == 90.0 and report["robots"]["crawl_delay_line"] == 2
    assert report["pacing"]["cap"] == "Crawl-delay 90 s > WALSH_MAX_CRAWL_DELAY 60 s"
    assert report["address"]["verdict"] == "unchecked"
    assert report["decision"]["verdict"] == "disallowed_explicit"
    assert site.requests[mark:] == []
