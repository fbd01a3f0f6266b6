"""``make demo``'s script, end to end: the example project crawls the demo site."""

import json
import os
import subprocess
import sys
from urllib.parse import urlsplit

from scrapy_walsh.settings import USER_AGENT
from tests.helpers import CLOCK_TOLERANCE, REPO, gaps_by_host, summary_value

#: Fields read from a structured representation (markdown or llms.txt), never from HTML.
STRUCTURED_FIELDS = {"title", "headings", "links", "name", "summary", "sections", "optional"}


def test_demo_crawl_prints_the_summary_and_keeps_metadata_only(tmp_path):
    env = dict(os.environ, WALSH_DEMO_PORT="0", WALSH_DEMO_OUTPUT=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "example_project/run_demo.py"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
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

    # R9: sitemap entries are never fetched; hostile twins never requested (loopback, named)
    assert ("open", "/page/2") not in seen and ("open", "/page/3") not in seen
    assert ("named", "/research-off/notes.md") not in seen and ("docs", "/guide/faq.md") in seen
    assert all(r["ip"] != "127.0.0.1" and r["ip"] != "::1" for r in records)

    items = [json.loads(line) for line in (tmp_path / "items.jsonl").read_text().splitlines()]
    assert items
    for item in items:
        assert all(len(json.dumps(value)) < 2000 for value in item.values()), item
        assert "target" in item or "sitemap" in item, item
        if "verdicts" in item:
            assert item["verdicts"]["blocklist"] == "not_blocked", item
        if item.get("source") not in ("markdown", "llms_txt_twin", "llms_txt"):
            assert not STRUCTURED_FIELDS & set(item), item  # nothing read from HTML
    sources = {
        item["target"].split("//")[1].split(".")[0] + urlsplit(item["target"]).path: item.get("source")
        or item.get("verdict")
        for item in items
        if "target" in item
    }
    assert sources["docs/guide/intro"] == "markdown" and sources["docs/guide/faq"] == "llms_txt_twin"
    assert sources["llmsonly/page/alpha"] == "llms_txt"
    assert sources["htmlonly/page/1"] == sources["hostile/research-off/notes"] == "no_structured_representation"
    assert sources["blocked/page/1"] == "blocked_by_operator"
    assert sum("loc" in item for item in items) == 6 and sum("child_sitemap" in item for item in items) == 2

    # the request journal: the demo's journal holds every request the server saw, and verifies with its key
    from scrapy_walsh.commands.signed_record import load_public_keys
    from scrapy_walsh.journal.chain import entries, journal_files, verify_path

    journal = tmp_path / "walsh-state.journal"
    report = verify_path(journal, load_public_keys(str(tmp_path / "walsh-demo-signing.pem.pub")))
    assert report.ok and all(f.keyids and f.unsigned_tail == 0 for f in report.files), report.first_problem()
    sends = [e for f in journal_files(journal) for e in entries(f.read_bytes()) if e["kind"] == "send"]
    assert len(sends) == len(records) and {r["signature"] for r in records} == {"verified"}
    assert (tmp_path / "access-logs" / "open.walsh-demo.test.log").exists()


def _run_demo(out, *args):
    env = dict(os.environ, WALSH_DEMO_PORT="0", WALSH_DEMO_OUTPUT=str(out))
    return subprocess.run(
        [sys.executable, "example_project/run_demo.py", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_the_demo_runs_beside_another_crawl_of_the_identity(tmp_path):
    """A crawl of the identity holds the default store on this machine: the demo, with its own
    store, still runs (it was refused at start, then printed the server's view of nothing)."""
    from demo_site import DemoSite
    from tests.e2e.test_fleet import start_worker
    from tests.helpers import GATES_SPIDER, add_addon_line, new_project, wait_for_pages, write_spider

    with DemoSite(hosts=["open", "ops"]) as site:
        (tmp_path / "other").mkdir()
        project = new_project(tmp_path / "other")
        add_addon_line(project, site=site)
        write_spider(project, "gates", GATES_SPIDER)
        running = start_worker(project, [site.url("open", f"/page/{i}") for i in range(1, 31)], 0, tmp_path / "o.jsonl")
        try:
            wait_for_pages(site, 1, running)
            result = _run_demo(tmp_path / "demo")
            assert running.poll() is None, "the other crawl ended before the demo: nothing was tried"
        finally:
            running.terminate()
            running.communicate(timeout=240)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "What the demo server saw:" in result.stdout
    assert "refuses to start" not in result.stderr, result.stderr[-3000:]


def test_a_demo_crawl_that_did_not_run_prints_no_results(tmp_path):
    (tmp_path / "walsh-state.sqlite3").mkdir(parents=True)  # a state store that can't be opened
    result = _run_demo(tmp_path, "--keep-state")
    assert result.returncode == 1, result.stdout + result.stderr[-3000:]
    assert "refuses to start this crawl" in result.stderr, result.stderr[-3000:]
    assert "What the demo server saw:" not in result.stdout and "items:" not in result.stdout, result.stdout
    assert "the demo crawl did not run" in result.stderr, result.stderr[-3000:]
