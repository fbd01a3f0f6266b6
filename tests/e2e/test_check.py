"""``scrapy walsh check``: every §8 row, on a conformant project and on a broken one.

Each test runs the real command (``python -m scrapy walsh check``) in a real project
directory: ``example_project/`` and ``tests/data/broken_project/`` (copied to a temp
directory first, so nothing is written into the repository).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from scrapy_walsh import __version__
from scrapy_walsh.conformance import CHECKLIST
from scrapy_walsh.conformance.rules.pacing import SERIAL
from scrapy_walsh.store import SqliteStore
from tests.helpers import REPO, add_addon_line, new_project, run_scrapy

ROWS = [r.row for r in CHECKLIST]
BROKEN = Path(__file__).resolve().parent.parent / "data" / "broken_project"


def check(cwd, *args, env=None):
    result = run_scrapy(["walsh", "check", *args], cwd=cwd, env=env, timeout=120)
    return result


def check_json(cwd, *args, env=None):
    result = check(cwd, "--json", *args, env=env)
    assert result.stdout.strip(), result.stderr[-3000:]
    return result, json.loads(result.stdout)


def rows_of(report):
    return {r["row"]: r for r in report["rows"]}


def settings_named(row):
    return {f["setting"] for f in row["findings"] if f["status"] != "pass"}


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    root = tmp_path_factory.mktemp("broken") / "broken_project"
    shutil.copytree(BROKEN, root)
    return root


@pytest.fixture(scope="module")
def example_report():
    """The example project's check, with its demo site up: row 3 fetches the site's list."""
    from demo_site import DemoSite

    with DemoSite(hosts=["ops"]) as site:
        return check_json(REPO / "example_project", "demo", env=dict(os.environ, WALSH_DEMO_PORT=str(site.port)))


def test_example_project_passes_every_must_row_and_records_what_makes_it_comparable(example_report):
    result, report = example_report
    assert result.returncode == 0, result.stdout + result.stderr[-2000:]
    assert report["spec_version"] == "walsh-research-compliance/v1"
    assert report["package_version"] == __version__
    checked = datetime.fromisoformat(report["checked_at"].replace("Z", "+00:00"))
    assert abs(datetime.now(timezone.utc) - checked) < timedelta(minutes=5)
    assert (report["project"], report["spider"], report["mode"]) == ("demo_project", "demo", "static")
    # every row of §8, in order, each with an explicit status and a reason
    assert [r["row"] for r in report["rows"]] == ROWS
    for row in report["rows"]:
        assert row["findings"], row
        assert row["status"] in {"pass", "warn"}, row
        assert all(f["message"] for f in row["findings"])
    rows = rows_of(report)
    assert {r for r in ROWS if rows[r]["status"] == "pass"} >= {
        "1",
        "2",
        "2a",
        "3",
        "3a",
        "3b",
        "3c",
        "4",
        "5",
        "6",
        "7",
        "8",
    }
    # row 9 warns: loopback allowed for the demo; the spider (a StructuredSourceSpider) has no selectors
    assert report["result"] == "warn"
    assert "WALSH_ALLOW_PRIVATE_ADDRESSES" in settings_named(rows["9"])
    assert "spider demo" not in settings_named(rows["9"])
    assert {f["setting"] for f in rows["9"]["findings"] if f["status"] == "pass"} >= {"spider demo"}


def test_human_output_is_one_line_per_finding_then_the_result():
    result = check(REPO / "example_project")
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert lines[0].startswith(
        "scrapy walsh check: demo_project (project settings) against "
        f"walsh-research-compliance/v1, scrapy-walsh {__version__}"
    )
    assert re.search(rf"^R4 +pass  CONCURRENT_REQUESTS: {re.escape(SERIAL[3])}$", result.stdout, re.M)
    named = {line.split()[0] for line in lines[1:-1]}
    requirements = {f"R{n}" for n in range(1, 10)}
    assert requirements <= named <= requirements | {"addresses", "usage", "configuration"}, "requirements, no numbers"
    statuses = [line.split()[1] for line in lines[1:-1]]
    counted = re.fullmatch(r"result: warn \((\d+) findings: (\d+) pass, (\d+) warn, 0 fail\)", lines[-1])
    assert counted, lines[-1]
    assert [int(n) for n in counted.groups()] == [len(statuses), statuses.count("pass"), statuses.count("warn")], (
        "the footer counts the lines printed"
    )


@pytest.fixture(scope="module")
def broken_report(broken):
    return check_json(broken, "everything")


def test_broken_project_fails_and_names_each_row_and_setting(broken_report):
    result, report = broken_report
    assert result.returncode == 1
    assert report["result"] == "fail"
    rows = rows_of(report)
    failing = {r for r, row in rows.items() if row["status"] == "fail"}
    assert failing >= {"-", "1", "2", "2a", "3", "3a", "4", "5", "6"}
    # no add-on: said first, with the line to add
    addon = rows["-"]["findings"][0]
    assert addon["setting"] == "ADDONS" and 'ADDONS = {"scrapy_walsh.Addon": 500}' in addon["message"]
    # R1 is enforced by the checkpoint alone: row 1 names the handler table, not a middleware
    assert {"USER_AGENT", "DOWNLOAD_HANDLERS"} <= settings_named(rows["1"])
    assert any("RobotsTxtMiddleware is enabled" in f["message"] for f in rows["2"]["findings"])
    assert "WALSH_BLOCKLIST_URL" in settings_named(rows["3"])
    assert {
        "CONCURRENT_REQUESTS",
        "DOWNLOAD_DELAY",
        "RANDOMIZE_DOWNLOAD_DELAY",
        "AUTOTHROTTLE_MAX_DELAY",
    } <= settings_named(rows["4"])
    assert "RETRY_HTTP_CODES" in settings_named(rows["5"])
    assert {"HTTPCACHE_ENABLED", "ITEM_PIPELINES", "spider everything.rules", "spider everything"} <= settings_named(
        rows["6"]
    )
    assert rows["8"]["status"] == "fail"  # FrequencyMiddleware missing; the 0 interval is a warning
    assert any(f["setting"] == "WALSH_REFETCH_INTERVAL" and f["status"] == "warn" for f in rows["8"]["findings"])
    assert any(f["setting"] == "spider everything" and "CSS/XPath" in f["message"] for f in rows["9"]["findings"])


def test_with_the_add_on_the_same_settings_still_fail_and_the_ua_is_only_overridden(broken):
    result, report = check_json(broken, env={"SCRAPY_PROJECT": "with_addon"})
    assert result.returncode == 1
    rows = rows_of(report)
    assert "-" not in rows  # the add-on is there
    assert [f["status"] for f in rows["1"]["findings"] if f["setting"] == "USER_AGENT"] == ["warn"]
    assert rows["2"]["status"] == "pass"  # the add-on removes Scrapy's RobotsTxtMiddleware
    assert {"CONCURRENT_REQUESTS", "DOWNLOAD_DELAY", "AUTOTHROTTLE_MAX_DELAY"} <= settings_named(rows["4"])
    assert rows["5"]["status"] == "pass"  # the add-on takes 429/503 out of RETRY_HTTP_CODES
    assert report["spiders_audited"] == ["everything"]
    # with the add-on, its rule with a callback routes what the site's sitemap lists (discovery)
    assert any(
        f["setting"] == "spider everything" and "targets come from the site's manifests" in f["message"]
        for f in rows["6"]["findings"]
    )


def test_cmdline_settings_are_audited_and_an_unknown_spider_is_a_usage_error():
    result = check(REPO / "example_project", "-s", "CONCURRENT_REQUESTS=4", "-s", "WALSH_REFETCH_INTERVAL=0")
    assert result.returncode == 1
    assert re.search(r"^R4 +fail  CONCURRENT_REQUESTS: CONCURRENT_REQUESTS=4 ", result.stdout, re.M)
    loosened = r"^R8 +warn  WALSH_REFETCH_INTERVAL: 0 loosens R8 frequency: it disables"
    assert re.search(loosened, result.stdout, re.M)
    assert "failing: R4 rate limit and Crawl-delay)" in result.stdout.splitlines()[-1]
    unknown = check(REPO / "example_project", "nosuchspider")
    assert unknown.returncode == 2 and "no spider named 'nosuchspider'" in unknown.stderr


@pytest.fixture(scope="module")
def addon_project(tmp_path_factory):
    project = new_project(tmp_path_factory.mktemp("store"))
    add_addon_line(project)
    return project


def test_a_state_store_that_cannot_be_written_fails_row_3b(addon_project):
    blocker = addon_project / "not-a-directory"
    blocker.write_text("a file where the store's directory should be")
    result, report = check_json(addon_project, "-s", f"WALSH_STATE_URI=sqlite:///{blocker}/state.sqlite3")
    assert result.returncode == 1
    row = rows_of(report)["3b"]
    assert row["status"] == "fail"
    assert any(
        "cannot be created" in f["message"] and "not a writable directory" in f["message"] for f in row["findings"]
    )


def test_an_existing_store_is_probed_without_touching_its_data(addon_project):
    path = addon_project / "state.sqlite3"
    store = SqliteStore(path, "Walsh-Research")
    store.set("fetched", "https://example.com/", 1234.5)
    store.close()
    result, report = check_json(addon_project, "-s", f"WALSH_STATE_URI=sqlite:///{path}")
    row = rows_of(report)["3b"]
    assert any("is writable (probe key written and deleted)" in f["message"] for f in row["findings"]), row
    store = SqliteStore(path, "Walsh-Research")
    try:
        assert list(store.items("fetched")) == [("https://example.com/", 1234.5)]
        assert list(store.items("walsh-check")) == []
    finally:
        store.close()
    # a default (not yet existing) store is not created by the check
    assert not (addon_project / ".scrapy" / "walsh-state.sqlite3").exists()
    check(addon_project)
    assert not (addon_project / ".scrapy" / "walsh-state.sqlite3").exists()
