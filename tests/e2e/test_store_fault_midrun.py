"""A state store that fails mid-run stops the crawl with one message, a non-zero
exit, and a summary that counts what was not sent.

The fault is real: while the crawl runs, another process holds sqlite's write lock on the
store (``BEGIN EXCLUSIVE``), so every write of the crawl fails once sqlite's busy timeout ends,
as on a full disk.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time

from scrapy_walsh.store.sqlite import SqliteStore
from tests.helpers import REPO, summary_value

SPIDER = """
import scrapy


class ManySpider(scrapy.Spider):
    name = "many"

    async def start(self):
        for index, url in enumerate(self.urls.split(",")):
            yield scrapy.Request(url, dont_filter=True, priority=-index)

    def parse(self, response):
        yield {"url": response.url}
"""


def test_a_store_that_fails_mid_run_stops_the_crawl_in_one_message(project, demo_site):
    settings = project / "plainproj" / "settings.py"
    settings.write_text(settings.read_text() + '\nWALSH_STATE_URI = "sqlite:///state.sqlite3"\n')
    (project / "plainproj" / "spiders" / "many.py").write_text(SPIDER)
    urls = ",".join(demo_site.url("open", f"/page/{n}") for n in range(1, 9))
    crawl = subprocess.Popen(
        [sys.executable, "-m", "scrapy", "crawl", "many", "-a", f"urls={urls}"],
        cwd=project,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    deadline = time.monotonic() + 60
    while not demo_site.requests_for("open", path="/page/2") and time.monotonic() < deadline:
        time.sleep(0.05)
    lock = sqlite3.connect(project / "state.sqlite3", isolation_level=None, timeout=30)
    lock.execute("BEGIN EXCLUSIVE")  # the crawl's next write fails after its busy timeout
    try:
        _, stderr = crawl.communicate(timeout=120)
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    assert crawl.returncode == 1, stderr[-3000:]
    assert "Traceback" not in stderr and "Unhandled error" not in stderr, stderr[-5000:]
    assert stderr.count("scrapy_walsh stops this crawl") == 1, stderr[-3000:]
    pages = [r["path"] for r in demo_site.requests_for("open", prefix="/page/")]
    assert len(pages) < 8 and len(pages) == len(set(pages)), pages
    assert int(summary_value(stderr, "store failed").split()[0]) >= 1, stderr[-3000:]


def test_a_store_that_fails_while_the_crawl_is_being_built_refuses_the_start_in_one_message(project, demo_site):
    """The first write (the crawl's registration, from a component's ``from_crawler``) comes
    before Scrapy has set ``crawler.engine``, which then raises ``RuntimeError`` when read: the
    store's failure must still be one clean refusal, not that traceback. The fault is real: a
    trigger in the sqlite file refuses the write, as a full disk would."""
    settings = project / "plainproj" / "settings.py"
    settings.write_text(settings.read_text() + '\nWALSH_STATE_URI = "sqlite:///state.sqlite3"\n')
    (project / "plainproj" / "spiders" / "many.py").write_text(SPIDER)
    SqliteStore(project / "state.sqlite3", "WalshBot").close()  # the store's own file and schema
    with sqlite3.connect(project / "state.sqlite3") as db:
        db.execute(
            "CREATE TRIGGER full_disk BEFORE INSERT ON walsh_state WHEN NEW.namespace = 'crawls' "
            "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
        )
    crawl = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "many", "-a", f"urls={demo_site.url('open', '/page/1')}"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    stderr = crawl.stderr
    assert crawl.returncode == 1, stderr[-3000:]
    assert "Traceback" not in stderr and "RuntimeError" not in stderr, stderr[-5000:]
    assert stderr.count("database or disk is full") == 1, stderr[-3000:]
    assert not demo_site.requests_for("open", prefix="/page/"), "nothing is sent"
