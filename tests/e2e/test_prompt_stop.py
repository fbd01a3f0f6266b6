"""One Ctrl-C while every host waits out a long pause: a real ``scrapy crawl`` process whose hosts
all answered a 503 with ``Retry-After: 120``, on sqlite and on a real redis-server. The crawl exits
within a few seconds of one SIGINT and keeps what a graceful stop keeps: what the server answered
is recorded as fetched and its items are in the feed, nothing unsent is recorded as fetched, the
journal verifies and holds every request the server saw, each with its outcome."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from collections import Counter
from urllib.parse import urlsplit

import pytest

from demo_site import DemoSite
from scrapy_walsh.journal.chain import entries, journal_files, verify_path
from scrapy_walsh.policy.canonical import canonical_url
from scrapy_walsh.policy.vocabulary import Namespace
from scrapy_walsh.store import open_store, parse_state_uri
from scrapy_walsh.store.leases import is_lease
from tests.e2e.test_fleet import start_worker
from tests.helpers import CLOCK_TOLERANCE, GATES_SPIDER, add_addon_line, gaps_by_host, new_project, stat
from tests.redis_server import RedisServer

HOSTS = ("open", "gone")
PAGES = 5
#: The pause every host asks for: far longer than any stop may take.
PAUSE = 120
#: Seconds from the one SIGINT to the process's exit.
EXIT_BOUND = 5.0
IDENTITY = "Walsh-Research"


class Log:
    """A crawl's stderr, read as it comes, so the test can wait for a line."""

    def __init__(self, process: subprocess.Popen):
        self.lines: list[str] = []
        self._seen = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(process,), daemon=True)
        self._thread.start()

    def _read(self, process: subprocess.Popen) -> None:
        for line in process.stderr:
            with self._seen:
                self.lines.append(line)
                self._seen.notify_all()
        with self._seen:
            self.lines.append("")  # the end
            self._seen.notify_all()

    def wait_for(self, text: str, count: int, timeout: float) -> None:
        with self._seen:
            found = self._seen.wait_for(
                lambda: sum(text in line for line in self.lines) >= count or "" in self.lines, timeout
            )
        assert found and "" not in self.lines, f"{text!r} x{count} not logged:\n{self.text()[-4000:]}"

    def text(self) -> str:
        self._thread.join(timeout=0 if "" not in self.lines else None)
        return "".join(self.lines)

    def finish(self) -> str:
        self._thread.join(timeout=30)
        return "".join(self.lines)


