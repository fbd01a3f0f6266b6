"""The fleet operations of the state store (reserve, advance, claim, get_many), on both
backends: a real sqlite file and a real redis-server. Races are real processes."""

import subprocess
import sys
import textwrap
import threading
import time

import pytest

from scrapy_walsh.store import open_store, parse_state_uri
from scrapy_walsh.store.redis import RedisStore

from ..redis_server import RedisServer


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
    first = store.reserve("pacing", "a.test", interval=1.0, margin=0.01, assign={"crawl_delay": None}, ttl=61)
    assert first.wait == 0 and first.value["last_start"] == pytest.approx(first.now, abs=1e-3)
    second = store.reserve("pacing", "a.test", interval=1.0, margin=0.01, ttl=61)
    assert 0.95 < second.wait <= 1.01, second
    assert second.value["last_start"] == first.value["last_start"], "a refused reserve changed the entry"
    assert store.reserve("pacing", "b.test", interval=1.0).wait == 0, "hosts are independent"
    assert store.get("pacing", "a.test")["crawl_delay"] is None


def test_a_pause_never_shortens_and_holds_reserve(uri):
    store = store_at(uri)
    store.advance("pacing", "h", {"not_before": 5.0}, ttl=70)
    shorter = store.advance("pacing", "h", {"not_before": 1.0}, assign={"adaptive": 0.5}, ttl=10)
    assert shorter.value["not_before"] == pytest.approx(shorter.now + 5.0, abs=0.2)
    assert shorter.value["adaptive"] == 0.5
    assert 4.5 < store.reserve("pacing", "h", interval=1.0).wait <= 5.0


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
        }


RACER = textwrap.dedent("""
    import sys, time
    from scrapy_walsh.store import open_store, parse_state_uri
    store = open_store(parse_state_uri(sys.argv[1], "unused"), "Walsh-Research")
    print("ready", flush=True)
    start = float(sys.stdin.readline())
    time.sleep(max(0.0, start - time.time()))
    while time.time() < start + 2.0:
        slot = store.reserve("pacing", "race.test", interval=0.2, ttl=60)
        if slot.wait == 0:
            print(repr(slot.now), flush=True)
        else:
            time.sleep(min(slot.wait, 0.05) * (0.5 + (hash(time.time()) % 100) / 100))
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
