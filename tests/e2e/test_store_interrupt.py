"""Ctrl-C and SIGTERM while the fleet's Redis is away: a real ``scrapy crawl`` process, a real
redis-server stopped mid-crawl (it is gone) or paused with SIGSTOP (it keeps its connections and
never answers: a hang, a partition that drops packets), then a stop signal. The crawl stops
within a bounded time, the demo server saw nothing sent while no reservation could be taken, and
nothing is recorded that did not happen."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest

from demo_site import DemoSite
from tests.e2e.test_fleet import start_worker
from tests.helpers import GATES_SPIDER, add_addon_line, new_project, wait_for_pages
from tests.redis_server import RedisServer

#: Seconds from the signal to exit: Scrapy's graceful stop takes one or two when the reactor is
#: free; a reactor stuck in a store call that waits for Redis never gets there (a paused Redis
#: held it 27 s after SIGINT, and forever when it never answered again).
EXIT_BOUND = 6.0


def interrupted_crawl(tmp_path, outage: str, signum: int):
    """Crawl 20 pages on two hosts; after the third, Redis goes away (``outage``), and 3 s later
    the crawl gets ``signum``. Returns the log, what the server saw, the seconds to exit after
    the signal, the exit status, and the R8 records the store holds once Redis is back."""
    with DemoSite(hosts=["open", "gone", "ops"]) as site:
        server = RedisServer(tmp_path / "redis").start()
        try:
            project = new_project(tmp_path)
            add_addon_line(project, f"WALSH_STATE_URI = {server.url!r}\n", site=site)
            (project / "plainproj" / "spiders" / "gates.py").write_text(GATES_SPIDER)
            urls = [site.url(k, f"/page/{i}") for k in ("open", "gone") for i in range(1, 11)]
            crawl = start_worker(project, urls, 0, tmp_path / "items.jsonl")
            wait_for_pages(site, 3, crawl)
            if outage == "paused":
                server.pause()  # Redis hangs mid-crawl, and stays hung until the crawl is gone
            else:
                server.stop()  # Redis goes away mid-crawl, and stays away
            away = time.monotonic()
            time.sleep(3.0)  # long enough for the crawl to be waiting on the store
            assert crawl.poll() is None, "the crawl ended on its own while Redis was away"
            crawl.send_signal(signum)
            interrupted = time.monotonic()
            try:
                log = crawl.communicate(timeout=60)[1]
            except subprocess.TimeoutExpired:
                crawl.kill()
                log = crawl.communicate()[1]
                raise AssertionError(f"signal {signum} did not stop the crawl within 60 s:\n{log[-3000:]}") from None
            exited = time.monotonic()
            records = {}
            if outage == "paused":
                import redis

                server.resume()
                client = redis.Redis.from_url(server.url, decode_responses=True)
                records = {key: client.get(key) for key in client.scan_iter("walsh:walsh-research:fetched:*")}
        finally:
            server.stop()
            if crawl.poll() is None:
                crawl.kill()
        seen = site.requests
    (tmp_path / "crawl.log").write_text(log)
    print(f"interrupt ({outage}, signal {signum}): exit {exited - interrupted:.3f} s later, status {crawl.returncode}")
    # a request whose slot was reserved before the outage may still be on its way (< 0.2 s)
    unreserved = [(r["host_key"], r["path"], round(r["mono"] - away, 3)) for r in seen if r["mono"] > away + 0.2]
    assert unreserved == [], "requests sent while no reservation could be taken"
    return log, seen, exited - interrupted, crawl.returncode, records


def test_ctrl_c_stops_a_crawl_whose_redis_is_down_and_nothing_leaves_unreserved(tmp_path):
    log, _, took, status, _ = interrupted_crawl(tmp_path, "stopped", signal.SIGINT)
    assert took < EXIT_BOUND, log[-3000:]
    assert "Received SIGINT" in log
    assert "no request is sent until it answers" in log
    assert "Traceback" not in log, log[-3000:]
    # an answer that came back after Redis went away can't be recorded: said once, and exit 1
    unrecorded = log.count("the state store could not be written before the crawl ended")
    assert unrecorded <= 1 and status == unrecorded, log[-3000:]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stop_signal_stops_a_crawl_whose_redis_hangs_and_marks_nothing(tmp_path, signum):
    """Redis paused (SIGSTOP) and never answering while the crawl runs: the signal is obeyed within
    a few seconds, and once Redis answers again it holds no R8 record of a target the server never
    answered (a lease is not a record)."""
    log, seen, took, _, records = interrupted_crawl(tmp_path, "paused", signum)
    assert took < EXIT_BOUND, f"{took:.1f} s:\n{log[-3000:]}"
    assert f"Received {signal.Signals(signum).name}" in log
    assert "Traceback" not in log, log[-3000:]
    answered = {r["path"] for r in seen if r["status"] and r["status"] < 500}
    for key, value in records.items():
        if value.startswith("{"):
            continue  # a lease of the crawl gone: the next crawl takes it over
        assert "/" + key.split("/", 3)[-1] in answered, f"{key} recorded as fetched, never answered"
