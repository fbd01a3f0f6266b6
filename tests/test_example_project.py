"""``make demo``'s script, end to end: the example project crawls the demo site."""

import json
import os
import subprocess
import sys

from scrapy_walsh.settings import USER_AGENT

from .helpers import CLOCK_TOLERANCE, REPO, gaps_by_host, summary_value

ITEM_FIELDS = {"url", "status", "title", "links", "verdicts", "recommendation"}


def test_demo_crawl_prints_the_summary_and_keeps_metadata_only(tmp_path):
    env = dict(os.environ, WALSH_DEMO_PORT="0", WALSH_DEMO_OUTPUT=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "example_project/run_demo.py"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=240,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    log = result.stderr
    assert "scrapy_walsh compliance summary (walsh-research-compliance/v1)" in log
    assert summary_value(log, "identity") == USER_AGENT
    assert "at most 1 in flight" in summary_value(log, "requests sent")
    assert "What the demo server saw:" in result.stdout

    records = [json.loads(line) for line in (tmp_path / "server-requests.jsonl").read_text().splitlines()]
    assert records, "the crawl reached the demo site"
    assert {r["headers"].get("User-Agent") for r in records} == {USER_AGENT}
    assert max(r["in_flight"] for r in records) == 1
    for host, gaps in gaps_by_host(records).items():
        assert all(g >= 1.0 - CLOCK_TOLERANCE for g in gaps), (host, gaps)
    # names, not IP literals: the demo resolver mapped every *.walsh-demo.test host
    assert all(r["host"].endswith(".walsh-demo.test") for r in records)

    # the gates: blocked hosts never contacted, robots.txt obeyed, a 503 robots blocks its host
    assert not any(r["host"].endswith("blocked.walsh-demo.test") for r in records)
    seen = {(r["host"].split(".walsh-demo.test")[0], r["path"]) for r in records}
    assert ("named", "/research-off/notes") not in seen and ("named", "/members/join") in seen
    assert ("down", "/page/1") not in seen and ("gone", "/page/1") in seen
    assert ("open", "/private/secret") not in seen

    items = [json.loads(line) for line in (tmp_path / "items.jsonl").read_text().splitlines()]
    assert items
    assert all(item["verdicts"]["blocklist"] == "not_blocked" for item in items)
    for item in items:
        assert set(item) == ITEM_FIELDS
        assert all(len(json.dumps(value)) < 2000 for value in item.values()), item
