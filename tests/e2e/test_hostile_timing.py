"""A server that never answers, and one that trickles a byte a second, cost the serial
crawl at most one time budget per recheck interval each, and the other hosts go in between.

Timings are the servers' own (monotonic clock): when a request arrived, and when the crawler
hung up on it. ``DOWNLOAD_TIMEOUT`` is the floor (5 s) to keep the tests short.
"""

from __future__ import annotations

import pytest

from tests.e2e.hostile_server import HostileServer, busy, hang, plain, trickle
from tests.helpers import CLOCK_TOLERANCE, crawl_targets, stat

BUDGET = 5.0
RECHECK = 15.0
#: The crawler hangs up within this of its budget (the trickle notices at its next byte).
GIVE_UP_SLACK = 1.5
#: A recheck interval short enough to see three timeouts in a row in one test.
SHORT = 5.0
ROBOTS_OK = plain(b"User-agent: *\nAllow: /\n", "text/plain")


@pytest.fixture
def servers(project):
    made = {
        "hang": HostileServer("127.0.0.211", {"/robots.txt": hang()}),
        "trickle": HostileServer("127.0.0.212", {"/robots.txt": trickle()}),
        "slowpage": HostileServer("127.0.0.213", {"/robots.txt": ROBOTS_OK, "/hang": hang(), "/trickle": trickle()}),
        "n1": HostileServer("127.0.0.214", {"/robots.txt": ROBOTS_OK}),
        "n2": HostileServer("127.0.0.215", {"/robots.txt": ROBOTS_OK}),
    }
    settings = project / "plainproj" / "settings.py"
    settings.write_text(
        settings.read_text()
        + f"\nWALSH_ALLOW_PRIVATE_ADDRESSES = True\nDOWNLOAD_TIMEOUT = {BUDGET}\nWALSH_RECHECK_INTERVAL = {RECHECK}\n"
    )
    yield made
    for server in made.values():
        server.close()


def held(record) -> float:
    return record["end"] - record["mono"]


