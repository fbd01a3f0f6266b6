"""The state store on a real sqlite file: expiry, namespacing, restarts, and kill -9."""

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from scrapy_walsh.store import SqliteStore, StateStoreError, open_store, parse_state_uri


class Clock:
    def __init__(self, t=1_000_000.0):
        self.t = t

    def __call__(self):
        return self.t


def test_values_round_trip_as_json_and_expire(tmp_path):
    clock = Clock()
    store = SqliteStore(tmp_path / "s.sqlite3", "Walsh-Research", clock=clock)
    store.set("robots", "http://a:80", {"outcome": "available", "n": [1, 2]}, ttl=10)
    store.set("blocklist", "u", "forever")
    assert store.get("robots", "http://a:80") == {"outcome": "available", "n": [1, 2]}
    clock.t += 9.9
    assert store.get("robots", "http://a:80")["n"] == [1, 2]
    clock.t += 0.1
    assert store.get("robots", "http://a:80") is None
    assert store.get("robots", "http://a:80", "gone") == "gone"
    assert store.get("blocklist", "u") == "forever"
    store.set("blocklist", "u", "replaced")
    assert list(store.items("blocklist")) == [("u", "replaced")]
    store.delete("blocklist", "u")
    assert list(store.items("blocklist")) == []


def test_state_survives_a_restart_and_identities_do_not_share(tmp_path):
    path = tmp_path / "deep" / "dir" / "s.sqlite3"
    store = SqliteStore(path, "Walsh-Research")
    store.set("blocklist", "u", {"document": {"blocked": []}})
    store.close()
    again = SqliteStore(path, "walsh-research")  # the token is case-insensitive
    assert again.get("blocklist", "u") == {"document": {"blocked": []}}
    other = SqliteStore(path, "OtherBot")
    assert other.get("blocklist", "u") is None
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_an_unwritable_location_fails_loudly(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(StateStoreError, match="cannot open the state store"):
        SqliteStore(blocker / "s.sqlite3", "Walsh-Research")
    corrupt = tmp_path / "corrupt.sqlite3"
    corrupt.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StateStoreError, match="corrupt.sqlite3"):
        SqliteStore(corrupt, "Walsh-Research")


def test_open_store_follows_the_uri(tmp_path):
    store = open_store(parse_state_uri(f"sqlite:///{tmp_path}/x.sqlite3", "unused"), "Walsh-Research")
    store.set("n", "k", 1)
    assert (tmp_path / "x.sqlite3").exists()


WRITER = textwrap.dedent("""
    import hashlib, sys
    from scrapy_walsh.store import SqliteStore
    store = SqliteStore(sys.argv[1], "Walsh-Research")
    i = 0
    while True:
        i += 1
        pad = str(i) * 20000
        store.set("ledger", "host", {"i": i, "pad": pad, "sha": hashlib.sha256(pad.encode()).hexdigest()})
        print(i, flush=True)
""")


def test_kill_9_mid_write_loses_nothing_committed(tmp_path):
    path = tmp_path / "s.sqlite3"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True)
    last = 0
    assert writer.stdout is not None
    while last < 40:
        last = int(writer.stdout.readline())
    os.kill(writer.pid, signal.SIGKILL)  # mid-way through a later write, most likely
    writer.wait()
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    value = SqliteStore(path, "Walsh-Research").get("ledger", "host")
    assert value["i"] >= last, "a write reported as done was lost"
    assert hashlib.sha256(value["pad"].encode()).hexdigest() == value["sha"], "a torn value"
