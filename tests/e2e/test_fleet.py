"""Fleet mode end to end: three real crawler processes sharing one real redis-server,
all with the same 30 targets on three demo hosts, judged by the demo server's clock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter

import pytest

from demo_site import DemoSite
from tests.helpers import CLOCK_TOLERANCE, GATES_SPIDER, add_addon_line, gaps_by_host, new_project, stat
from tests.redis_server import RedisServer

HOSTS = ("open", "gone", "busy")
WORKERS = 3

FLEET_SETTINGS = """
import os as _os
WALSH_STATE_URI = {uri!r}
# which worker sent a request, for the test only (the server records headers)
DEFAULT_REQUEST_HEADERS = {{"Accept": "text/html", "X-Fleet-Worker": _os.environ.get("FLEET_WORKER", "")}}
"""


def targets(site) -> list[str]:
    urls = []
    for key in HOSTS:
        paths = (
            ["/limited", *(f"/page/{i}" for i in range(1, 10))]
            if key == "busy"
            else [f"/page/{i}" for i in range(1, 11)]
        )
        urls += [site.url(key, p) for p in paths]
    return urls


def start_worker(project, urls, worker: int, out) -> subprocess.Popen:
    env = dict(os.environ, FLEET_WORKER=str(worker))
    env.pop("SCRAPY_SETTINGS_MODULE", None)
    return subprocess.Popen(
        [sys.executable, "-m", "scrapy", "crawl", "gates", "-a", "urls=" + ",".join(urls), "-O", str(out)],
        cwd=project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def fleet_project(root, site, uri):
    project = new_project(root)
    add_addon_line(project, FLEET_SETTINGS.format(uri=uri), site=site)
    (project / "plainproj" / "spiders" / "gates.py").write_text(GATES_SPIDER)
    return project


@pytest.fixture(scope="module")
def fleet_crawl(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleet")
    with RedisServer(root / "redis") as redis_server, DemoSite() as site:
        project = fleet_project(root, site, redis_server.url)
        urls = targets(site)
        workers = []
        for k in range(WORKERS):  # each has every target, in a different order
            rotated = urls[10 * k :] + urls[: 10 * k]
            workers.append(start_worker(project, rotated, k, root / f"items-{k}.jsonl"))
        logs = [w.communicate(timeout=240)[1] for w in workers]
        seen = site.requests
    for worker, log in zip(workers, logs):
        assert worker.returncode == 0, log[-3000:]
    items = [json.loads(line) for k in range(WORKERS) for line in (root / f"items-{k}.jsonl").read_text().splitlines()]
    return logs, seen, items


def test_no_same_host_gap_under_one_second_fleet_wide(fleet_crawl):
    logs, seen, _ = fleet_crawl
    gaps = gaps_by_host([r for r in seen if r["host_key"] != "sentinel"])
    print("fleet: requests", len(seen), "min gap per host", {h: round(min(g), 3) for h, g in gaps.items()})
    for host, host_gaps in gaps.items():
        assert min(host_gaps) >= 1.0 - CLOCK_TOLERANCE, (host, sorted(host_gaps)[:3])
    # the three processes really did share the work: each sent requests to the demo hosts
    workers = Counter(r["headers"].get("X-Fleet-Worker") for r in seen if r["path"].startswith("/page/"))
    print("fleet: pages per worker", dict(workers))
    assert set(workers) == {"0", "1", "2"}, workers


def test_each_target_is_fetched_once_fleet_wide(fleet_crawl):
    logs, seen, items = fleet_crawl
    fetched = Counter((r["host_key"], r["path"]) for r in seen if r["host_key"] in HOSTS and r["path"] != "/robots.txt")
    assert len(fetched) == 30, sorted(fetched)
    assert fetched.pop(("busy", "/limited")) == 2  # the 429, then its retry
    assert set(fetched.values()) == {1}, [k for k, n in fetched.items() if n > 1]
    skipped = sum(stat(log, "walsh/denied/frequency/skipped_recently_fetched", 0) for log in logs)
    assert skipped == 2 * 30, skipped  # every process holds all 30; two of three skip each
    emitted = Counter(item["url"] for item in items if "url" in item)
    assert len(emitted) == 30 and set(emitted.values()) == {1}, emitted


def test_a_429_seen_by_one_process_pauses_the_host_for_all(fleet_crawl):
    """R5 fleet-wide, read from the server's clock: after busy's 429 (Retry-After: 3), no
    process sends busy anything for 3 s, whichever process saw the 429 and whichever goes back
    first. The other processes were crawling meanwhile, so the pause held for them too."""
    _, seen, _ = fleet_crawl
    limited = next(r for r in seen if r["host_key"] == "busy" and r["path"] == "/limited" and r["status"] == 429)
    after = [r for r in seen if r["mono"] > limited["mono"]]
    to_busy = [r for r in after if r["host_key"] == "busy"]
    assert to_busy, "nothing was sent to busy after its 429"
    pause = {r["headers"].get("X-Fleet-Worker"): round(r["mono"] - limited["mono"], 3) for r in reversed(to_busy)}
    print(
        "fleet: 429 from worker",
        limited["headers"].get("X-Fleet-Worker"),
        "; first busy request after, per worker:",
        pause,
    )
    assert min(pause.values()) >= 3.0 - CLOCK_TOLERANCE, f"Retry-After: 3 was cut short: {pause}"
    others = {r["headers"].get("X-Fleet-Worker") for r in after} - {limited["headers"].get("X-Fleet-Worker")}
    assert others, "no other process sent anything after the 429: the pause proves nothing fleet-wide"


def test_every_process_reports_its_redis_round_trips(fleet_crawl):
    logs, _, _ = fleet_crawl
    for log in logs:
        print(
            "fleet: round trips",
            stat(log, "walsh/store/round_trips"),
            "responses",
            stat(log, "downloader/response_count"),
        )
        assert stat(log, "walsh/store/round_trips", 0) > 0
        assert stat(log, "walsh/store/unreachable_seconds") == 0
        # the time its calls waited for Redis: some, and a fraction of a second per round trip
        waited = stat(log, "walsh/store/wait_seconds", 0)
        assert 0 < waited < 0.1 * stat(log, "walsh/store/round_trips"), waited


def test_the_fleet_fetches_the_operator_blocklist_once(fleet_crawl):
    """Three processes starting together on an empty store: the first claims the list's fetch,
    the others adopt its copy, as they do with robots.txt. Each fetching for itself would queue
    them behind one another at the list host's 1 s floor: seconds of start-up per process."""
    _, seen, _ = fleet_crawl
    fetched = Counter(r["path"] for r in seen if r["host_key"] == "ops")
    print("fleet: the operator host served", dict(fetched))
    assert fetched["/.well-known/walsh-research/blocklist.json"] == 1, fetched
    assert fetched["/.well-known/walsh-research/blocklist.schema.json"] <= 1, fetched


