"""R8 records every answer the server gave: one refused as too large, and one that came back
while a fleet's Redis was away.

Real crawls against loopback servers that count what they were sent (tests/e2e/hostile_server.py)
and a real ``redis-server`` paused with SIGSTOP or killed (tests/redis_server.py).
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from tests.e2e.hostile_server import MIB, HostileServer, header_flood, plain
from tests.helpers import GATES_SPIDER, crawl_targets, run_scrapy, stat
from tests.redis_server import RedisServer

BOUND = MIB


def _gzipped(size: int):
    body = gzip.compress(b"<html><title>" + b" " * size, 9)

    def answer(handler):
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Encoding", "gzip")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return answer


@pytest.fixture
def large_pages(project):
    routes = {
        "/robots.txt": plain(b"User-agent: *\nAllow: /\n", "text/plain"),
        "/big": plain(b"<html><title>" + b" " * (2 * BOUND)),  # its Content-Length is over: refused at once
        "/bomb": _gzipped(3 * BOUND),  # small on the wire, over the bound once decoded
        "/headers": header_flood(5_000),  # its header block is over its bound
        "/page": plain(b"<html><title>fine</title></html>"),
    }
    server = HostileServer("127.0.0.231", routes)
    settings = project / "plainproj" / "settings.py"
    settings.write_text(
        settings.read_text() + f"\nWALSH_ALLOW_PRIVATE_ADDRESSES = True\nWALSH_MAX_BODY_BYTES = {BOUND}\n"
    )
    yield server
    server.close()


def test_a_page_refused_as_too_large_is_fetched_once_over_two_runs(project, large_pages):
    urls = [large_pages.url(p) for p in ("/big", "/bomb", "/headers", "/page")]
    first, items = crawl_targets(project, urls)
    assert first.returncode == 0, first.stderr[-3000:]
    assert [items[u]["verdict"] for u in urls[:3]] == ["response_too_large"] * 3, items
    assert stat(first.stderr, "walsh/frequency/refused") == 3
    assert "the targets count as fetched (R8)" in first.stderr

    shown = run_scrapy(["walsh", "state", "show"], cwd=project)
    for url in urls[:2]:
        assert f"too large    {url}: refused over its bound of {BOUND} bytes" in shown.stdout, shown.stdout
    one = run_scrapy(["walsh", "state", "show", urls[0]], cwd=project)
    assert "refused    too large" in one.stdout and "skipped now: R8" in one.stdout, one.stdout

    second, items = crawl_targets(project, urls)
    assert second.returncode == 0, second.stderr[-3000:]
    assert {items[u]["verdict"] for u in urls} == {"skipped_recently_fetched"}, items
    sent = Counter(r["path"] for r in large_pages.log)
    assert sent["/big"] == 1 and sent["/bomb"] == 1 and sent["/headers"] == 1 and sent["/page"] == 1, sent


def _slow(seconds: float):
    def answer(handler):
        time.sleep(seconds)
        plain(b"<html><title>slow</title></html>")(handler)

    return answer


@pytest.fixture
def slow_site(project, tmp_path):
    """A page answered 3 s after it is asked, and a project whose store is a real Redis."""
    routes = {"/robots.txt": plain(b"User-agent: *\nAllow: /\n", "text/plain"), "/slow": _slow(3.0)}
    server = HostileServer("127.0.0.232", routes)
    redis_server = RedisServer(tmp_path / "redis").start()
    settings = project / "plainproj" / "settings.py"
    settings.write_text(
        settings.read_text() + f"\nWALSH_ALLOW_PRIVATE_ADDRESSES = True\nWALSH_STATE_URI = {redis_server.url!r}\n"
    )
    (project / "plainproj" / "spiders" / "gates.py").write_text(GATES_SPIDER)
    yield server, redis_server
    if redis_server.process is not None:
        os.kill(redis_server.process.pid, signal.SIGCONT)
    redis_server.stop()
    server.close()


def _start(project, urls, out):
    env = {k: v for k, v in os.environ.items() if k != "SCRAPY_SETTINGS_MODULE"}
    command = [sys.executable, "-m", "scrapy", "crawl", "gates", "-a", "urls=" + ",".join(urls), "-O", str(out)]
    return subprocess.Popen(command, cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _asked(server, path, crawl, timeout=120):
    deadline = time.monotonic() + timeout
    while path not in [r["path"] for r in server.log]:
        assert time.monotonic() < deadline and crawl.poll() is None, "the crawl did not get there"
        time.sleep(0.02)


def _feed(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.parametrize("outage", ["paused", "killed"])
def test_an_answer_while_redis_is_away_is_recorded_when_it_returns(project, slow_site, tmp_path, outage):
    """The page answers 3 s into an outage of Redis: paused (SIGSTOP) for 20 s, so each call
    waits out its socket timeout (5 s) and fails, or killed and started again 8 s later. Before,
    the answer was thrown away with a traceback (StoreUnavailable in the frequency middleware)."""
    server, redis_server = slow_site
    url = server.url("/slow")
    crawl = _start(project, [url], tmp_path / "first.jsonl")
    _asked(server, "/slow", crawl)
    began = time.monotonic()
    if outage == "paused":
        os.kill(redis_server.process.pid, signal.SIGSTOP)
        time.sleep(20.0)
        os.kill(redis_server.process.pid, signal.SIGCONT)
    else:
        redis_server.kill()
        time.sleep(8.0)
        redis_server.start()
    ended = time.monotonic()
    log = crawl.communicate(timeout=180)[1]
    answered = next(r["end"] for r in server.log if r["path"] == "/slow")
    assert began < answered < ended, "the answer came during the outage"
    assert crawl.returncode == 0, log[-3000:]
    assert "Traceback" not in log, log[-6000:]
    assert stat(log, "walsh/store/unreachable_seconds") > 2.0, "the store was away when the answer came"
    assert [item["url"] for item in _feed(tmp_path / "first.jsonl")] == [url]
    shown = run_scrapy(["walsh", "state", "show", url], cwd=project)
    assert "fetched" in shown.stdout and "skipped now: R8" in shown.stdout, shown.stdout + shown.stderr

    second = _start(project, [url], tmp_path / "second.jsonl")
    log = second.communicate(timeout=180)[1]
    assert second.returncode == 0, log[-3000:]
    assert [r["path"] for r in server.log].count("/slow") == 1, "recorded: not fetched again"


def test_an_answer_the_store_never_took_is_delivered_and_said_once(project, slow_site, tmp_path):
    """Redis is killed while the page is being answered and is still down when the crawl is
    stopped (Ctrl-C): the item is delivered anyway, the run says in one message that its answer
    was not recorded and exits 1, and the next run (Redis back) fetches the page again."""
    server, redis_server = slow_site
    url = server.url("/slow")
    crawl = _start(project, [url], tmp_path / "first.jsonl")
    _asked(server, "/slow", crawl)
    redis_server.kill()
    while not any(r["path"] == "/slow" and "end" in r for r in server.log):
        time.sleep(0.05)
    time.sleep(3.0)  # the answer came back; the crawl waits for the store
    crawl.send_signal(signal.SIGINT)
    log = crawl.communicate(timeout=60)[1]
    assert crawl.returncode == 1, log[-3000:]
    assert "Traceback" not in log, log[-6000:]
    said = [line for line in log.splitlines() if "the state store could not be written before the crawl ended" in line]
    assert len(said) == 1 and url in said[0], said or log[-3000:]
    print(said[0])
    assert [item["url"] for item in _feed(tmp_path / "first.jsonl")] == [url], "delivered, never lost"

    redis_server.start()
    second = _start(project, [url], tmp_path / "second.jsonl")
    log = second.communicate(timeout=180)[1]
    assert second.returncode == 0, log[-3000:]
    assert [r["path"] for r in server.log].count("/slow") == 2, "left unmarked: fetched again"
