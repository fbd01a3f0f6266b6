"""R4 as the server sees it: a worker whose request leaves late after its reservation.

Three real crawler processes share one ledger (a real redis-server, or the default shared
sqlite file) and all hold the same 20 targets on one demo host. Two reach the host directly;
the third reaches it through a door whose connections take 3 s: the kernel drops the SYNs
until the door lets a retransmission in (tests/slow_connect.py). It starts once the other two
are crawling, so its first connect to the host is slow while they keep asking for the host's
slot. Judged by the demo server's clock: every two requests to the host at least 1 s apart,
whoever sent them. test_fleet_slow_store.py uses the same fleet with the third worker's link to
Redis slow (``slow_link``)."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from demo_site import DemoSite
from demo_site.hosts import HOSTS
from tests.e2e.test_fleet import fleet_project, start_worker
from tests.helpers import CLOCK_TOLERANCE, gaps_by_host, stat
from tests.redis_server import RedisProxy, RedisServer
from tests.slow_connect import SlowConnect, SlowHandshake

DOOR_IP = "127.0.0.250"
HOST = "open"

DOOR_RESOLVER = f"""
from twisted.internet import defer
from demo_site.resolver import DemoResolver


class DoorResolver(DemoResolver):
    \"\"\"The demo names, but {HOST}'s through the slow door.\"\"\"

    def getHostByName(self, name, timeout=()):
        if name.lower().rstrip(".") == "{HOSTS[HOST].name}":
            return defer.succeed("{DOOR_IP}")
        return super().getHostByName(name, timeout)
"""

SLOW_WORKER = f"""
if _os.environ.get("FLEET_WORKER") == "slow":
    TWISTED_DNS_RESOLVER = DNS_RESOLVER = "plainproj.door.DoorResolver"
    WALSH_ALLOW_PRIVATE_ADDRESSES = WALSH_ALLOW_PRIVATE_ADDRESSES + ["{DOOR_IP}/32"]
"""

#: The third worker's way to Redis, when its link is slow (``RedisProxy``).
SLOW_LINK = """
if _os.environ.get("FLEET_WORKER") == "slow":
    WALSH_STATE_URI = {uri!r}
"""


def fleet_with_a_slow_worker(
    tmp_path, store, door, slow_scheme="http", slow_link=0.0, slow_paths=None, pages=20, keep_asking=False
):
    """Two workers crawl ``pages`` pages of the host directly; a third, whose connections to the host go
    through ``door(site)``, starts with them (https: its own origin, so its first request is a
    slow one) or once they have begun (http: its first connection to the host is then for a page,
    not for the robots.txt the others wait for). ``slow_link``: the third worker's link to Redis
    hands every answer over that many seconds late from near the end of its first connect to the
    host (:func:`slow_down`). ``slow_paths``: the third worker's own targets, else the same pages
    as theirs. ``keep_asking``: the two are still asking for the host whenever the third sends,
    however late a loaded machine starts it: they get more pages than they can fetch meanwhile, and
    one SIGINT each once one of them has sent after the third's first request.
    Returns what the server saw of the host, the door and the workers' logs."""
    with (
        DemoSite(hosts=[HOST, "ops"]) as site,
        RedisServer(tmp_path / "redis") as redis_server,
        RedisProxy(redis_server.port) as link,
    ):
        # sqlite: WALSH_STATE_URI unset, the identity's one file on this machine (XDG_STATE_HOME)
        project = fleet_project(tmp_path, site, redis_server.url if store == "redis" else None)
        settings = project / "plainproj" / "settings.py"
        settings.write_text(settings.read_text() + SLOW_WORKER + (SLOW_LINK.format(uri=link.url) if slow_link else ""))
        (project / "plainproj" / "door.py").write_text(DOOR_RESOLVER)
        urls = [site.url(HOST, f"/page/{i}") for i in range(1, pages + 1)]
        slow_urls = [site.url(HOST, path) for path in slow_paths] if slow_paths else urls
        slow_urls = [url.replace("http://", f"{slow_scheme}://") for url in slow_urls]
        with door(site) as opened:
            if slow_link:
                threading.Thread(target=slow_down, args=(opened, link, slow_link), daemon=True).start()
            workers = [start_worker(project, urls, k, tmp_path / f"items-{k}.jsonl") for k in range(2)]
            deadline = time.monotonic() + 120
            while slow_scheme == "http" and len(site.requests_for(HOST, prefix="/page/")) < 1:
                assert time.monotonic() < deadline, "the two direct workers did not start"
                time.sleep(0.02)
            workers.append(start_worker(project, slow_urls, "slow", tmp_path / "items-slow.jsonl"))
            # each log read as it comes: a worker whose stderr pipe fills stops at its next log line
            with ThreadPoolExecutor(len(workers)) as pool:
                reading = [pool.submit(lambda w=worker: w.communicate(timeout=240)[1]) for worker in workers]
                if keep_asking:
                    stop_when_one_sent_after(site, workers[:2])
                logs = [read.result() for read in reading]
            seen = site.requests
    for worker, log in zip(workers, logs):
        assert worker.returncode == 0, log[-3000:]
    return [r for r in seen if r["host_key"] == HOST], opened, logs