@pytest.fixture(scope="module")
def outage_crawl(tmp_path_factory):
    """One process; Redis is SIGKILLed after the third page, restarted 3 s later."""
    root = tmp_path_factory.mktemp("outage")
    with DemoSite(hosts=["open", "gone", "ops"]) as site:
        redis_server = RedisServer(root / "redis").start()
        try:
            project = fleet_project(root, site, redis_server.url)
            urls = [site.url(k, f"/page/{i}") for k in ("open", "gone") for i in range(1, 5)]
            worker = start_worker(project, urls, 0, root / "items.jsonl")
            deadline = time.monotonic() + 120
            while len([r for r in site.requests if r["path"].startswith("/page/")]) < 3:
                assert time.monotonic() < deadline and worker.poll() is None, "the crawl did not start"
                time.sleep(0.02)
            killed, restarted = redis_server.outage(3.0)
            log = worker.communicate(timeout=120)[1]
        finally:
            redis_server.stop()
        seen = site.requests
    (root / "crawl.log").write_text(log)
    assert worker.returncode == 0, log[-3000:]
    return log, seen, killed, restarted


def test_nothing_is_sent_while_redis_is_down(outage_crawl):
    log, seen, killed, restarted = outage_crawl
    # a request whose slot was reserved before the kill may still be on its way (< 0.2 s)
    during = [
        (r["host_key"], r["path"], round(r["mono"] - killed, 3)) for r in seen if killed + 0.2 < r["mono"] < restarted
    ]
    print(
        "outage: requests between kill and restart",
        during,
        "down for",
        round(restarted - killed, 3),
        "unreachable_seconds",
        stat(log, "walsh/store/unreachable_seconds"),
    )
    assert during == []
    assert "no request is sent until it answers" in log
    # the crawl meets the outage at its next store call, which can come up to one pacing interval
    # (1 s) after the kill while it waits for a slot: the stat counts from then to the restart
    assert stat(log, "walsh/store/unreachable_seconds") >= (restarted - killed) - 1.0 - 0.2


