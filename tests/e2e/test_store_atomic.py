"""The fleet operations of the state store (claim, get_many) and of the pacing ledger on
top of it (reserve, advance), on both backends: a real sqlite file and a real
redis-server. Races are real processes."""

import math
import subprocess
import sys
import textwrap
import threading
import time

import pytest
import redis

from scrapy_walsh.store import Ledger, StoreUnavailable, open_store, parse_state_uri
from scrapy_walsh.store.redis import RETRY_BUDGET, RedisStore
from tests.redis_server import RedisServer


@pytest.fixture(params=["sqlite", "redis"])
def uri(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/s.sqlite3"
    server = request.getfixturevalue("redis_server")
    import redis

    redis.Redis.from_url(server.url).flushdb()
    return server.url


def store_at(uri, identity="Walsh-Research"):
    return open_store(parse_state_uri(uri, "unused"), identity)


def test_reserve_takes_a_free_slot_once_and_reports_the_wait(uri):
    store = store_at(uri)
    ledger = Ledger(store, "pacing")
    first = ledger.reserve("a.test", interval=1.0, margin=0.01, assign={"crawl_delay": None}, ttl=61)
    assert first.wait == 0 and first.value["last_start"] == pytest.approx(first.now, abs=1e-3)
    second = ledger.reserve("a.test", interval=1.0, margin=0.01, ttl=61)
    assert 0.95 < second.wait <= 1.01, second
    assert second.value["last_start"] == first.value["last_start"], "a refused reserve changed the entry"
    assert ledger.reserve("b.test", interval=1.0).wait == 0, "hosts are independent"
    assert store.get("pacing", "a.test")["crawl_delay"] is None


def test_the_stored_start_is_the_granted_time_to_the_digit(uri):
    """A slot's ``last_start`` is stored exactly as granted: Redis's cjson writes 14 significant
    digits, so a microsecond clock was stored up to 50 µs early and the next slot of the host
    could be granted up to 50 µs before ``interval`` had passed (a flaky racing test found it)."""
    ledger = Ledger(store_at(uri), "pacing")
    for n in range(8):
        taken = ledger.reserve(f"exact{n}.test", interval=1.0, ttl=61)
        stored = store_at(uri).get("pacing", f"exact{n}.test")["last_start"]
        assert stored == taken.now, (stored, taken.now)


def test_a_pause_never_shortens_and_holds_reserve(uri):
    ledger = Ledger(store_at(uri), "pacing")
    ledger.advance("h", {"not_before": 5.0}, ttl=70)
    shorter = ledger.advance("h", {"not_before": 1.0}, assign={"adaptive": 0.5}, ttl=10)
    assert shorter.value["not_before"] == pytest.approx(shorter.now + 5.0, abs=0.2)
    assert shorter.value["adaptive"] == 0.5
    assert 4.5 < ledger.reserve("h", interval=1.0).wait <= 5.0


def test_claim_adds_only_if_absent_and_expires(uri):
    store = store_at(uri)
    assert store.claim("fetched", "http://a/1", 1.5, ttl=0.3)
    assert not store_at(uri).claim("fetched", "http://a/1", 2.5, ttl=0.3), "another process took it"
    assert store.get("fetched", "http://a/1") == 1.5
    time.sleep(0.35)
    assert store.claim("fetched", "http://a/1", 3.5), "an expired claim is free"
    store.delete("fetched", "http://a/1")
    assert store.claim("fetched", "http://a/1", 4.5)


def test_get_many_and_namespaces_and_identities(uri):
    store = store_at(uri)
    store.set("seen", "u1", 1)
    store.set("seen:spider", "u2", 2)
    store.set("seen", "we*ird?[key]", 3)
    assert store.get_many("seen", ["u1", "u2", "we*ird?[key]", "missing"]) == {"u1": 1, "we*ird?[key]": 3}
    assert dict(store.items("seen")) == {"u1": 1, "we*ird?[key]": 3}
    assert dict(store.items("seen:spider")) == {"u2": 2}
    assert store_at(uri, "OtherBot").get("seen", "u1") is None
    assert store_at(uri, "walsh-research").get("seen", "u1") == 1
    if uri.startswith("redis"):  # the documented layout, readable with redis-cli
        import redis

        keys = {k.decode() for k in redis.Redis.from_url(uri).keys("walsh:*")}
        assert keys == {
            "walsh:walsh-research:seen:u1",
            "walsh:walsh-research:seen%3Aspider:u2",
            "walsh:walsh-research:seen:we*ird?[key]",
            "walsh:walsh-research:meta:id",  # each identity's store carries its id
            "walsh:otherbot:meta:id",
        }


def test_pages_read_the_keys_under_a_prefix_a_page_at_a_time(uri):
    """Both backends agree: only keys under the prefix (glob characters are text), live ones,
    in pages of at most ``size``; a caller that stops early has read only the pages it took."""
    store = store_at(uri)
    under = {f"https://a.test/{i:03d}": i for i in range(25)}
    store.set_many([("discovered", key, value) for key, value in under.items()])
    store.set_many(
        [
            ("discovered", "https://a.test0/x", "after the prefix's range"),
            ("discovered", "https://a.tes/", "before it"),
            ("discovered", "https://b.test/1", "another site"),
            ("fetched_by", "https://a.test/1", "another namespace"),
            ("discovered", "https://a.test/*?[x]", "glob characters"),
        ]
    )
    store.set("discovered", "https://a.test/gone", 0, ttl=0.05)
    time.sleep(0.1)
    store_at(uri, "OtherBot").set("discovered", "https://a.test/other", "another identity")
    pages = list(store.pages("discovered", "https://a.test/", 10))
    assert all(0 < len(page) <= 10 for page in pages) and len(pages) >= 3
    assert dict(kv for page in pages for kv in page) == {**under, "https://a.test/*?[x]": "glob characters"}
    assert dict(kv for page in store.pages("discovered", "https://a.test/*") for kv in page) == {
        "https://a.test/*?[x]": "glob characters"
    }
    assert sum(len(page) for page in store.pages("discovered")) == 29, "no prefix: the namespace"
    assert list(store.pages("discovered", "https://c.test/")) == []


def test_set_many_writes_every_entry_at_once_with_its_ttl(uri):
    store = store_at(uri)
    trips = getattr(store, "round_trips", 0)
    store.set_many([("fetched", "http://a/1", 1.5), ("fetched_by", "http://a/1", {"spider": "s"})], ttl=0.3)
    if uri.startswith("redis"):
        assert store.round_trips - trips == 1, "one MULTI/EXEC, not a round trip per entry"
    other = store_at(uri)
    assert other.get("fetched", "http://a/1") == 1.5 and other.get("fetched_by", "http://a/1") == {"spider": "s"}
    time.sleep(0.35)
    assert other.get("fetched", "http://a/1") is None and other.get("fetched_by", "http://a/1") is None


RACER = textwrap.dedent("""
    import sys, time
    from scrapy_walsh.store import Ledger, open_store, parse_state_uri
    store = Ledger(open_store(parse_state_uri(sys.argv[1], "unused"), "Walsh-Research"), "pacing")
    print("ready", flush=True)
    start = float(sys.stdin.readline())
    time.sleep(max(0.0, start - time.time()))
    while time.time() < start + 2.0:
        taken = store.reserve("race.test", interval=0.2, ttl=60)
        if taken.wait == 0:
            print(repr(taken.now), flush=True)
        else:
            time.sleep(min(taken.wait, 0.05) * (0.5 + (hash(time.time()) % 100) / 100))
""")


def test_racing_processes_never_share_a_slot(uri):
    racers = [
        subprocess.Popen([sys.executable, "-c", RACER, uri], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    for racer in racers:  # all imported and connected: start together
        assert racer.stdout.readline().strip() == "ready"
    start = repr(time.time() + 0.2) + "\n"
    granted = sorted(float(line) for racer in racers for line in racer.communicate(start, timeout=30)[0].split())
    assert all(r.returncode == 0 for r in racers)
    gaps = [b - a for a, b in zip(granted, granted[1:])]
    assert len(granted) >= 8, granted  # 2 s at one slot per 0.2 s, shared by four processes
    assert min(gaps) >= 0.2 - 1e-6, gaps


def test_a_slot_one_rounding_step_away_is_a_wait_never_a_grant_left_unwritten(uri):
    """The store's clock ticks in 0.1 ms, and a host's ready time is its last start plus the
    interval in floating point: at the tick where it is due, the sum can lie one rounding step
    (0.24 us at today's epoch) past ``now``. That is a wait, and it must read as one: an answer
    printed to six decimals read it as a grant, with nothing written, and another process was
    granted the same slot 0.4 ms later (four racing processes on Redis, under load)."""
    store = store_at(uri)
    ledger = Ledger(store, "pacing")
    phantom = []
    for attempt in range(20):
        key = f"tick{attempt}.test"
        tick = (int(store.now() * 10000) + 100) / 10000  # a tick 10 ms ahead, as the store counts
        last = tick - 0.2
        while last + 0.2 <= tick:  # the last start whose ready time is one step past the tick
            last = math.nextafter(last, math.inf)
        assert 0 < last + 0.2 - tick < 5e-7
        store.set("pacing", key, {"last_start": last}, ttl=60)
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            taken = ledger.reserve(key, interval=0.2, ttl=60)
            if taken.wait == 0:
                written = store.get("pacing", key)["last_start"]
                if written != taken.now:
                    phantom.append((tick, taken.now, written))
                break
        else:
            pytest.fail("never granted")
    assert not phantom, phantom


def test_unsupported_and_malformed_redis_uris_are_refused():
    assert parse_state_uri("redis://127.0.0.1:6379/0", "x").scheme == "redis"
    with pytest.raises(ValueError, match="names its server"):
        parse_state_uri("redis:///0", "x")


def test_an_unreachable_redis_blocks_until_it_is_back_and_loses_nothing(tmp_path, caplog):
    server = RedisServer(tmp_path / "r").start()
    try:
        store = RedisStore(server.url, "Walsh-Research")
        store.set("blocklist", "last", {"document": [1, 2, 3]})
        server.kill()  # SIGKILL: only the append-only file survives
        restart = threading.Timer(1.5, server.start)
        restart.start()
        began = time.monotonic()
        with caplog.at_level("ERROR"):
            value = store.get("blocklist", "last")
        assert time.monotonic() - began >= 1.4
        assert value == {"document": [1, 2, 3]}, "a write acknowledged before the crash was lost"
        assert store.unreachable_seconds >= 1.4
        assert "no request is sent until it answers" in caplog.text
        restart.join()
    finally:
        server.stop()


def test_a_long_outage_raises_within_the_budget_and_a_pause_made_meanwhile_still_holds(tmp_path):
    server = RedisServer(tmp_path / "r").start()
    try:
        store = RedisStore(server.url, "Walsh-Research")
        ledger = Ledger(store, "pacing")
        store.set("blocklist", "last", {"document": [1]})
        server.kill()
        began = time.monotonic()
        with pytest.raises(StoreUnavailable, match="unreachable"):
            store.get("blocklist", "last")
        assert RETRY_BUDGET - 0.05 <= time.monotonic() - began < RETRY_BUDGET + 1.0
        began = time.monotonic()
        with pytest.raises(StoreUnavailable):
            ledger.reserve("h", interval=1.0)
        assert time.monotonic() - began < 0.5, "a call while Redis is known down fails fast"
        # R5: a pause decided while Redis is down is kept, not lost, and not a reason to fail
        paused = ledger.advance("h", {"not_before": 30.0}, ttl=100)
        assert paused.value["not_before"] == pytest.approx(ledger.now() + 30.0, abs=0.5)
        assert ledger.pending == 1
        server.start()
        taken = ledger.reserve("h", interval=1.0)
        assert ledger.pending == 0
        assert 25.0 < taken.wait <= 30.0, "the pause made while Redis was down was lost"
        assert store.get("blocklist", "last") == {"document": [1]}
        assert store.unreachable_seconds >= RETRY_BUDGET
    finally:
        server.stop()


T0 = 1_700_000_000.0
DAY = 86_400.0
LEASE_B = {"B": {"until": T0 + 1.0, "kind": "any_start"}}

#: (last_start, not_before, interval, margin) -> ready time, for ready_time and its Lua twin.
READY_CASES = [
    ((None, 0.0, 1.0, 0.0), 0.0),
    ((None, 0.0, 5.0, 0.25), 0.0),  # never seen: it goes at once, no margin
    ((None, T0 + 20, 1.0, 0.5), T0 + 20.5),  # paused, never requested
    ((T0, 0.0, 3.0, 0.25), T0 + 3.25),
    ((T0, T0 + 30, 1.0, 0.0), T0 + 30),  # the pause dominates
    ((T0, T0 - 100, 10.0, 0.0), T0 + 10),  # a past pause does not shorten the interval
    ((T0, T0 + 5, 5.0, 0.01), T0 + 5.01),
    ((0.0, 0.0, 1.0, 0.5), 1.5),
    ((T0 + 0.123456, 0.0, 1.0, 0.01), T0 + 1.133456),
]

#: (operation, entry, now, args) -> (result, entry after or None), for both languages.
OPERATION_CASES = [
    ("reserve", {}, T0, [1.0, 0.01, {"crawl_delay": None}], (0.0, {"crawl_delay": None, "last_start": T0})),
    ("reserve", {"last_start": T0}, T0 + 0.5, [1.0, 0.01, {}], (0.51, None)),
    ("reserve", {"last_start": T0, "not_before": T0 + 30}, T0 + 2, [1.0, 0.0, {}], (28.0, None)),
    (
        "reserve",
        {"last_start": T0, "not_before": None, "adaptive": 2.5},
        T0 + 3,
        [2.5, 0.0, {"adaptive": 2.5}],
        (0.0, {"last_start": T0 + 3, "not_before": None, "adaptive": 2.5}),
    ),
    ("reserve", {"last_start": T0}, T0 + 1.0, [1.0, 0.0, {}], (0.0, {"last_start": T0 + 1.0})),  # exactly ready
    (
        "advance",
        {"not_before": T0 + 5},
        T0,
        [{"not_before": 1.0}, {"adaptive": 0.5}],
        (0.0, {"not_before": T0 + 5, "adaptive": 0.5}),
    ),
    ("advance", {"last_start": T0}, T0 + 0.25, [{"last_start": 0.0}, {}], (0.0, {"last_start": T0 + 0.25})),
    ("advance", {"last_start": T0 + 1}, T0 + 0.25, [{"last_start": 0.0}, {}], (0.0, {"last_start": T0 + 1})),
    ("advance", {}, T0, [{"not_before": 30.0}, {}], (0.0, {"not_before": T0 + 30})),
    # a clock step mended (args: the slack, the horizon of leases): nothing ahead, nothing written
    ("rebase", {"last_start": T0 - 5, "not_before": T0 + 30}, T0, [60.0, 3660.0], (0.0, None)),
    ("rebase", {"last_start": T0 + 30}, T0, [60.0, 3660.0], (0.0, None)),  # within the slack
    # a start a day ahead counts from now; the rest of the entry stays
    (
        "rebase",
        {"last_start": T0 + DAY, "adaptive": 0.5},
        T0,
        [60.0, 3660.0],
        (DAY, {"last_start": T0, "adaptive": 0.5}),
    ),
    ("rebase", {"any_start": T0 + 7200}, T0, [60.0, 3660.0], (7200.0, {"any_start": T0})),
    # a pause stamped ahead keeps its length from now; one stamped in time, however long, stays
    (
        "rebase",
        {"last_start": T0 + DAY, "not_before": T0 + DAY + 30, "paused_at": T0 + DAY},
        T0,
        [60.0, 3660.0],
        (DAY, {"last_start": T0, "not_before": T0 + 30, "paused_at": T0}),
    ),
    (
        "rebase",
        {"last_start": T0 - 10, "not_before": T0 + 2 * DAY, "paused_at": T0 - 10},
        T0,
        [60.0, 3660.0],
        (0.0, None),
    ),
    # written before pauses were stamped: measured from the start, which was no later
    (
        "rebase",
        {"last_start": T0 + DAY, "not_before": T0 + DAY + 60},
        T0,
        [60.0, 3660.0],
        (DAY, {"last_start": T0, "not_before": T0 + 60}),
    ),
    # a lease ending beyond the horizon is dropped; a live one stays
    (
        "rebase",
        {"last_start": T0, "sending": {"A": {"until": T0 + DAY, "kind": "last_start"}, **LEASE_B}},
        T0,
        [60.0, 3660.0],
        (DAY, {"last_start": T0, "sending": LEASE_B}),
    ),
    ("rebase", {"sending": {"A": {"until": T0 + DAY, "kind": "last_start"}}}, T0, [60.0, 3660.0], (DAY, {})),
]


OWN, WATCHED = (
    {"any": True, "write": "last_start", "assign": True},
    {"any": False, "write": "any_start", "assign": False},
)
LEASE_A = {"A": {"until": T0 + 1.01, "kind": "last_start"}}

#: The host lease (indexed operations: the key's position, 0-based, before the args), for both languages.
INDEXED_CASES = [
    # a free slot taken with a lease
    (
        "reserve_keys",
        {},
        T0,
        0,
        [1.0, 0.01, {"adaptive": 0.5}, [OWN], "A", 1.01],
        (0.0, {"adaptive": 0.5, "last_start": T0, "sending": LEASE_A}),
    ),
    # a slot whose interval is over but whose lease lives: at least a slot's wait, or the lease's end
    (
        "reserve_keys",
        {"last_start": T0, "sending": LEASE_A},
        T0 + 1.005,
        0,
        [1.0, 0.01, {}, [OWN], "B", 1.01],
        (0.005, None),
    ),
    (
        "reserve_keys",
        {"last_start": T0, "sending": {"A": {"until": T0 + 5, "kind": "last_start"}}},
        T0 + 2,
        0,
        [1.0, 0.01, {}, [OWN], "B", 1.01],
        (1.01, None),
    ),
    # a lapsed lease is dropped by the next writer
    (
        "reserve_keys",
        {"last_start": T0, "sending": LEASE_A},
        T0 + 2,
        0,
        [1.0, 0.01, {}, [OWN], "", 0.0],
        (0.0, {"last_start": T0 + 2}),
    ),
    # a host-paced lease on a watched address holds a process pacing by address, not another name
    (
        "reserve_keys",
        {"any_start": T0, "sending": {"A": {"until": T0 + 3, "kind": "any_start"}}},
        T0 + 2,
        0,
        [1.0, 0.01, {}, [OWN], "", 0.0],
        (1.0, None),
    ),
    (
        "reserve_keys",
        {"any_start": T0, "sending": {"A": {"until": T0 + 3, "kind": "any_start"}}},
        T0 + 2,
        0,
        [1.0, 0.01, {}, [WATCHED], "B", 1.01],
        (
            0.0,
            {
                "any_start": T0 + 2,
                "sending": {
                    "A": {"until": T0 + 3, "kind": "any_start"},
                    "B": {"until": T0 + 3.01, "kind": "any_start"},
                },
            },
        ),
    ),
    # the process's leases whose requests went at once are dropped by its next reservation; others stay
    (
        "reserve_keys",
        {
            "any_start": T0,
            "sending": {
                "A": {"until": T0 + 1.01, "kind": "any_start"},
                "C": {"until": T0 + 1.01, "kind": "any_start"},
            },
        },
        T0 + 0.5,
        0,
        [1.0, 0.01, {}, [WATCHED], "B", 1.01, ["A", "gone"]],
        (
            0.0,
            {
                "any_start": T0 + 0.5,
                "sending": {
                    "C": {"until": T0 + 1.01, "kind": "any_start"},
                    "B": {"until": T0 + 1.51, "kind": "any_start"},
                },
            },
        ),
    ),
    # written late while the lease lives: the start is the write, the lease ends
    (
        "confirm",
        {"last_start": T0, "sending": LEASE_A},
        T0 + 0.7,
        0,
        [1.0, 0.01, [OWN], "A", T0 + 1.01],
        (0.0, {"last_start": T0 + 0.7}),
    ),
    # the lease lapsed and nobody came: the write is still the start
    (
        "confirm",
        {"last_start": T0, "sending": LEASE_A},
        T0 + 3,
        0,
        [1.0, 0.01, [OWN], "A", T0 + 1.01],
        (0.0, {"last_start": T0 + 3}),
    ),
    # the lease lapsed and another process started: not written
    (
        "confirm",
        {"last_start": T0 + 1.5, "sending": {"B": {"until": T0 + 2.51, "kind": "last_start"}}},
        T0 + 2,
        0,
        [1.0, 0.01, [OWN], "A", T0 + 1.01],
        (0.51, None),
    ),
    # a pause set meanwhile (another process's 429): not written
    (
        "confirm",
        {"last_start": T0, "not_before": T0 + 9, "sending": LEASE_A},
        T0 + 0.5,
        0,
        [1.0, 0.01, [OWN], "A", T0 + 1.01],
        (8.51, None),
    ),
    # already on the wire (``always``): the start is the write, and the wait says who came first
    (
        "confirm",
        {"last_start": T0 + 1.5, "sending": {"B": {"until": T0 + 2.51, "kind": "last_start"}}},
        T0 + 2,
        0,
        [1.0, 0.01, [OWN], "A", T0 + 1.01, True],
        (0.51, {"last_start": T0 + 2, "sending": {"B": {"until": T0 + 2.51, "kind": "last_start"}}}),
    ),
    (
        "confirm",
        {"last_start": T0, "sending": LEASE_A},
        T0 + 0.7,
        0,
        [1.0, 0.01, [OWN], "A", T0 + 1.01, True],
        (0.0, {"last_start": T0 + 0.7}),
    ),
    # renewing a live lease, and a lapsed one (lost: nothing written)
    (
        "renew",
        {"last_start": T0, "sending": LEASE_A},
        T0 + 0.5,
        0,
        ["A", 1.01],
        (0.0, {"last_start": T0, "sending": {"A": {"until": T0 + 1.51, "kind": "last_start"}}}),
    ),
    ("renew", {"last_start": T0, "sending": LEASE_A}, T0 + 1.5, 0, ["A", 1.01], (1.0, None)),
]


def _approx_entry(entry):
    if entry is None:
        return None
    return {
        k: (
            _approx_entry(v)
            if isinstance(v, dict)
            else v
            if v is None or isinstance(v, str)
            else pytest.approx(v, abs=1e-6)
        )
        for k, v in entry.items()
    }


def test_the_python_formula_and_the_redis_lua_agree_on_every_case(redis_server):
    """The Lua repeats ready_time and the ledger's operations: both run the same table."""
    import json

    import redis

    from scrapy_walsh.policy.pacing import ready_time
    from scrapy_walsh.store.ledger import ADVANCE, CONFIRM, READY_TIME_LUA, REBASE, RENEW, RESERVE, RESERVE_KEYS

    client = redis.Redis.from_url(redis_server.url, decode_responses=True)
    formula = READY_TIME_LUA + (
        "local last = nil\nif ARGV[1] ~= '' then last = tonumber(ARGV[1]) end\n"
        "return string.format('%.6f', ready_time(last, tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])))"
    )
    for (last, not_before, interval, margin), expected in READY_CASES:
        python = ready_time(last, not_before, interval, margin)
        args = ["" if last is None else repr(last), repr(not_before), repr(interval), repr(margin)]
        lua = float(client.eval(formula, 0, *args))
        assert python == pytest.approx(expected, abs=1e-6), (last, not_before, interval, margin)
        assert lua == pytest.approx(expected, abs=1e-6), (last, not_before, interval, margin, lua)

    operations = {"reserve": RESERVE, "advance": ADVANCE, "rebase": REBASE}
    runner = (
        "local result, new = change(cjson.decode(ARGV[1]), tonumber(ARGV[2]), cjson.decode(ARGV[3]))\n"
        "if new then return {string.format('%.6f', result), cjson.encode(new)} end\n"
        "return {string.format('%.6f', result), ''}"
    )
    for name, entry, now, args, (result, after) in OPERATION_CASES:
        operation = operations[name]
        python = operation.python(dict(entry), now, *args)
        assert python == (pytest.approx(result, abs=1e-6), _approx_entry(after)), (name, entry, now, args)
        lua_result, lua_new = client.eval(operation.lua + runner, 0, json.dumps(entry), repr(now), json.dumps(args))
        lua_entry = json.loads(lua_new) if lua_new else None
        assert (float(lua_result), lua_entry) == (pytest.approx(result, abs=1e-6), _approx_entry(after)), (
            name,
            entry,
            now,
            args,
        )

    indexed = {"reserve_keys": RESERVE_KEYS, "confirm": CONFIRM, "renew": RENEW}
    runner = (
        "local result, new = change(cjson.decode(ARGV[1]), tonumber(ARGV[2]), cjson.decode(ARGV[3]),"
        " tonumber(ARGV[4]))\n"
        "if new then return {string.format('%.6f', result), cjson.encode(new)} end\n"
        "return {string.format('%.6f', result), ''}"
    )
    for name, entry, now, index, args, (result, after) in INDEXED_CASES:
        operation = indexed[name]
        python = operation.python(json.loads(json.dumps(entry)), now, index, *args)
        assert python == (pytest.approx(result, abs=1e-6), _approx_entry(after)), (name, entry, now, args, python)
        lua_result, lua_new = client.eval(
            operation.lua + runner, 0, json.dumps(entry), repr(now), json.dumps(args), str(index + 1)
        )
        lua_entry = json.loads(lua_new) if lua_new else None
        assert (float(lua_result), lua_entry) == (pytest.approx(result, abs=1e-6), _approx_entry(after)), (
            name,
            entry,
            now,
            args,
            lua_entry,
        )


def _round_trips(store):
    """Redis commands sent, or sqlite transactions (with and without fsync) plus reads."""
    if isinstance(store, RedisStore):
        return store.round_trips
    counts = store.counts
    return counts.get("transactions", 0) + counts.get("unsynced_transactions", 0) + counts.get("reads", 0)


def test_a_host_and_its_addresses_are_reserved_in_one_round_trip(uri):
    """A reservation covers the host and each address (here 4) in one atomic step:
    one Redis script, one sqlite transaction; all slots or none."""
    from scrapy_walsh.sending.pacer import MAX_ADDRESSES, pace_keys

    store = store_at(uri)
    ledger = Ledger(store, "pacing")
    addresses = ["192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4"]
    keys, modes = pace_keys("a.test", addresses, "host")
    before = _round_trips(store)
    taken = ledger.reserve(keys, interval=1.0, margin=0.01, ttl=61, modes=modes)
    assert taken.wait == 0 and _round_trips(store) - before == 1
    assert store.get("pacing", "a.test")["last_start"] == pytest.approx(taken.now, abs=1e-3)
    assert store.get("pacing", "192.0.2.3")["any_start"] == pytest.approx(taken.now, abs=1e-3)
    # a process pacing by address waits for the host-paced start on its address ...
    ip_keys, ip_modes = pace_keys("b.test", ["192.0.2.3"], "ip")
    assert 0.9 < ledger.reserve(ip_keys, interval=1.0, ttl=61, modes=ip_modes).wait <= 1.01
    assert store.get("pacing", "b.test") is None, "all or nothing: the free key was not taken"
    # ... while another name on the same address is another host to a host-paced process
    other, other_modes = pace_keys("c.test", ["192.0.2.3"], "host")
    assert ledger.reserve(other, interval=1.0, ttl=61, modes=other_modes).wait == 0
    # and the host-paced process waits for the address-paced one on the host's own key
    time.sleep(1.05)
    assert ledger.reserve(ip_keys, interval=1.0, ttl=61, modes=ip_modes).wait == 0
    assert 0.9 < ledger.reserve(keys, interval=1.0, ttl=61, modes=modes).wait <= 1.01, "its address was just taken"
    mixed, mixed_modes = pace_keys("b.test", ["192.0.2.3"], "host")
    assert 0.9 < ledger.reserve(mixed, interval=1.0, ttl=61, modes=mixed_modes).wait <= 1.01
    assert len(pace_keys("d.test", [f"192.0.2.{n}" for n in range(20)], "host")[0]) == 1 + MAX_ADDRESSES


def test_a_lease_of_a_crawl_gone_is_taken_over_and_a_record_never(uri):
    """A lease is not a fetch. A live crawl's lease holds; once its crawl is gone
    (no heartbeat record, or, on this machine, its lock no longer held: a kill -9) the next
    taker gets it; a record of what happened (a float) is never taken over. A pid says nothing."""
    import os

    from scrapy_walsh.store import leases, machine_state

    store = store_at(uri)
    leases.register(store, "alive")
    running = machine_state.Presence("alive", {"boot": machine_state.boot_id()})
    running.hold()
    first = leases.take(store, "fetched", "http://a/1", "alive")
    assert first is not None and leases.holds(store, "fetched", "http://a/1", first)
    assert leases.take(store, "fetched", "http://a/1", "next") is None, "a live crawl's lease holds"
    store.set(leases.NAMESPACE, "alive", {"pid": 2**22 + 12345, "machine": leases.this_machine()}, ttl=20)
    assert leases.take(store, "fetched", "http://a/1", "next") is None, "a pid that runs nowhere says nothing"
    os.close(running._fd)  # kill -9: the file stays, nobody holds its lock
    taken = leases.take(store, "fetched", "http://a/1", "next")
    assert taken is not None and not leases.holds(store, "fetched", "http://a/1", first), "its lock is gone"
    store.set("fetched", "http://a/1", 123.0, ttl=60)
    assert leases.take(store, "fetched", "http://a/1", "third") is None, "an answer is never taken over"
    assert leases.take(store, "fetched", "http://a/2", "gone-without-record") is not None
    assert leases.take(store, "fetched", "http://a/2", "other") is not None, "no heartbeat: gone"


def test_a_record_the_interval_in_force_lets_go_is_taken_over_whatever_its_expiry(uri):
    """R8's record keeps the expiry of the interval it was written under (a day); a crawl under a
    shorter interval takes it over (``stale_before``), and nothing else: a fresher record, a
    lease, another JSON value."""
    from scrapy_walsh.store import leases

    store = store_at(uri)
    leases.register(store, "c1")
    at = time.time() - 120
    store.set("fetched", "http://a/old", at, ttl=86400)
    assert leases.take_reading(store, "fetched", "http://a/old", "c1", 60, stale_before=at - 1)[0] is None
    assert leases.take(store, "fetched", "http://a/old", "c1") is None, "without stale_before, the record holds"
    token, _ = leases.take_reading(store, "fetched", "http://a/old", "c1", 60, stale_before=at)
    assert token is not None and leases.holds(store, "fetched", "http://a/old", token)
    assert leases.take_reading(store, "fetched", "http://a/old", "c2", 60, stale_before=time.time())[0] is None
    store.set("fetched", "http://a/object", {"at": at}, ttl=86400)
    assert leases.take_reading(store, "fetched", "http://a/object", "c1", 60, stale_before=time.time())[0] is None
    assert leases.TAKE_STALE.python({"value": True}, 0.0, 1.0, {})[1] is None, "a boolean is not a time"


def test_a_host_lease_keeps_the_host_until_its_request_is_written(uri):
    """R4 as the server sees it: a slot taken with a host lease keeps every other reservation off
    the host while the lease lives (renewed while the request connects), and the write stamps the
    start, so the host's next slot counts from the write, not from the reservation."""
    from scrapy_walsh.store.ledger import own_key

    ledger = Ledger(store_at(uri), "pacing")
    keys, modes = ["slow.test"], [own_key(True)]
    taken = ledger.reserve(keys, 0.4, 0.01, ttl=61, modes=modes, lease=("A", 0.41))
    assert taken.wait == 0
    until = taken.now + 0.41
    for _ in range(3):  # 0.6 s of connecting, renewed every 0.2 s: past the slot's interval
        time.sleep(0.2)
        renewed = ledger.renew(keys, "A", 0.41, ttl=61)
        assert renewed.wait == 0
        until = renewed.now + 0.41
    other = Ledger(store_at(uri), "pacing")
    assert 0 < other.reserve(keys, 0.4, 0.01, ttl=61, modes=modes, lease=("B", 0.41)).wait <= 0.41
    written = ledger.confirm(keys, modes, "A", until, 0.4, 0.01, ttl=61)
    assert written.wait == 0
    entry = store_at(uri).get("pacing", "slow.test")
    assert entry["last_start"] == pytest.approx(written.now, abs=1e-3) and "sending" not in entry
    assert 0.35 < other.reserve(keys, 0.4, 0.01, ttl=61, modes=modes, lease=("B", 0.41)).wait <= 0.41


def test_a_lapsed_lease_is_written_only_if_nobody_took_the_host(uri):
    """A holder frozen past its lease finds, when it wakes, either the host still free (the write
    is the start) or another process's start (not written): never both requests."""
    from scrapy_walsh.store.ledger import own_key

    ledger = Ledger(store_at(uri), "pacing")
    keys, modes = ["frozen.test"], [own_key(True)]
    first = ledger.reserve(keys, 0.2, 0.01, ttl=61, modes=modes, lease=("A", 0.21))
    time.sleep(0.3)  # frozen: no renewal, the lease lapsed, and nobody came
    assert ledger.confirm(keys, modes, "A", first.now + 0.21, 0.2, 0.01, ttl=61).wait == 0
    time.sleep(0.25)
    second = ledger.reserve(keys, 0.2, 0.01, ttl=61, modes=modes, lease=("A2", 0.21))
    assert second.wait == 0
    time.sleep(0.3)  # frozen again; this time another process takes the host meanwhile
    other = Ledger(store_at(uri), "pacing")
    taken = other.reserve(keys, 0.2, 0.01, ttl=61, modes=modes, lease=("B", 0.21))
    assert taken.wait == 0
    refused = ledger.confirm(keys, modes, "A2", second.now + 0.21, 0.2, 0.01, ttl=61)
    assert refused.wait > 0, "a lapsed lease was written over another process's start"
    assert store_at(uri).get("pacing", "frozen.test")["last_start"] == pytest.approx(taken.now, abs=1e-3)


def test_a_request_already_written_is_stamped_even_over_another_start(uri):
    """The stamp made once a request is on the wire (``always``): a holder that stalled past its
    lease finds another process's start, which the wait reports; its own start is written all
    the same, so the host's next request counts from the later of the two."""
    from scrapy_walsh.store.ledger import own_key

    ledger = Ledger(store_at(uri), "pacing")
    keys, modes = ["stalled.test"], [own_key(True)]
    first = ledger.reserve(keys, 0.2, 0.01, ttl=61, modes=modes, lease=("A", 0.21))
    time.sleep(0.3)  # stalled between the stamp and the write: the lease lapsed
    taken = Ledger(store_at(uri), "pacing").reserve(keys, 0.2, 0.01, ttl=61, modes=modes, lease=("B", 0.21))
    assert taken.wait == 0
    time.sleep(0.05)
    late = ledger.confirm(keys, modes, "A", first.now + 0.21, 0.2, 0.01, ttl=61, always=True)
    assert late.wait > 0, "the other process's start was not reported"
    entry = store_at(uri).get("pacing", "stalled.test")
    assert entry["last_start"] == pytest.approx(late.now, abs=1e-3) and late.now > taken.now
    assert set(entry["sending"]) == {"B"}, "the late write's lease is over; the other's still holds"


def test_a_wrong_password_is_refused_at_once_never_retried_as_an_outage(tmp_path, caplog):
    """A wrong password is a refusal, not an outage: no "unreachable ... retrying" for the retry
    budget first, and the message never shows the password."""
    from scrapy_walsh.store import StateStoreError

    with RedisServer(tmp_path / "r", password="right-secret") as server:
        began = time.monotonic()
        with caplog.at_level("ERROR"), pytest.raises(StateStoreError, match="refused") as refused:
            RedisStore(server.url.replace("right-secret", "wrong-secret"), "Walsh-Research")
        assert time.monotonic() - began < 0.5
    assert "unreachable" not in caplog.text
    assert "wrong-secret" not in str(refused.value) and "wrong-secret" not in caplog.text


def test_the_time_redis_was_away_counts_from_the_call_that_found_it(tmp_path, caplog):
    """A Redis that hangs (SIGSTOP) is found away by a call that waits its socket timeout: the
    outage began when that call did, not when it gave up (a 10 s pause was reported as 4.8 s)."""
    server = RedisServer(tmp_path / "r").start()
    try:
        store = RedisStore(server.url, "Walsh-Research")
        store.set("blocklist", "x", 1)
        server.pause()
        paused = time.monotonic()
        threading.Timer(6.5, server.resume).start()
        with caplog.at_level("WARNING"):
            while True:
                try:
                    assert store.get("blocklist", "x") == 1
                    break
                except StoreUnavailable:
                    time.sleep(0.2)
        away = time.monotonic() - paused
        assert 6.5 <= away < 15
        assert store.unreachable_seconds >= 6.0, (store.unreachable_seconds, away)
        said = float(caplog.text.split("reachable again after ")[1].split(" s")[0])
        assert said >= 6.0, caplog.text
    finally:
        server.stop()


def test_a_lease_whose_answer_was_lost_is_still_the_takers(redis_server):
    """Redis wrote the lease, and its answer never came back: the claim, asked again, finds the
    lease it wrote. Before, the crawl found its own lease, took it for another fetch of the same
    target, and skipped the target (the outage test lost one of its 8 pages, once in forty runs)."""
    from scrapy_walsh.store import leases
    from tests.redis_server import RedisProxy

    with RedisProxy(redis_server.port) as proxy:
        store = store_at(proxy.url)
        leases.register(store, "crawl-1")
        proxy.cut.set()
        token = leases.take(store, "fetched", "http://a/lost-reply", "crawl-1")
        assert not proxy.cut.is_set(), "no answer was lost"
        assert token is not None, "the claim's own lease was taken for another fetch"
        assert leases.holds(store_at(redis_server.url), "fetched", "http://a/lost-reply", token)
        assert leases.take(store_at(redis_server.url), "fetched", "http://a/lost-reply", "crawl-2") is None


def test_a_kept_settle_rides_on_the_next_reservation(uri):
    """A settle kept for later (``Ledger.advance(later=True)``) costs no round trip of its own: it is written
    first, in the next operation's round trip (one sqlite transaction, one Redis pipeline), and
    a pause kept with it is not lost either."""
    store = store_at(uri)
    ledger = Ledger(store, "pacing")
    ledger.advance("warm.test", {"last_start": 0.0}, ttl=61, later=True)
    ledger.reserve("a.test", interval=1.0, ttl=61)  # (Redis loads each script once per process)
    before = _round_trips(store)
    ledger.advance("a.test", {"last_start": 0.0}, {"adaptive": 0.25}, ttl=61, later=True)
    ledger.advance("c.test", {"not_before": 30.0}, ttl=91, later=True)
    assert _round_trips(store) == before and ledger.pending == 2, "kept, not written"
    assert "adaptive" not in store.get("pacing", "a.test")
    settled, before = ledger.now(), _round_trips(store)
    taken = ledger.reserve("b.test", interval=1.0, ttl=61)
    assert taken.wait == 0 and ledger.pending == 0 and _round_trips(store) - before == 1
    entry = store.get("pacing", "a.test")
    assert entry["adaptive"] == 0.25 and entry["last_start"] == pytest.approx(settled, abs=0.05)
    assert store.get("pacing", "c.test")["not_before"] == pytest.approx(settled + 30.0, abs=0.5)
    assert ledger.reserve("c.test", interval=1.0, ttl=61).wait > 29, "the kept pause holds"


def test_a_kept_settle_is_written_by_flush_and_kept_while_the_store_is_away(redis_server):
    """``flush`` writes what was kept, in one round trip; while Redis is down the kept advances
    stay kept (never lost) and go with the first operation that reaches it."""
    import redis

    redis.Redis.from_url(redis_server.url).flushdb()
    store = store_at(redis_server.url)
    ledger = Ledger(store, "pacing")
    ledger.advance("warm.test", {"last_start": 0.0}, ttl=61, later=True)
    ledger.flush()  # one advance alone: one script (loaded once per process)
    for n in range(3):
        ledger.advance(f"h{n}.test", {"last_start": 0.0}, ttl=61, later=True)
    before = store.round_trips
    ledger.flush()
    assert store.round_trips - before == 1 and ledger.pending == 0
    assert all(store.get("pacing", f"h{n}.test")["last_start"] for n in range(3))
    ledger.advance("down.test", {"last_start": 0.0}, ttl=61, later=True)
    redis_server.stop()
    try:
        with pytest.raises(StoreUnavailable):
            ledger.flush()
        assert ledger.pending == 1
    finally:
        redis_server.start()
    ledger.reserve("other.test", interval=1.0, ttl=61)
    assert ledger.pending == 0 and store.get("pacing", "down.test")["last_start"]


def test_set_many_gives_each_entry_its_own_expiry(uri):
    """R8's record (the refetch interval) and R7's validators (30 days) in one write."""
    store = store_at(uri)
    before = _round_trips(store)
    store.set_many([("fetched", "u", 1.0, 0.5), ("validators", "u", {"etag": '"x"'}, 3600.0), ("other", "u", 2)], 1.0)
    assert _round_trips(store) - before == 1
    time.sleep(0.7)
    assert store.get("fetched", "u") is None, "its own short expiry"
    assert store.get("validators", "u") == {"etag": '"x"'} and store.get("other", "u") == 2


def test_set_many_deletes_in_its_own_write(uri):
    """A fetch's copy is stored and its claim given back in one write (one round trip, one
    transaction): a process waiting for the claim to go finds the copy at once."""
    store = store_at(uri)
    store.claim("fetching", "robots http://a", {"pid": 1}, ttl=30)
    store.set("fetching", "other", 1)
    before = _round_trips(store)
    store.set_many([("robots", "http://a", {"fetched_at": 1.0})], ttl=60, delete=[("fetching", "robots http://a")])
    assert _round_trips(store) - before == 1
    other = store_at(uri)
    assert other.get("fetching", "robots http://a") is None and other.get("robots", "http://a") == {"fetched_at": 1.0}
    assert other.get("fetching", "other") == 1, "only the keys named are deleted"
    store.set_many([], delete=[("fetching", "other")])
    assert other.get("fetching", "other") is None


def test_a_claim_unless_fresh_reads_the_copy_and_claims_only_for_a_stale_one(uri):
    """One round trip reads the stored copy and takes the fetch's claim, unless the copy was
    fetched after ``since``: then nothing is claimed, and no claim is left for others to wait on."""
    store, other = store_at(uri), store_at(uri)
    copy = ("robots", "http://a")
    before = _round_trips(store)
    assert store.claim_unless_fresh("fetching", "robots http://a", {"pid": 1}, 30, copy, 100.0) == (True, None)
    if uri.startswith("redis"):
        assert _round_trips(store) - before == 1, "one script: the read and the claim"
    assert other.claim_unless_fresh("fetching", "robots http://a", {"pid": 2}, 30, copy, 100.0) == (False, None)
    store.set_many([(*copy, {"fetched_at": 150.5})], delete=[("fetching", "robots http://a")])
    assert other.claim_unless_fresh("fetching", "robots http://a", {"pid": 2}, 30, copy, 100.0) == (
        False,
        {"fetched_at": 150.5},
    ), "a fresh copy: no claim"
    assert store.get("fetching", "robots http://a") is None
    assert other.claim_unless_fresh("fetching", "robots http://a", {"pid": 2}, 30, copy, 150.5) == (
        True,
        {"fetched_at": 150.5},
    ), "a copy fetched at ``since`` is not fresh: claimed, and the old copy read"
    store.set(*copy, "not an object")
    assert store.claim_unless_fresh("fetching", "robots http://b", {"pid": 1}, 30, copy, 0.0) == (True, "not an object")


def test_a_reservation_reads_other_hosts_in_its_round_trip(uri):
    """The queue's next pop reads hosts' shared times: a reservation reads them in its own round
    trip (``reads``; sqlite reads them after its transaction), writing nothing to them."""
    store = store_at(uri)
    ledger = Ledger(store, "pacing")
    ledger.reserve("warm.test", interval=1.0, ttl=61, reads=["b.test"])  # (Redis loads each script once)
    taken_b = Ledger(store_at(uri), "pacing").reserve("b.test", interval=1.0, ttl=61)
    before = _round_trips(store)
    taken = ledger.reserve("a.test", interval=1.0, ttl=61, reads=["b.test", "none.test"])
    assert taken.wait == 0
    if uri.startswith("redis"):
        assert _round_trips(store) - before == 1, "the reservation's script and one MGET in one pipeline"
    assert taken.read == {"b.test": {"last_start": taken_b.now}, "none.test": {}}
    assert store.get("pacing", "none.test") is None, "a read writes nothing"


def test_a_process_first_batched_step_costs_one_round_trip(redis_server):
    """A script this process has not run yet goes in the pipeline by its source: a fresh
    store's first reservation that reads ahead is one round trip, with no ``SCRIPT LOAD`` first."""
    import redis

    client = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    client.script_flush()  # a Redis that has never seen the scripts
    store = store_at(redis_server.url)
    ledger = Ledger(store, "pacing")
    before = store.round_trips
    taken = ledger.reserve("a.test", interval=1.0, margin=0.01, ttl=61, reads=["b.test"])
    assert taken.wait == 0 and store.round_trips - before == 1
    before = store.round_trips  # and by its SHA from then on
    assert ledger.reserve("a.test", interval=1.0, margin=0.01, ttl=61, reads=["b.test"]).wait > 0
    assert store.round_trips - before == 1


def test_writes_kept_for_the_next_round_trip_cost_none_of_their_own(uri):
    """``set_many_later``: with Redis the entries are kept and go first in the next round trip,
    whatever it is (a reservation, a claim, a read), and ``written`` is told once they are; the
    same key handed over again replaces what was kept. sqlite writes them at once (a local
    transaction is no round trip)."""
    store = store_at(uri)
    ledger = Ledger(store, "pacing")
    ledger.reserve("warm.test", interval=1.0, ttl=61)  # (Redis loads each script once per process)
    told = []
    before = _round_trips(store)
    store.set_many_later("a", [("fetched", "a", 1.0, 60), ("fetched_by", "a", {"s": 1}, 60)], lambda: told.append(1))
    store.set_many_later("b", [("fetched", "b", 1.0, 60)], lambda: told.append(2))
    store.set_many_later("b", [("fetched", "b", 2.0, 60)], lambda: told.append(3))
    if not isinstance(store, RedisStore):
        assert told == [1, 2, 3] and store.get("fetched", "b") == 2.0
        return
    assert _round_trips(store) == before and told == []
    assert redis.Redis.from_url(uri).keys("walsh:*:fetched*") == [], "kept, not written"
    taken = ledger.reserve("b.test", interval=1.0, ttl=61)
    assert taken.wait == 0 and _round_trips(store) - before == 1 and told == [1, 3]
    assert store.get("fetched", "a") == 1.0 and store.get("fetched_by", "a") == {"s": 1}
    assert store.get("fetched", "b") == 2.0
    store.set_many_later("c", [("fetched", "c", 1.0, 60)], lambda: told.append(4))
    before = _round_trips(store)
    assert store.get("fetched", "c") == 1.0, "a read carries them too, before it reads"
    assert _round_trips(store) - before == 1 and told == [1, 3, 4]


def test_writes_kept_for_the_next_round_trip_stay_kept_while_the_store_is_away(redis_server):
    """A round trip that fails keeps what it carried for the next one; ``write_later`` writes them
    alone, in one round trip."""
    redis.Redis.from_url(redis_server.url).flushdb()
    store = store_at(redis_server.url)
    told = []
    store.set_many_later("a", [("fetched", "a", 1.0, 60)], lambda: told.append("a"))
    redis_server.stop()
    try:
        with pytest.raises(StoreUnavailable):
            store.get("fetched", "x")
        with pytest.raises(StoreUnavailable):
            store.write_later()
        assert told == []
    finally:
        redis_server.start()
    before = store.round_trips
    store.write_later()
    assert told == ["a"] and store.round_trips - before == 1
    assert store.get("fetched", "a") == 1.0
    before = store.round_trips
    store.write_later()
    assert store.round_trips == before, "nothing kept, nothing sent"