def paused_crawl(tmp_path, backend: str):
    """Crawl PAGES pages on each of HOSTS, where every page after the first answers 503 with
    ``Retry-After: 120``; once every host is paused and a request waits for its pause, one SIGINT.
    Returns the log, what the server saw, the seconds from the signal to the exit, the exit
    status, the items, the store's R8 record of each target, and the journal's entries."""
    with DemoSite(hosts=[*HOSTS, "ops"]) as site:
        for key in HOSTS:
            for page in range(2, PAGES + 1):
                site.override(key, f"/page/{page}", 503, "busy", headers=[("Retry-After", str(PAUSE))])
        server = RedisServer(tmp_path / "redis").start() if backend == "redis" else None
        uri = server.url if server is not None else f"sqlite:///{tmp_path / 'state.sqlite3'}"
        journal = tmp_path / "journal"
        crawl = None
        try:
            project = new_project(tmp_path)
            add_addon_line(project, f"WALSH_STATE_URI = {uri!r}\nWALSH_JOURNAL_DIR = {str(journal)!r}\n", site=site)
            (project / "plainproj" / "spiders" / "gates.py").write_text(GATES_SPIDER)
            urls = [site.url(key, f"/page/{page}") for page in range(1, PAGES + 1) for key in HOSTS]
            items_file = tmp_path / "items.jsonl"
            crawl = start_worker(project, urls, 0, items_file)
            log = Log(crawl)
            log.wait_for(f"paused for {PAUSE:.1f} s", len(HOSTS), timeout=120)
            log.wait_for("s before the next request to", 1, timeout=30)  # a request waits out its host's pause
            assert crawl.poll() is None, "the crawl ended on its own"
            crawl.send_signal(signal.SIGINT)
            interrupted = time.monotonic()
            try:
                crawl.wait(timeout=60)
            except subprocess.TimeoutExpired:
                crawl.kill()
                crawl.wait()
                raise AssertionError(
                    f"one SIGINT did not stop the crawl within 60 s:\n{log.finish()[-4000:]}"
                ) from None
            exited = time.monotonic()
            text = log.finish()
            store = open_store(parse_state_uri(uri, tmp_path / "unused.sqlite3"), IDENTITY)
            try:
                records = {url: store.get(Namespace.FETCHED, canonical_url(url)) for url in urls}
            finally:
                store.close()
        finally:
            if crawl is not None and crawl.poll() is None:
                crawl.kill()
            if server is not None:
                server.stop()
        seen = site.requests
    (tmp_path / "crawl.log").write_text(text)
    items = [json.loads(line) for line in items_file.read_text().splitlines()] if items_file.exists() else []
    written = [e for f in journal_files(journal) for e in entries(f.read_bytes())]
    print(f"prompt stop ({backend}): exit {exited - interrupted:.3f} s after SIGINT, status {crawl.returncode}")
    return text, seen, exited - interrupted, crawl.returncode, items, records, journal, written


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_one_sigint_stops_a_crawl_whose_hosts_are_paused_and_loses_nothing(tmp_path, backend):
    log, seen, took, status, items, records, journal, written = paused_crawl(tmp_path, backend)
    assert took < EXIT_BOUND, f"{took:.1f} s after one SIGINT:\n{log[-4000:]}"
    assert "Received SIGINT" in log and "Traceback" not in log, log[-4000:]
    assert status == 0, log[-4000:]
    pages = [r for r in seen if r["host_key"] in HOSTS and r["path"] != "/robots.txt"]
    # the server: each host answered page 1, then the 503; nothing after it (the pause held)
    for key in HOSTS:
        got = [(r["path"], r["status"]) for r in pages if r["host_key"] == key]
        assert got == [("/page/1", 200), ("/page/2", 503)], (key, got)
    for host, gaps in gaps_by_host([r for r in seen if r["host_key"] in HOSTS]).items():
        assert min(gaps) >= 1.0 - CLOCK_TOLERANCE, (host, gaps)
    # the store: what was answered is recorded; nothing unsent is (a lease of a crawl gone is not a record)
    for url, record in records.items():
        path = urlsplit(url).path
        if path == "/page/1":
            assert isinstance(record, float), (url, record)
        else:
            assert record is None or is_lease(record), (url, record)
    # the request that waited went back to the scheduler with the others, unsent: no errback, no refusal
    assert [item for item in items if "url" not in item] == [], items
    # the feed: the answered pages' items, flushed
    assert sorted(item["url"] for item in items if "url" in item) == sorted(
        url for url in records if urlsplit(url).path == "/page/1"
    ), items
    # the journal: it verifies, it was closed, and it holds exactly what the server saw, each with its outcome
    report = verify_path(journal, None)
    assert report.ok, report.first_problem()
    assert [e["kind"] for e in written].count("close") == 1, [e["kind"] for e in written][-5:]
    sends = [e for e in written if e["kind"] == "send"]
    outcomes = {e["id"] for e in written if e["kind"] == "outcome"}
    assert Counter((urlsplit(e["url"]).path, e["host"]) for e in sends) == Counter((r["path"], r["host"]) for r in seen)
    assert all(e["id"] in outcomes for e in sends), "a send without its outcome"
    assert stat(log, "walsh/backoff/count") == len(HOSTS)
    assert stat(log, "walsh/stopping/unsent") >= 1, "the waiting request was dropped unsent"
