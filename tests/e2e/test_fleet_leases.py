"""R8 leases that survive containers and pauses: a running worker's lease is never taken over.

Real workers on one real redis-server, the same targets in each, answers slowed so that leases
are held while requests are in flight. Before, a worker was alive when its record said so and,
on the same host name, when its process id ran: a worker in another PID namespace (a container
on the host's network) was "gone" to its neighbour, and a worker frozen past the record's 20 s
lost its in-flight lease; either way a target was fetched twice. Now a worker's lease holds by
its lock on this machine, and where the lock can't be seen (another mount namespace, another
machine) by its record, for ``HOLDER_BOUND`` s after its last heartbeat."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from demo_site import DemoSite
from scrapy_walsh.store.leases import HOLDER_BOUND
from tests.e2e.test_fleet import fleet_project
from tests.redis_server import RedisServer

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="unshare needs root")


def worker(project, urls, name, wrapper=""):
    """``scrapy crawl`` of ``urls`` as worker ``name``, run by the shell ``wrapper`` (a prefix
    command such as ``unshare ...``, or nothing)."""
    env = dict(os.environ, FLEET_WORKER=name)
    env.pop("SCRAPY_SETTINGS_MODULE", None)
    command = f"{sys.executable} -m scrapy crawl gates -a urls={','.join(urls)} -O items-{name}.jsonl"
    return subprocess.Popen(
        f"{wrapper} {command}" if wrapper else f"exec {command}",
        shell=True,
        cwd=project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def fetched_twice(seen):
    pages = Counter((r["host_key"], r["path"]) for r in seen if r["path"].startswith("/page/"))
    return {page: n for page, n in pages.items() if n > 1}, pages


@root_only
def test_workers_whose_process_ids_overlap_never_take_each_others_leases(tmp_path):
    """Each worker in a PID namespace of its own, on one host name: the first runs as pid 2 of
    its namespace (a shell is pid 1), the second as pid 1, where no pid 2 runs: a liveness check
    by pid found the first gone while it sent."""
    hosts = ("open", "gone", "busy")
    with DemoSite(hosts=[*hosts, "ops"], latency=1.5) as site, RedisServer(tmp_path / "redis") as server:
        project = fleet_project(tmp_path, site, server.url)
        urls = [site.url(h, f"/page/{i}") for h in hosts for i in range(1, 5)]
        first = worker(project, urls, "ns-a", """unshare --pid --fork sh -c '"$0" "$@"; exit $?'""")  # sh: pid 1
        second = worker(project, urls[6:] + urls[:6], "ns-b", "unshare --pid --fork")
        logs = [first.communicate(timeout=300)[1], second.communicate(timeout=300)[1]]
        seen = site.requests
    for process, log in zip((first, second), logs):
        assert process.returncode == 0, log[-3000:]
    twice, pages = fetched_twice(seen)
    print("pid namespaces: pages", len(pages), "fetched twice", twice)
    assert len(pages) == 12 and not twice


@root_only
def test_a_worker_frozen_past_the_old_window_keeps_its_in_flight_lease(tmp_path):
    """The first worker runs in a mount namespace of its own (its state directory, lock included,
    is a private tmpfs: to the second it is another machine). It is frozen (SIGSTOP) as its second
    page arrives at the server, so it can't read the answer; 27 s later, past the 20 s a record
    used to outlive its last heartbeat, a second worker asks for that page, while the first is
    still frozen. The page in flight is fetched once."""
    assert HOLDER_BOUND > 60
    with DemoSite(hosts=["open", "ops"], latency=0.5) as site, RedisServer(tmp_path / "redis") as server:
        project = fleet_project(tmp_path, site, server.url)
        # the answer waits in the socket while the worker is frozen: no download timeout on waking
        settings = project / "plainproj" / "settings.py"
        settings.write_text(settings.read_text() + "DOWNLOAD_TIMEOUT = 120\n")
        urls = [site.url("open", f"/page/{i}") for i in range(1, 4)]
        private = f"mount -t tmpfs tmpfs {os.environ['XDG_STATE_HOME']} && exec"
        first = worker(project, urls, "frozen", f'unshare --mount --fork sh -c \'{private} "$0" "$@"\'')
        deadline = time.monotonic() + 120
        while not site.arrived("open", "/page/2"):
            assert time.monotonic() < deadline and first.poll() is None, "the first worker did not start"
            time.sleep(0.005)
        frozen = _pids_of(first.pid)
        for pid in frozen:
            os.kill(pid, signal.SIGSTOP)
        frozen_at = time.monotonic()
        time.sleep(27.0)
        second = worker(project, [urls[1]], "second")
        try:
            second_log = second.communicate(timeout=60)[1]
        finally:
            asked = time.monotonic() - frozen_at
            for pid in frozen:
                os.kill(pid, signal.SIGCONT)
        first_log = first.communicate(timeout=300)[1]
        seen = site.requests
    for process, log in ((first, first_log), (second, second_log)):
        assert process.returncode == 0, log[-3000:]
    # sent before the freeze, answered during it: the frozen worker could not read its answer
    in_flight = [
        r["path"]
        for r in seen
        if r["headers"].get("X-Fleet-Worker") == "frozen" and r["mono"] < frozen_at < r["replied"]
    ]
    twice, pages = fetched_twice(seen)
    print("frozen: in flight", in_flight, "the second done", round(asked, 1), "s in; fetched twice", twice)
    assert in_flight == ["/page/2"], "the frozen worker's second page was not in flight"
    assert 28 < asked, "the second worker asked before the old window was over: it proves nothing"
    assert len(pages) == 3 and not twice


def _pids_of(parent: int) -> list[int]:
    """``parent`` and every process under it (the shell, unshare and the crawl)."""
    found, todo = [], [parent]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            children = open(f"/proc/{pid}/task/{pid}/children").read().split()
        except OSError:
            continue
        todo += [int(c) for c in children]
    return found
