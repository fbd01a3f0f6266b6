"""A clock set back: a run whose clock was a day ahead leaves its ledger stamps a day ahead.

The first crawl runs under libfaketime (``faketime -f +1d``, the Debian package), the next ones
on the real clock, against one state store (with Redis, whose clock is the server's, the stamps
a server a day ahead would have written). What the server saw decides: the next run fetches,
no sooner than the real interval after the last request, with no refusal and no "the site asked"
reason; the step is said once, in one WARNING, and the ledger is mended for later runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.helpers import CLOCK_TOLERANCE, GATES_SPIDER, run_scrapy, stat

FAKETIME = shutil.which("faketime")
DAY = 86_400.0

needs_faketime = pytest.mark.skipif(FAKETIME is None, reason="libfaketime's faketime is not installed")


def _crawl(project, urls, *settings: str, clock: str | None = None):
    """The gates spider on ``urls``; ``clock``: a libfaketime offset ("+1d") for the whole process
    (its monotonic clock left alone, as the kernel's would be)."""
    spider = project / "plainproj" / "spiders" / "gates.py"
    if not spider.exists():
        spider.write_text(GATES_SPIDER)
    args = ["crawl", "gates", "-a", "urls=" + ",".join(urls), *(f"-s{s}" for s in settings)]
    if clock is None:
        return run_scrapy(args, cwd=project)
    env = dict(os.environ, FAKETIME_DONT_FAKE_MONOTONIC="1")
    env.pop("SCRAPY_SETTINGS_MODULE", None)
    command = [FAKETIME, "-f", clock, sys.executable, "-m", "scrapy", *args]
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=180)


@needs_faketime
def test_a_run_a_day_ahead_never_holds_or_misnames_the_next_runs(project, demo_site):
    ahead = _crawl(project, [demo_site.url("open", "/page/1")], clock="+1d")
    assert ahead.returncode == 0, ahead.stderr[-3000:]
    assert [r["path"] for r in demo_site.requests if r["host_key"] == "open"][-1] == "/page/1"

    back = _crawl(project, [demo_site.url("open", "/page/2")])
    assert back.returncode == 0, back.stderr[-3000:]
    seen = [r for r in demo_site.requests if r["host_key"] == "open"]
    assert seen[-1]["path"] == "/page/2", back.stderr[-3000:]
    # never faster than the interval at the server: the real R4 floor holds across the step
    gaps = [b["mono"] - a["mono"] for a, b in zip(seen, seen[1:])]
    assert min(gaps) >= 1.0 - CLOCK_TOLERANCE, gaps
    assert "Retry-After" not in back.stderr and "asked us" not in back.stderr, back.stderr[-3000:]
    assert not stat(back.stderr, "walsh/denied/pacing"), back.stderr[-3000:]
    # no hold beyond the real interval: at most one interval for each of the two hosts it had stamped
    assert stat(back.stderr, "walsh/pacing/wait_seconds", 0.0) <= 2 * (1.0 + CLOCK_TOLERANCE)
    steps = [line for line in back.stderr.splitlines() if "clock step" in line]
    # the target's host and the operator list's, each with its address
    assert len(steps) == 1 and "WARNING" in steps[0] and "2 hosts (4 entries" in steps[0], steps
    assert stat(back.stderr, "walsh/pacing/clock_step_hosts") == 4

    # mended in the store: the next run neither waits nor warns
    again = _crawl(project, [demo_site.url("open", "/page/3")])
    assert again.returncode == 0, again.stderr[-3000:]
    assert [r["path"] for r in demo_site.requests if r["host_key"] == "open"][-1] == "/page/3"
    assert "clock step" not in again.stderr


@needs_faketime
def test_a_pause_stamped_ahead_keeps_the_length_the_site_asked_for(project, demo_site):
    """The step is taken out of a pause, never the pause itself: the site's Retry-After still
    holds in full, counted from the next run's start (fail closed: the real time it was asked is
    earlier)."""
    demo_site.override("open", "/page/1", 429, "slow down", headers=[("Retry-After", "6")])
    ahead = _crawl(project, [demo_site.url("open", "/page/1")], "WALSH_BACKOFF_MAX_RETRIES=0", clock="+1d")
    assert ahead.returncode == 0, ahead.stderr[-3000:]
    back = _crawl(project, [demo_site.url("open", "/page/2")])
    assert back.returncode == 0, back.stderr[-3000:]
    seen = [r for r in demo_site.requests if r["host_key"] == "open"]
    assert [r["path"] for r in seen][-2:] == ["/page/1", "/page/2"], [r["path"] for r in seen]
    assert seen[-1]["mono"] - seen[-2]["mono"] >= 6.0 - CLOCK_TOLERANCE
    assert "asked us" not in back.stderr and not stat(back.stderr, "walsh/denied/pacing"), back.stderr[-3000:]
    assert stat(back.stderr, "walsh/pacing/clock_step_hosts")


def test_a_fleet_store_whose_clock_was_a_day_ahead(project, demo_site, tmp_path):
    """Redis stamps with its own clock (``TIME``), so the stamps of a server a day ahead are a day
    ahead whatever the crawlers' clocks; the Lua twin of the same rule mends them. redis-server
    can't run under libfaketime here (jemalloc's clock_gettime recursion at start), so after a
    real crawl the persisted stamps are moved a day ahead, as such a server would have written them."""
    import json

    import redis

    from tests.redis_server import RedisServer

    with RedisServer(tmp_path / "redis") as server:
        settings = project / "plainproj" / "settings.py"
        settings.write_text(settings.read_text() + f"\nWALSH_STATE_URI = {server.url!r}\n")
        first = _crawl(project, [demo_site.url("open", "/page/1")])
        assert first.returncode == 0, first.stderr[-3000:]
        client = redis.Redis.from_url(server.url, decode_responses=True)
        moved = 0
        for key in client.scan_iter(match="*pacing:*"):
            entry = json.loads(client.get(key))
            for field in ("last_start", "any_start", "not_before", "paused_at"):
                if isinstance(entry.get(field), (int, float)) and entry[field]:
                    entry[field] += DAY
            for lease in (entry.get("sending") or {}).values():
                lease["until"] += DAY
            client.set(key, json.dumps(entry), keepttl=True)
            client.pexpire(key, int(DAY * 1000) + 60_000)
            moved += 1
        assert moved >= 2, "the target's host and the list's host, at least"
        back = _crawl(project, [demo_site.url("open", "/page/2")])
        assert back.returncode == 0, back.stderr[-3000:]
    seen = [r for r in demo_site.requests if r["host_key"] == "open"]
    assert [r["path"] for r in seen][-2:] == ["/page/1", "/page/2"], back.stderr[-3000:]
    gaps = [b["mono"] - a["mono"] for a, b in zip(seen, seen[1:])]
    assert min(gaps) >= 1.0 - CLOCK_TOLERANCE, gaps
    assert "Retry-After" not in back.stderr and "asked us" not in back.stderr, back.stderr[-3000:]
    assert [line for line in back.stderr.splitlines() if "clock step" in line and "WARNING" in line]
    assert stat(back.stderr, "walsh/pacing/clock_step_hosts") == moved
