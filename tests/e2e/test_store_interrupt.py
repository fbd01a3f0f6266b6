"""Ctrl-C while the fleet's Redis is down: a real ``scrapy crawl`` process, a real
redis-server stopped mid-crawl, then SIGINT. The crawl stops within a bounded time and
the demo server saw nothing sent while no reservation could be taken."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from scrapy_walsh.demo import DemoSite

from ..helpers import GATES_SPIDER, add_addon_line, new_project
from ..redis_server import RedisServer

#: Seconds from SIGINT to exit. Scrapy's graceful stop takes well under this when the
#: reactor is free; a reactor stuck in a retry loop never gets there.
EXIT_BOUND = 20.0


def test_ctrl_c_stops_a_crawl_whose_redis_is_down_and_nothing_leaves_unreserved(tmp_path):
    with DemoSite(hosts=["open", "gone", "ops"]) as site:
        server = RedisServer(tmp_path / "redis").start()
        try:
            project = new_project(tmp_path)
            add_addon_line(project, f"WALSH_STATE_URI = {server.url!r}\n", site=site)
            (project / "plainproj" / "spiders" / "gates.py").write_text(GATES_SPIDER)
            urls = [site.url(k, f"/page/{i}") for k in ("open", "gone") for i in range(1, 11)]
            env = dict(os.environ)
            env.pop("SCRAPY_SETTINGS_MODULE", None)
            crawl = subprocess.Popen(
                [sys.executable, "-m", "scrapy", "crawl", "gates", "-a", "urls=" + ",".join(urls)],
                cwd=project,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            deadline = time.monotonic() + 120
            while len([r for r in site.requests if r["path"].startswith("/page/")]) < 3:
                assert time.monotonic() < deadline and crawl.poll() is None, "the crawl did not start"
                time.sleep(0.02)
            server.stop()  # Redis goes away mid-crawl, and stays away
            stopped = time.monotonic()
            time.sleep(3.0)  # long enough for the crawl to be waiting on the store
            assert crawl.poll() is None, "the crawl ended on its own while Redis was down"
            crawl.send_signal(signal.SIGINT)
            interrupted = time.monotonic()
            try:
                log = crawl.communicate(timeout=EXIT_BOUND)[1]
            except subprocess.TimeoutExpired:
                crawl.kill()
                log = crawl.communicate()[1]
                raise AssertionError(f"SIGINT did not stop the crawl within {EXIT_BOUND} s:\n{log[-3000:]}") from None
            exited = time.monotonic()
        finally:
            server.stop()
            if crawl.poll() is None:
                crawl.kill()
        seen = site.requests
    (tmp_path / "crawl.log").write_text(log)
    print("interrupt: exit", round(exited - interrupted, 3), "s after SIGINT, return code", crawl.returncode)
    # a request whose slot was reserved before the stop may still be on its way (< 0.2 s)
    unreserved = [(r["host_key"], r["path"], round(r["mono"] - stopped, 3)) for r in seen if r["mono"] > stopped + 0.2]
    assert unreserved == [], "requests sent while no reservation could be taken"
    assert "Received SIGINT" in log
    assert "no request is sent until it answers" in log
    assert "Traceback" not in log, log[-3000:]
    # an answer that came back after Redis went away can't be recorded: said once, and exit 1
    unrecorded = log.count("the state store could not be written before the crawl ended")
    assert unrecorded <= 1 and crawl.returncode == unrecorded, log[-3000:]