def stop_when_one_sent_after(site, others) -> None:
    """Once a request from ``others`` reached the host after the slow worker's first one: one
    SIGINT to each of ``others`` (a graceful stop). The slow worker may wait for the host until
    they stop: at each slot the first to ask takes it, and its answers come late."""
    deadline = time.monotonic() + 180
    while True:
        senders = [r["headers"].get("X-Fleet-Worker") for r in sorted(site.requests_for(HOST), key=lambda r: r["mono"])]
        if "slow" in senders and len(senders) > senders.index("slow") + 1:
            break
        assert time.monotonic() < deadline, f"no other worker sent after the slow worker's first request: {senders}"
        assert all(w.poll() is None for w in others), f"a worker ended before the slow worker sent: {senders}"
        time.sleep(0.05)
    for worker in others:
        worker.send_signal(signal.SIGINT)


#: Seconds after the first SYN of the slow worker's connect that its link to Redis turns slow: after
#: the host lease's renewal (half a slot), before the connect is made (1 s with ``wait`` 0.5), so
#: the store's answer to the stamp made as the request is written comes late, and the renewal's did
#: not (a renewal 0.3 s late, behind the process's other store calls, lets the lease lapse).
SLOW_FROM = 0.8


def slow_down(door: SlowConnect, link: RedisProxy, delay: float) -> None:
    if door.knocked.wait(240):
        time.sleep(SLOW_FROM)
        link.delay = delay


def spacing(to_host, store, slow):
    senders = Counter(r["headers"].get("X-Fleet-Worker") for r in to_host)
    gaps = sorted(gap for host_gaps in gaps_by_host(to_host).values() for gap in host_gaps)
    print(f"send time ({store}): requests per worker {dict(senders)}, slow connects {slow}, smallest gaps {gaps[:3]}")
    print(
        "  timeline:", [(round(r["mono"] - to_host[0]["mono"], 3), r["headers"].get("X-Fleet-Worker")) for r in to_host]
    )
    assert senders["slow"] >= 1, "the slow worker never got its request to the host through"
    assert gaps[0] >= 1.0 - CLOCK_TOLERANCE, gaps[:3]


@pytest.mark.skipif(os.geteuid() != 0, reason="the door watches SYNs with a packet socket (root)")
@pytest.mark.parametrize("store", ["redis", "sqlite"])
def test_a_slow_connect_never_lands_next_to_another_workers_request(tmp_path, store):
    to_host, door, _ = fleet_with_a_slow_worker(
        tmp_path, store, lambda site: SlowConnect(DOOR_IP, site.port, (HOSTS[HOST].ip, site.port), wait=2.5)
    )
    slow = [round(accepted - syn, 3) for syn, accepted in door.connects]
    spacing(to_host, store, slow)
    assert slow and min(slow) >= 2.9, "the door did not make the slow worker's connect slow"
    pages = Counter(r["path"] for r in to_host if r["path"].startswith("/page/"))
    assert len(pages) == 20 and set(pages.values()) == {1}, pages


def test_a_slow_tls_handshake_never_lands_next_to_another_workers_request(tmp_path):
    """Over HTTPS the request's bytes leave only once the handshake is done: the slot is held until
    then (the third worker's targets are the same pages over https, other targets to R8)."""
    to_host, door, _ = fleet_with_a_slow_worker(
        tmp_path,
        "redis",
        lambda site: SlowHandshake(DOOR_IP, site.port, (HOSTS[HOST].ip, site.port), 2.0, tmp_path),
        slow_scheme="https",
    )
    slow = [round(done - came, 3) for came, done in door.handshakes]
    spacing(to_host, "redis, https", slow)
    assert slow and min(slow) >= 1.9, "the door did not make the slow worker's handshake slow"


@pytest.mark.skipif(os.geteuid() != 0, reason="the door watches SYNs with a packet socket (root)")
def test_a_request_connecting_when_redis_dies_is_not_written_during_the_outage(tmp_path):
    """The outage test's gap, made certain: a request reserved just before Redis went away reached
    the server while Redis was down, once its connection was made (the reservation was the only
    check). Here the connect takes 3 s and Redis is killed as it begins: the request is not written
    until the store can confirm its slot again."""
    with DemoSite(hosts=[HOST, "ops"]) as site:
        redis_server = RedisServer(tmp_path / "redis").start()
        try:
            project = fleet_project(tmp_path, site, redis_server.url)
            settings = project / "plainproj" / "settings.py"
            settings.write_text(settings.read_text() + SLOW_WORKER)
            (project / "plainproj" / "door.py").write_text(DOOR_RESOLVER)
            urls = [site.url(HOST, f"/page/{i}") for i in range(1, 4)]
            with SlowConnect(DOOR_IP, site.port, (HOSTS[HOST].ip, site.port), wait=2.5) as door:
                worker = start_worker(project, urls, "slow", tmp_path / "items.jsonl")
                assert door.knocked.wait(120), "the worker never connected to the host"
                killed, restarted = redis_server.outage(4.0)
                log = worker.communicate(timeout=240)[1]
        finally:
            redis_server.stop()
        seen = site.requests
    assert worker.returncode == 0, log[-3000:]
    during = [(r["host_key"], r["path"], round(r["mono"] - killed, 3)) for r in seen if killed < r["mono"] < restarted]
    print("outage while connecting: requests between kill and restart", during, "connects", door.connects)
    assert during == []
    assert stat(log, "walsh/checkpoint/not_written", 0) >= 1
    assert len([r for r in seen if r["host_key"] == HOST and r["path"].startswith("/page/")]) == 3
