"""``scrapy walsh check --live``: one real probe crawl per project, judged by the server.

Each fixture runs the real command once (it starts the demo site itself, crawls it with
the project's own settings, and reads the server's log); the tests assert on the report.
The broken project (no add-on, 8 concurrent requests, no delay, its own UA, Scrapy's
robots and retry middlewares, an HTTP cache) must fail with server-side figures.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from scrapy_walsh.conformance.attestation import BUSY_RETRY_AFTER, MIN_INTERVAL, SLOW_CRAWL_DELAY
from scrapy_walsh.conformance.rules.pacing import SERIAL
from tests.helpers import CLOCK_TOLERANCE, REPO, run_scrapy

BROKEN = Path(__file__).resolve().parent.parent / "data" / "broken_project"
MUST_ROWS = ["1", "2", "2a", "3", "3a", "4", "5", "6"]
#: The hostile probe adds a configuration finding (the NaN start) and an R8 one.
LIVE_ROWS = ["-", *MUST_ROWS, "8"]


def live(cwd, *args, env=None):
    result = run_scrapy(["walsh", "check", "--live", "--json", *args], cwd=cwd, env=env, timeout=240)
    assert result.stdout.strip(), result.stderr[-3000:]
    return result, json.loads(result.stdout)


def rows_of(report):
    return {r["row"]: r for r in report["rows"]}


def message(report, row):
    return " ".join(f["message"] for f in rows_of(report)[row]["findings"])


@pytest.fixture(scope="module")
def example_live():
    return live(REPO / "example_project", "demo")


@pytest.fixture(scope="module")
def broken_copy(tmp_path_factory):
    root = tmp_path_factory.mktemp("broken-live") / "broken_project"
    shutil.copytree(BROKEN, root)
    return root


@pytest.fixture(scope="module")
def broken_live(broken_copy):
    return live(broken_copy)


def test_example_project_attests_every_must_from_the_server(example_live):
    result, report = example_live
    assert result.returncode == 0, json.dumps(report, indent=1)
    assert report["mode"] == "live" and report["spec_version"] == "walsh-research-compliance/v1"
    assert report["crawl_exit_status"] == 0
    assert [r["row"] for r in report["rows"]] == LIVE_ROWS
    assert all(r["status"] == "pass" for r in report["rows"]), json.dumps(report["rows"], indent=1)
    figures = report["figures"]
    assert figures["other_user_agents"] == []
    assert figures["max_in_flight"] == 1
    assert figures["min_gap"] >= MIN_INTERVAL - CLOCK_TOLERANCE
    assert figures["slow_min_gap"] >= SLOW_CRAWL_DELAY - CLOCK_TOLERANCE
    assert figures["retry_after_wait"] >= BUSY_RETRY_AFTER - CLOCK_TOLERANCE
    assert figures["blocked_requests"] == 0 and figures["beyond_targets"] == 0
    assert figures["blocklist_lead_seconds"] > 0
    # the report states the figures, not just verdicts
    assert f"minimum same-host gap {figures['min_gap']:.3f} s" in message(report, "4")
    assert f"over {figures['requests']} requests" in message(report, "4")
    assert f"retried {figures['retry_after_wait']:.3f} s later" in message(report, "5")


def test_example_project_resists_the_hostile_probe(example_live):
    """Forged meta, engine.download, a late UA middleware, proxies, a Host header, a trailing
    dot, file:// (a start URL, a robots.txt redirect), a chunked item, a NaN setting: the
    server saw none of it, and the attestation record says so row by row."""
    result, report = example_live
    hostile = [f for r in report["rows"] for f in r["findings"] if f["message"].startswith("hostile probe: ")]
    assert {f["requirement"] for f in hostile} == {"configuration", "R1", "R3", "R4", "R6", "R8"}
    assert all(f["status"] == "pass" for f in hostile), json.dumps(hostile, indent=1)
    figures = report["figures"]["hostile"]
    assert figures["forged_reached"] == figures["blocked_contacted"] == figures["private_contacted"] == 0
    assert figures["max_in_flight"] == 1 and figures["open_min_gap"] >= MIN_INTERVAL - CLOCK_TOLERANCE
    assert figures["file_items"] == figures["chunked_items"] == 0
    assert any("the hostile probe crawl exited 0" in note for note in report["notes"]), report["notes"]
    # the record names the log its verdicts were judged from (check --sign then covers it)
    assert report["server_log_digest"].startswith("sha256:") and len(report["server_log_digest"]) == 71


def test_broken_project_fails_with_server_side_figures(broken_live):
    result, report = broken_live
    assert result.returncode == 1
    assert report["result"] == "fail"
    rows = rows_of(report)
    figures = report["figures"]
    assert figures["other_user_agents"] == ["BrokenBot/1.0 (+https://example.invalid/)"]
    assert rows["1"]["status"] == "fail"
    assert f"of {figures['requests']} requests carried another" in message(report, "1")
    assert rows["2a"]["status"] == "fail"  # Scrapy's robots middleware matched '*', not our group
    assert rows["3"]["status"] == "fail" and "never requested" in message(report, "3")
    assert rows["3a"]["status"] == "fail" and figures["blocked_requests"] > 0
    assert rows["4"]["status"] == "fail" and figures["min_gap"] < MIN_INTERVAL - CLOCK_TOLERANCE
    assert rows["5"]["status"] == "fail"
    assert rows["6"]["status"] == "fail" and figures["subresources"] > 0 and figures["beyond_targets"] > 0
    # without the add-on the hostile probe gets through: the late UA, the blocked host, the NaN start
    hostile = {
        f["requirement"]: f["status"] for r in report["rows"] for f in r["findings"] if "hostile" in f["message"]
    }
    assert hostile["R1"] == hostile["R3"] == hostile["configuration"] == "fail", hostile


def test_a_crawl_the_add_on_refuses_is_a_failure_with_the_reason(broken_copy):
    result, report = live(broken_copy, env={"SCRAPY_PROJECT": "with_addon"})
    assert result.returncode == 1
    assert report["figures"]["requests"] == 0 and report["crawl_exit_status"] != 0
    refused = rows_of(report)["-"]["findings"][0]["message"]
    assert refused.startswith("the crawl was refused at start: ")
    assert "CONCURRENT_REQUESTS breaks R4 rate limit and Crawl-delay" in refused
    assert all(rows_of(report)[r]["status"] == "fail" for r in MUST_ROWS)


GREEDY_SPIDER = """
import scrapy


class GreedySpider(scrapy.Spider):
    name = "greedy"
    custom_settings = {"CONCURRENT_REQUESTS": 4}
    start_urls = ["http://open.walsh-demo.test/page/1"]
"""


def test_the_named_spiders_custom_settings_reach_the_live_crawl(tmp_path):
    """Project settings pass; the spider's own custom_settings break R4, so the add-on
    refuses the live crawl of that spider, naming the spider's value."""
    from tests.helpers import add_addon_line, new_project, write_spider

    project = new_project(tmp_path)
    add_addon_line(project)
    write_spider(project, "greedy", GREEDY_SPIDER)
    static = run_scrapy(["walsh", "check"], cwd=project)
    assert re.search(rf"^R4 +pass  CONCURRENT_REQUESTS: {re.escape(SERIAL[3])}$", static.stdout, re.M), static.stdout
    result, report = live(project, "greedy")
    assert result.returncode == 1 and report["spider"] == "greedy"
    assert "CONCURRENT_REQUESTS=4 allows concurrent requests" in rows_of(report)["-"]["findings"][0]["message"]
