"""The next request is prepared while one is on the network, robots.txt fetches included.

The checkpoint's lock lets one request on the network at a time; the downloader holds the next
ones, their gates passed, at that lock. A page whose origin's robots.txt is being fetched waits in
the downloader for the fetch, so with two places the fetch and that page took both, nothing was
prepared behind the fetch, and after its answer the network sat idle while the next request's
gates ran. The preset's third place keeps one prepared: counted at the checkpoint
(``walsh/checkpoint/next_prepared/<kind>``), and still one request on the network at a time as
the server saw it."""

from __future__ import annotations

from tests.e2e.test_crash_state import crawl_once
from tests.helpers import CLOCK_TOLERANCE, stat


def test_a_request_waits_prepared_behind_each_robots_txt_fetch(tmp_path):
    hosts = 12
    # 100 ms answers: time enough for the next request's gates while one is answered
    seen, log = crawl_once(tmp_path, hosts, 1, latency=0.1)
    assert sum(r["path"] == "/robots.txt" for r in seen) == hosts
    assert sum(r["path"] != "/robots.txt" for r in seen) == hosts
    # one on the network at a time: each request arrived after the previous one was answered
    for before, after in zip(seen, seen[1:]):
        assert after["at"] - before["at"] >= 0.1 - CLOCK_TOLERANCE, (before, after)
    by_host: dict[str, list[float]] = {}
    for record in seen:
        by_host.setdefault(record["host"], []).append(record["at"])
    assert all(b - a >= 1.0 - CLOCK_TOLERANCE for a, b in by_host.values()), "each host keeps its floor"
    assert stat(log, "walsh/requests/max_in_flight") == 1
    # the robots.txt fetches come first, one per host, each with the next host's fetch prepared
    prepared = stat(log, "walsh/checkpoint/next_prepared/robots", 0)
    assert prepared >= hosts // 2, f"{prepared} of {hosts} robots.txt answers found the next request prepared"