def test_a_robots_txt_that_hangs_or_trickles_costs_one_budget_and_blocks_its_origin(project, servers):
    urls = [servers[h].url(f"/page/{i}") for h in ("hang", "trickle") for i in range(3)]
    urls += [servers[h].url(f"/page/{i}") for h in ("n1", "n2") for i in range(3)]
    result, items = crawl_targets(project, urls, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    for name in ("hang", "trickle"):
        log = servers[name].log
        assert [r["path"] for r in log] == ["/robots.txt"], "one request per recheck interval, no more"
        assert BUDGET - 0.1 <= held(log[0]) <= BUDGET + GIVE_UP_SLACK, held(log[0])
        for i in range(3):
            assert items[servers[name].url(f"/page/{i}")]["verdict"] == "unknown_unreachable"
    for name in ("n1", "n2"):
        assert [r["path"] for r in servers[name].log] == ["/robots.txt", "/page/0", "/page/1", "/page/2"]
    assert stat(result.stderr, "walsh/backoff/timeout") == 2
    everything = sorted(r["mono"] for s in servers.values() for r in s.log)
    # the whole crawl: two budgets lost, the rest is the normal hosts' own pace
    assert everything[-1] - everything[0] <= 2 * (BUDGET + GIVE_UP_SLACK) + 6.0


def test_a_page_that_hangs_or_trickles_pauses_its_host_while_the_others_go(project, servers):
    slow = servers["slowpage"]
    urls = [slow.url("/hang"), slow.url("/trickle"), slow.url("/page/0")]
    urls += [servers[h].url(f"/page/{i}") for h in ("n1", "n2") for i in range(4)]
    result, items = crawl_targets(project, urls, "-s", "WALSH_BACKOFF_MAX_RETRIES=0", timeout=150)
    assert result.returncode == 0, result.stderr[-3000:]
    log = [r for r in slow.log if r["path"] != "/robots.txt"]
    assert sorted(r["path"] for r in log) == ["/hang", "/page/0", "/trickle"], "no retry (WALSH_BACKOFF_MAX_RETRIES=0)"
    others = sorted(r["mono"] for h in ("n1", "n2") for r in servers[h].log)
    for first, second in zip(log, log[1:]):
        if first["path"] in ("/hang", "/trickle"):
            assert BUDGET - 0.1 <= held(first) <= BUDGET + GIVE_UP_SLACK, held(first)
            # its host rested the recheck interval from the give-up, one budget after the send (the
            # server's "end" of a trickle comes later: it sees the closed connection at its next byte)
            assert second["mono"] >= first["mono"] + BUDGET + RECHECK - CLOCK_TOLERANCE - 0.1, (first, second)
            between = [t for t in others if first["end"] < t < second["mono"]]
            if any(t > first["end"] for t in others):
                assert between, "the other hosts went while the slow host rested"
    assert any(log[0]["end"] < t < log[1]["mono"] for t in others), "the other hosts went in between"
    for path in ("/hang", "/trickle"):
        assert items[slow.url(path)]["denied"] == "DownloadTimeoutError"
    assert items[slow.url("/page/0")]["status"] == 200
    assert all(items[servers[h].url(f"/page/{i}")]["status"] == 200 for h in ("n1", "n2") for i in range(4))
    assert stat(result.stderr, "walsh/backoff/timeout") == 2


def test_a_host_that_keeps_hanging_rests_twice_as_long_after_each_timeout_in_a_row(project, servers):
    """At scale, a fixed rest would let a hanging host take one budget per recheck interval
    for as long as its requests wait; the k-th timeout in a row rests it RECHECK x 2^(k-1)
    (here 5, then 10 s: the old code asked again after 5 s each time), and a re-ask gets the
    5 s floor as its budget, not the crawl's 10 s. Three origins (ports) of one host: each has
    its own robots.txt to ask, the host has one rest."""
    origins = [HostileServer("127.0.0.217", {"/robots.txt": hang()}) for _ in range(3)]
    try:
        urls = [origin.url("/page/0") for origin in origins]
        urls += [servers["n1"].url(f"/page/{i}") for i in range(40)]  # keeps the crawl going ~40 s
        args = ["-s", f"WALSH_RECHECK_INTERVAL={SHORT}", "-s", f"DOWNLOAD_TIMEOUT={2 * BUDGET}"]
        result, items = crawl_targets(project, urls, *args, timeout=150)
        assert result.returncode == 0, result.stderr[-3000:]
        log = sorted((r for origin in origins for r in origin.log), key=lambda r: r["mono"])
        assert [r["path"] for r in log] == ["/robots.txt"] * 3, log
        budgets = [2 * BUDGET, BUDGET, BUDGET]  # the first ask, then re-asks after a timeout
        for record, budget in zip(log, budgets):
            assert budget - 0.1 <= held(record) <= budget + GIVE_UP_SLACK, (held(record), budget)
        for k, (before, after) in enumerate(zip(log, log[1:]), start=1):
            rest = after["mono"] - before["end"]
            # from the give-up; the server notices the hang-up up to a poll (20 ms) late
            assert rest >= SHORT * 2 ** (k - 1) - CLOCK_TOLERANCE - 0.1, (k, rest)
            assert rest <= SHORT * 2 ** (k - 1) + 4.0, (k, rest)  # and then it is asked again
        assert all(items[origin.url("/page/0")]["verdict"] == "unknown_unreachable" for origin in origins)
        others = sorted(r["mono"] for r in servers["n1"].log)
        assert any(log[1]["end"] < t < log[2]["mono"] for t in others), "the other host went while it rested"
        assert stat(result.stderr, "walsh/backoff/timeout") == 3
    finally:
        for origin in origins:
            origin.close()


def test_an_unreachable_robots_txt_is_not_asked_again_while_its_host_rests(project, servers):
    """The recheck interval (15 s) is over but the host asked for 40 s: its pages are
    refused at once, not held in the one download slot until the rest ends."""
    resting = HostileServer("127.0.0.216", {"/robots.txt": busy(40)})
    try:
        urls = [resting.url(f"/page/{i}") for i in range(3)]
        urls += [servers["n1"].url(f"/page/{i}") for i in range(22)]  # ~22 s: past RECHECK, inside 40 s
        result, items = crawl_targets(project, urls, timeout=150)
        assert result.returncode == 0, result.stderr[-3000:]
        assert [r["path"] for r in resting.log] == ["/robots.txt"], "nothing is sent while the host rests"
        assert all(items[resting.url(f"/page/{i}")]["verdict"] == "unknown_unreachable" for i in range(3))
        sent = sorted(r["mono"] for r in servers["n1"].log)
        assert max(b - a for a, b in zip(sent, sent[1:])) < 3.0, "no request held the crawl"
    finally:
        resting.close()
