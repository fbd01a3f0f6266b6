"""``scrapy walsh state`` against the store a real crawl left: show, forget, and what the next crawl sends."""

from __future__ import annotations

import json

from tests.helpers import crawl_targets, run_scrapy


def _state(project, *args):
    result = run_scrapy(["walsh", "state", *args], cwd=project)
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def test_show_forget_and_fetch_again(project, demo_site):
    kept, again = demo_site.url("open", "/page/1"), demo_site.url("open", "/page/2")
    first, _ = crawl_targets(project, [kept, again])
    assert first.returncode == 0, first.stderr[-3000:]

    shown = json.loads(_state(project, "show", again, "--json").stdout)
    record = shown["targets"][again]
    assert record["fetched"]["skipped_now"] is True
    assert record["emitted_by"] == {"gates": record["emitted_by"]["gates"]}
    text = _state(project, "show", again).stdout
    assert "skipped now: R8" in text and "scrapy walsh state forget URL" in text
    by_host = json.loads(_state(project, "show", "open.walsh-demo.test", "--json").stdout)
    assert sorted(by_host["targets"]) == sorted([kept, again])
    assert list(by_host["robots"]) == [demo_site.url("open", "/")[:-1]], "the origin's cached robots.txt"
    assert by_host["pacing"]["last_start"] > 0, "the ledger is shown"

    forgot = json.loads(_state(project, "forget", again, "--items", "--json").stdout)
    assert set(forgot["dropped"]) == {"fetched", "fetched_by", "validators", "seen:gates"}
    assert forgot["dropped"]["fetched"] == [again]

    demo_site.reset()
    second, items = crawl_targets(project, [kept, again])
    assert second.returncode == 0, second.stderr[-3000:]
    pages = sorted(r["path"] for r in demo_site.requests if r["path"].startswith("/page/"))
    assert pages == ["/page/2"], "the forgotten target is fetched again, the other one is still skipped"
    assert items[again]["status"] == 200, "and its item is emitted again"
    assert items[kept]["verdict"] == "skipped_recently_fetched"


def test_forget_robots_and_the_safety_state_stays(project, demo_site):
    url = demo_site.url("open", "/page/3")
    crawl_targets(project, [url])
    counts = json.loads(_state(project, "show", "--json").stdout)["counts"]
    assert counts["robots"] >= 1 and counts["pacing"] >= 1 and counts["fetched"] == 1

    forgot = json.loads(_state(project, "forget", "--robots", "open.walsh-demo.test", "--json").stdout)
    assert len(forgot["dropped"]["robots"]) == 1
    after = json.loads(_state(project, "show", "--json").stdout)["counts"]
    assert after["robots"] == counts["robots"] - 1
    assert after["pacing"] == counts["pacing"], "the pacing ledger is never touched"

    demo_site.reset()
    again, _ = crawl_targets(project, [demo_site.url("open", "/page/4")])
    assert again.returncode == 0, again.stderr[-3000:]
    assert [r["path"] for r in demo_site.requests if r["host_key"] == "open"] == ["/robots.txt", "/page/4"]


def test_output_is_deterministic_and_needs_a_target_to_forget(project, demo_site):
    crawl_targets(project, [demo_site.url("open", "/page/5"), demo_site.url("open", "/page/6")])
    one = _state(project, "show", "open.walsh-demo.test").stdout
    assert one == _state(project, "show", "open.walsh-demo.test").stdout
    refused = run_scrapy(["walsh", "state", "forget"], cwd=project)
    assert refused.returncode == 1 and "name targets" in refused.stderr
