"""A store that knows it is the same store: a Redis that lost its data is never crawled with.

Real crawls against a real redis-server and the demo site, whose operator blocklist lists the
host ``blocked``. A first crawl adopts the list; Redis then loses its data (FLUSHALL, or a
restart of a server without persistence) while the list's URL answers 500. Before, the next crawl
started with an empty list and contacted the listed host. Now it is refused at start, as a lost
sqlite file is; once the machine forgets the lost store (``scrapy walsh state reset --yes``) the
crawl starts afresh on it and keeps the opt-outs from this machine's copy of the last adopted
list. A FLUSHALL while crawls run stops them: no gap under 1 s, no page fetched twice."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from demo_site import DemoSite
from tests.e2e.test_fleet import fleet_project, start_worker
from tests.helpers import (
    CLOCK_TOLERANCE,
    GATES_SPIDER,
    add_addon_line,
    crawl_targets,
    gaps_by_host,
    new_project,
    run_scrapy,
    stat,
    wait_for_pages,
)
from tests.redis_server import RedisServer


def project_on(tmp_path, site, server):
    project = new_project(tmp_path)
    add_addon_line(project, f"WALSH_STATE_URI = {server.url!r}\n", site=site)
    return project


def targets(site):
    return [site.url("open", "/page/1"), site.url("blocked", "/page/1"), site.url("open", "/page/2")]


@pytest.mark.parametrize("loss", ["FLUSHALL", "restart without persistence"])
def test_a_redis_that_lost_its_data_is_refused_and_the_listed_host_never_contacted(tmp_path, loss):
    import redis

    with DemoSite(hosts=["open", "blocked", "ops"]) as site:
        server = RedisServer(tmp_path / "redis", persist=loss == "FLUSHALL").start()
        try:
            project = project_on(tmp_path, site, server)
            first, items = crawl_targets(project, targets(site))
            assert first.returncode == 0, first.stderr[-3000:]
            assert items[site.url("blocked", "/page/1")]["verdict"] == "blocked_by_operator"
            if loss == "FLUSHALL":
                redis.Redis.from_url(server.url).flushall()
            else:
                server.stop()
                server.start()  # no append-only file, nothing saved: it comes back empty
            site.set_blocklist(status=500)
            site.reset()
            refused, _ = crawl_targets(project, targets(site))
            sent_while_refused = site.requests
            reset = run_scrapy(["walsh", "state", "reset", "--yes"], cwd=project)
            again, items = crawl_targets(project, targets(site))
        finally:
            server.stop()
        seen = site.requests
    print(f"{loss}: refused with {refused.returncode}; reset: {reset.stdout.strip()}")
    assert refused.returncode == 1, refused.stderr[-3000:]
    assert "has lost it" in refused.stderr and "scrapy walsh state reset" in refused.stderr
    assert "Traceback" not in refused.stderr, refused.stderr[-3000:]
    assert sent_while_refused == [], "a refused crawl sent something"
    assert reset.returncode == 0 and "forgot" in reset.stdout, reset.stderr
    assert again.returncode == 0, again.stderr[-3000:]
    assert "this machine's copy" in again.stderr
    assert items[site.url("blocked", "/page/1")]["verdict"] == "blocked_by_operator"
    assert not [r for r in seen if r["host_key"] == "blocked"], "the listed host was contacted"
    assert {r["path"] for r in seen if r["host_key"] == "open"} >= {"/page/1", "/page/2"}


def test_a_flushall_while_workers_crawl_stops_them(tmp_path):
    """Two workers share 16 pages of one host; Redis is flushed after the fourth. The ledger and
    the fetch records went with it: each worker stops at its next store operation (exit 1, one
    ERROR), so nothing is sent on an empty ledger: no gap under 1 s, no page fetched twice."""
    import redis

    with DemoSite(hosts=["open", "ops"]) as site, RedisServer(tmp_path / "redis") as server:
        project = fleet_project(tmp_path, site, server.url)
        urls = [site.url("open", f"/page/{i}") for i in range(1, 17)]
        workers = [start_worker(project, urls[k:] + urls[:k], k, tmp_path / f"items-{k}.jsonl") for k in range(2)]
        deadline = time.monotonic() + 120
        while len(site.requests_for("open", prefix="/page/")) < 4:
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.02)
        redis.Redis.from_url(server.url).flushall()
        flushed = time.monotonic()
        logs = [worker.communicate(timeout=240)[1] for worker in workers]
        seen = site.requests
    for k, log in enumerate(logs):
        (tmp_path / f"crawl-{k}.log").write_text(log)
    to_host = [r for r in seen if r["host_key"] == "open"]
    after = [r["path"] for r in to_host if r["mono"] > flushed + 0.2]
    gaps = sorted(gap for host_gaps in gaps_by_host(to_host).values() for gap in host_gaps)
    pages = Counter(r["path"] for r in to_host if r["path"].startswith("/page/"))
    print("flushall mid-run: exits", [w.returncode for w in workers], "sent after", after, "gaps", gaps[:3])
    for worker, log in zip(workers, logs):
        assert worker.returncode == 1, log[-3000:]
        assert "lost its data while the crawl ran" in log, log[-3000:]
        assert "Traceback" not in log, log[-3000:]
        assert stat(log, "walsh/store/failures", 0) >= 1
    assert after == [], "sent on an empty ledger"
    assert gaps[0] >= 1.0 - CLOCK_TOLERANCE, gaps[:3]
    assert set(pages.values()) == {1}, pages


def test_a_sqlite_store_removed_while_the_crawl_runs_stops_it(tmp_path):
    """The sqlite store's file removed mid-run (its id file too: nothing says it was initialised):
    the crawl kept writing its ledger to the removed file while the next crawl would start a new
    one. The heartbeat sees the path no longer names the file it opened: the crawl stops."""
    from scrapy_walsh.store.sqlite import store_files

    with DemoSite(hosts=["open", "ops"]) as site:
        path = tmp_path / "state" / "walsh.sqlite3"
        project = new_project(tmp_path)
        add_addon_line(project, f"WALSH_STATE_URI = 'sqlite:///{path}'\n", site=site)
        (project / "plainproj" / "spiders" / "gates.py").write_text(GATES_SPIDER)
        crawl = start_worker(project, [site.url("open", f"/page/{i}") for i in range(1, 21)], 0, tmp_path / "a.jsonl")
        wait_for_pages(site, 2, crawl)
        for found in store_files(path):
            found.unlink(missing_ok=True)
        removed = time.monotonic()
        log = crawl.communicate(timeout=120)[1]
        seen = site.requests
    after = [r["path"] for r in seen if r["mono"] > removed + 6]  # a heartbeat is 5 s apart
    print("sqlite removed mid-run: exit", crawl.returncode, "sent after", after)
    assert crawl.returncode == 1, log[-3000:]
    assert "was removed or replaced while the crawl ran" in log
    assert "Traceback" not in log, log[-3000:]
    assert after == []
