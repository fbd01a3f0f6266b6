"""The journal's proof holds when the crawl does not end well: a request on the wire at a
``kill -9`` is in the journal (written ahead) and ``journal match`` pairs it; a journal directory
that cannot be used refuses the start; a disk that fills lets no request out without its entry.

Real crawls in subprocesses against the demo server, whose log is the evidence of what was sent.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from demo_site.access_log import combined_log
from scrapy_walsh.identity import webbotauth
from scrapy_walsh.journal import reading
from tests.e2e.test_outputs import small_disk  # noqa: F401 - the fixture: a real 32 KiB tmpfs
from tests.helpers import GATES_SPIDER, crawl_targets, run_scrapy

HOST = "open.walsh-demo.test"


def _journaled(journal: Path) -> Counter:
    """(method, path, host) of every request the journal holds as sent, through the one reader."""
    found: Counter = Counter()
    for host in {"open.walsh-demo.test", "named.walsh-demo.test", "ops.walsh-demo.test"}:
        _, view = reading.read_journal(journal, None, host)
        found.update((s["method"], _target(s["url"]), s["host"]) for s in view.sends)
    return found


def _target(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _journal_at(project: Path, directory: Path) -> None:
    with (project / "plainproj" / "settings.py").open("a") as settings:
        settings.write(f"\nWALSH_JOURNAL_DIR = {str(directory)!r}\n")


def _seen(site) -> Counter:
    return Counter((r["method"], r["path"], r["host"]) for r in site.requests)


def _killed_while_held(project: Path, demo_site, held: str) -> None:
    """A crawl of ``held`` (a page the server holds), SIGKILLed while the request is on the wire."""
    (project / "plainproj" / "spiders" / "gates.py").write_text(GATES_SPIDER)
    crawl = subprocess.Popen(
        [sys.executable, "-m", "scrapy", "crawl", "gates", "-a", "urls=" + demo_site.url("open", held)],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while demo_site.arrived("open", held.split("?")[0]) == 0:  # the server holds it: on the wire
            assert time.monotonic() < deadline and crawl.poll() is None, "the crawl did not send the page"
            time.sleep(0.02)
        os.kill(crawl.pid, signal.SIGKILL)
    finally:
        crawl.wait(timeout=30)
    assert crawl.returncode == -signal.SIGKILL


def test_a_request_on_the_wire_at_kill_9_is_journaled_and_match_pairs_it(project, demo_site):
    journal = project / "journal"
    _journal_at(project, journal)
    held = "/page/1?latency=4"
    _killed_while_held(project, demo_site, held)
    deadline = time.monotonic() + 10
    while not demo_site.requests_for("open", path=held):  # the server logs it once it has answered
        assert time.monotonic() < deadline, "the demo server never logged the held request"
        time.sleep(0.05)

    report, view = reading.read_journal(journal, None, HOST)
    assert report.ok, report.first_problem()
    (entry,) = [s for s in view.sends if s["url"].endswith(held)]
    assert entry["outcome"] == reading.UNKNOWN_OUTCOME and "status" not in entry
    assert _journaled(journal) == _seen(demo_site)
    log = project / "access.log"
    log.write_text(combined_log(demo_site.requests, HOST))
    matched = run_scrapy(["walsh", "journal", "match", "--host", HOST, str(log)], cwd=project)
    assert matched.returncode == 0, matched.stdout + matched.stderr
    assert "0 with our User-Agent are NOT in the journal" in matched.stdout


def test_a_signed_crawl_killed_with_kill_9_is_recovered_by_the_next_crawl(project, demo_site, tmp_path):
    key = tmp_path / "walsh.pem"
    assert run_scrapy(["walsh", "keys", "generate", str(key)], cwd=tmp_path).returncode == 0
    agent = demo_site.publish_directory(webbotauth.directory([webbotauth.load_private_key(key)]))
    journal = project / "journal"
    with (project / "plainproj" / "settings.py").open("a") as settings:
        settings.write(f"\nWALSH_SIGNING_KEY = {str(key)!r}\nWALSH_SIGNATURE_AGENT = {agent!r}\n")
    _journal_at(project, journal)
    _killed_while_held(project, demo_site, "/page/1?latency=4")
    verify = ["walsh", "journal", "verify", str(journal), "--key", f"{key}.pub"]
    crashed = run_scrapy(verify, cwd=project)
    assert crashed.returncode == 1 and "not covered by a head the key signed" in crashed.stdout, crashed.stdout
    again = run_scrapy(["crawl", "gates", "-a", "urls=" + demo_site.url("open", "/page/2")], cwd=project)
    assert again.returncode == 0, again.stderr[-2000:]
    recovered = run_scrapy(verify, cwd=project)
    assert recovered.returncode == 0 and "verified:" in recovered.stdout, recovered.stdout + recovered.stderr
    assert re.search(r"entries \d+ to \d+ \(\d+ entries\) recovered after a crash at 20", recovered.stdout)


def _unusable(tmp_path: Path, how: str) -> Path:
    if how == "a file":
        blocker = tmp_path / "not-a-directory"
        blocker.write_text("a file where the journal's directory would go")
        return blocker
    if how == "a file on its way":
        blocker = tmp_path / "not-a-directory"
        blocker.write_text("a file where the journal's parent directory would go")
        return blocker / "journal"
    if how == "under /proc":
        return Path("/proc/walsh-journal")
    folder = tmp_path / "immutable"
    folder.mkdir()
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not permitted here")
    return folder


@pytest.mark.parametrize("how", ["a file", "a file on its way", "under /proc", "immutable"])
def test_an_unusable_journal_directory_refuses_the_start_and_sends_nothing(project, demo_site, tmp_path, how):
    directory = _unusable(tmp_path, how)
    try:
        _journal_at(project, directory)
        result, items = crawl_targets(project, [demo_site.url("open", "/page/1")])
    finally:
        if how == "immutable":
            subprocess.run(["chattr", "-i", str(directory)], check=False)
    assert result.returncode != 0, result.stderr[-3000:]
    assert demo_site.requests == [] and not items
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    refusals = [line for line in result.stderr.splitlines() if "WALSH_JOURNAL_DIR breaks" in line]
    assert len(refusals) == 1 and "proof of conformance" in refusals[0], result.stderr[-3000:]


def test_a_journal_disk_that_fills_lets_no_request_out_without_its_entry(project, demo_site, small_disk):  # noqa: F811
    (small_disk / "filler").write_bytes(b"\0" * 20 * 1024)  # a few KiB left: it fills after a few requests
    journal = small_disk / "journal"
    _journal_at(project, journal)
    urls = [demo_site.url(h, f"/page/{i}") for i in range(1, 16) for h in ("open", "named")]
    result, _ = crawl_targets(project, urls)
    assert result.returncode != 0, result.stderr[-3000:]
    assert "'walsh/journal/unwritable': " in result.stderr, result.stderr[-3000:]
    stops = [line for line in result.stderr.splitlines() if "scrapy_walsh stops this crawl" in line]
    assert len(stops) == 1 and "WALSH_JOURNAL_DIR" in stops[0], result.stderr[-3000:]
    seen = _seen(demo_site)
    assert 0 < sum(seen.values()) < len(urls), "the disk filled in the middle of the crawl"
    assert _journaled(journal) == seen  # every request the servers saw, and nothing else


def test_each_send_entry_says_the_interval_it_kept_and_why(project, demo_site):
    """A Retry-After pause and a computed backoff are told apart from the floor in the journal."""
    journal = project / "journal"
    _journal_at(project, journal)
    told, computed = "/status/429?times=1&retry-after=3", "/status/503?times=1"
    result, _ = crawl_targets(project, [demo_site.url("busy", told), demo_site.url("open", computed)])
    assert result.returncode == 0, result.stderr[-3000:]
    _, busy = reading.read_journal(journal, None, "busy.walsh-demo.test")
    first, retry = [s for s in busy.sends if s["url"].endswith(told)]
    assert first["status"] == 429 and retry["status"] == 200
    assert retry["why"] == "retry-after" and retry["interval"] >= 3.0, retry
    assert retry["t"] - first["t"] >= retry["interval"] - 0.05  # the interval recorded is the one kept
    _, open_ = reading.read_journal(journal, None, HOST)
    first, retry = [s for s in open_.sends if s["url"].endswith(computed)]
    assert first["status"] == 503 and retry["why"] == "backoff" and retry["interval"] >= 1.0, retry
    assert {s["why"] for s in busy.sends + open_.sends} <= {"floor", "crawl-delay", "retry-after", "backoff"}