def test_the_crawl_resumes_and_keeps_its_spacing_after_redis_returns(outage_crawl):
    log, seen, killed, restarted = outage_crawl
    pages = [r for r in seen if r["path"].startswith("/page/")]
    assert len(pages) == 8 and any(r["mono"] > restarted for r in pages), (
        sorted(r["path"] for r in pages),
        log[-6000:],
    )
    for host, gaps in gaps_by_host([r for r in seen if r["host_key"] != "sentinel"]).items():
        assert min(gaps) >= 1.0 - CLOCK_TOLERANCE, (host, gaps)
    assert "reachable again" in log


#: A worker whose wall clock is 30 s slow (``time.time``, what the ledger's times are read against).
SLOW_CLOCK = """
import time as _time

_real, _real_ns = _time.time, _time.time_ns
_time.time = lambda: _real() - 300.0
_time.time_ns = lambda: _real_ns() - 300_000_000_000
"""


def test_a_worker_whose_clock_is_slow_does_not_wait_for_it(tmp_path):
    """The ledger's times are Redis's clock. A worker whose clock was 30 s slow read the stored
    times before its first reservation told it the store's clock, and waited 30.9 s for a host
    free long ago. It learns the store's clock at start now: its first request goes as soon as
    the host is free, and still never under 1 s after another worker's. The clock here is
    300 s slow, so the old wait stands far above a loaded machine's slow start-up."""
    (tmp_path / "clock").mkdir()
    (tmp_path / "clock" / "sitecustomize.py").write_text(SLOW_CLOCK)
    with DemoSite(hosts=["open", "ops"]) as site, RedisServer(tmp_path / "redis") as redis_server:
        project = fleet_project(tmp_path, site, redis_server.url)
        on_time = start_worker(project, [site.url("open", f"/page/{i}") for i in range(1, 4)], 0, tmp_path / "a.jsonl")
        assert on_time.wait(timeout=120) == 0
        env = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path / "clock"), os.environ.get("PYTHONPATH")])),
        )
        env.pop("SCRAPY_SETTINGS_MODULE", None)
        started = time.monotonic()
        slow = subprocess.run(
            [sys.executable, "-m", "scrapy", "crawl", "gates", "-a", "urls=" + site.url("open", "/page/9")],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        seen = site.requests
    assert slow.returncode == 0, slow.stderr[-3000:]
    first = min(r["mono"] for r in seen if r["mono"] > started)
    page = next(r for r in seen if r["path"] == "/page/9")
    print(f"slow clock: first request {first - started:.1f} s after the start")
    assert first - started < 60, "the slow worker waited for its own clock"
    gaps = gaps_by_host([r for r in seen if r["host_key"] == "open"])
    assert min(g for host_gaps in gaps.values() for g in host_gaps) >= 1.0 - CLOCK_TOLERANCE
    assert page["status"] == 200


def test_a_kept_settle_reaches_the_other_workers_before_they_may_start(tmp_path):
    """Each answer's settle (the next interval counts from the answer) is kept and written with the
    next reservation, or before the host lease ends: two workers taking turns on one host whose
    pages answer after 0.5 s still leave a full interval after each answer, whoever sends next."""
    latency = 0.5
    with DemoSite(hosts=["open", "ops"]) as site, RedisServer(tmp_path / "redis") as redis_server:
        project = fleet_project(tmp_path, site, redis_server.url)
        urls = [site.url("open", f"/page/{i}?latency={latency}") for i in range(1, 9)]
        workers = [start_worker(project, urls[k::2], k, tmp_path / f"w{k}.jsonl") for k in range(2)]
        logs = [worker.communicate(timeout=180)[1] for worker in workers]
        pages = sorted(r["mono"] for r in site.requests_for("open") if r["path"].startswith("/page/"))
    for worker, log in zip(workers, logs):
        assert worker.returncode == 0, log[-3000:]
    assert len(pages) == 8
    after_answers = [round(b - (a + latency), 3) for a, b in zip(pages, pages[1:])]
    assert min(after_answers) >= 1.0 - CLOCK_TOLERANCE, after_answers
