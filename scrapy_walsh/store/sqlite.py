"""The embedded default: one sqlite file, stdlib only.

The store records what it holds (an id inside and beside the file), so a lost or emptied file
is refused (:class:`StoreRefused`), never re-created. Every write is one WAL transaction, with
``synchronous=FULL`` only where :data:`SYNC_BY_NAMESPACE` says; ``claim`` and ``update`` run in
one ``BEGIN IMMEDIATE`` transaction. docs/state-store.md and docs/state-store-durability.md
say why.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from scrapy_walsh.store.base import (
    PAGE,
    Entry,
    Operation,
    StateStore,
    StateStoreError,
    Step,
    StoreLost,
    StoreRefused,
    Updated,
    entry_ttl,
    given,
)

T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS walsh_state (
    identity  TEXT NOT NULL,
    namespace TEXT NOT NULL,
    key       TEXT NOT NULL,
    value     TEXT NOT NULL,
    expires   REAL,
    updated   REAL NOT NULL,
    PRIMARY KEY (identity, namespace, key)
) WITHOUT ROWID
"""
#: One entry written whole (value, expiry, time); ``_upsert`` decides the expiry it passes.
UPSERT = (
    "INSERT INTO walsh_state (identity, namespace, key, value, expires, updated) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (identity, namespace, key) DO UPDATE SET "
    "value=excluded.value, expires=excluded.expires, updated=excluded.updated"
)
META = "CREATE TABLE IF NOT EXISTS walsh_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)"
BUSY_TIMEOUT_MS = 10_000
#: How each write is committed (``PRAGMA synchronous`` for that commit; docs/state-store-durability.md).
#: FULL: fsynced before the call returns (survives a power cut). NORMAL: written to the WAL
#: before the call returns, so visible to every process and kept through a ``kill -9`` or any
#: process crash, fsynced with the next FULL commit or checkpoint (a power cut can lose the
#: last few). OFF is the same as NORMAL for a process crash here (WAL, same machine).
FULL, NORMAL, OFF = "FULL", "NORMAL", "OFF"
#: Per namespace, for set/set_many/claim/delete: fetch claims are advice about cost (a lost one
#: costs a duplicate robots.txt fetch); the R8 records (the claim before a request, the fetch
#: time and its fetcher after the answer) are one per request, and a power cut could lose the
#: last ones: those pages may be fetched again after the reboot. Everything else, the
#: blocklist, robots.txt records and validators included, is FULL.
SYNC_BY_NAMESPACE: Mapping[str, str] = MappingProxyType(
    {"fetching": OFF, "fetched": NORMAL, "fetched_by": NORMAL, "crawls": NORMAL}
)


def id_file(path: Path) -> Path:
    """The file beside the store that remembers the store's id."""
    return path.with_name(path.name + ".id")


def store_files(path: Path) -> list[Path]:
    """Every file of one sqlite store: the database, its WAL and shared memory, its id file."""
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm"), id_file(path)]


def _retrying(statement: Callable[[], T]) -> T:
    """``statement()``, again while sqlite says the file is locked, for up to the busy timeout.

    The busy handler covers transactions, but switching a new file to WAL (and creating its
    tables) while another process creates the same file can fail at once with "database is
    locked". The default store is shared by every process of the identity, so crawls started
    together on a new machine would meet it."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            return statement()
        except sqlite3.OperationalError as exc:
            text = str(exc).lower()
            if ("locked" not in text and "busy" not in text) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def _identity_of(path: Path) -> tuple[int, int] | None:
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _fix_message(path: Path) -> str:
    return (
        f"refusing to start on it: the opt-outs and the pacing ledger it held would be lost silently. "
        f"If you mean to start afresh, run `scrapy walsh state reset` (removes {path} and {id_file(path).name})"
    )


class SqliteStore(StateStore):
    def __init__(
        self, path: str | Path, identity: str, uri: str | None = None, clock: Callable[[], float] | None = None
    ):
        self.path = Path(path)
        super().__init__(uri or f"sqlite:///{self.path}", identity, **({"clock": clock} if clock else {}))
        #: operation counts: read queries, keys read, write transactions
        self.counts = {"reads": 0, "keys_read": 0, "transactions": 0}
        remembered = self._remembered_id()
        try:
            size = self.path.stat().st_size if self.path.exists() else None
        except OSError:
            size = None
        if remembered is not None and not size:
            state = "missing" if size is None else "empty (0 bytes)"
            raise StoreRefused(
                f"state store {self.path} was initialised (id {remembered}) and is now {state}: "
                + _fix_message(self.path)
            )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, one per write.
            # check_same_thread=False: components open the store in the main thread, and
            # `scrapy shell` then runs the reactor, which uses it, in another; one thread
            # uses it at a time (the reactor's), so sqlite's own serialisation suffices.
            self._db = sqlite3.connect(
                self.path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False
            )
            self._db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            mode = _retrying(lambda: self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0])
            if mode.lower() != "wal":
                raise StateStoreError(f"{self.uri}: sqlite refused WAL mode (got {mode!r})")
            self._db.execute("PRAGMA synchronous=FULL")
            #: the connection's current PRAGMA synchronous (switched per transaction kind)
            self._sync = FULL
            _retrying(lambda: self._db.execute(SCHEMA))
            _retrying(lambda: self._db.execute(META))
            self.store_id = self._own_id(remembered)
            #: the file this store opened: one removed or replaced while the crawl runs is a lost store
            self._file = _identity_of(self.path)
            self._db.execute("DELETE FROM walsh_state WHERE expires IS NOT NULL AND expires <= ?", (self.clock(),))
        except StoreRefused:
            self._db.close()
            raise
        except (sqlite3.Error, OSError) as exc:
            if remembered is not None and isinstance(exc, sqlite3.DatabaseError):
                raise StoreRefused(
                    f"state store {self.path} (id {remembered}) is unreadable ({exc}): {_fix_message(self.path)}"
                ) from exc
            raise StateStoreError(f"cannot open the state store {self.uri}: {exc}") from exc

    def _remembered_id(self) -> str | None:
        try:
            return id_file(self.path).read_text().strip() or None
        except OSError:
            return None

    def _own_id(self, remembered: str | None) -> str:
        """The store's id: created with the store, checked against the id file."""
        with self._transaction():
            row = self._db.execute("SELECT value FROM walsh_meta WHERE name='id'").fetchone()
            if row is None:
                has_data = self._db.execute("SELECT 1 FROM walsh_state LIMIT 1").fetchone() is not None
                if remembered is not None and not has_data:
                    raise StoreRefused(
                        f"state store {self.path} was initialised (id {remembered}) and is now a new, empty "
                        f"database: {_fix_message(self.path)}"
                    )
                # a new store, or one written before ids existed: it gets an id now
                found = remembered or uuid.uuid4().hex
                self._db.execute("INSERT INTO walsh_meta (name, value) VALUES ('id', ?)", (found,))
            else:
                found = row[0]
        if remembered is not None and remembered != found:
            raise StoreRefused(
                f"state store {self.path} holds store {found}, not {remembered}, the one created here "
                f"(replaced by another file): {_fix_message(self.path)}"
            )
        if remembered is None:
            # a name of its own: processes creating the store at once each write theirs (same id)
            tmp = id_file(self.path).with_name(f"{id_file(self.path).name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
            tmp.write_text(found + "\n")
            tmp.replace(id_file(self.path))
        return found

    def get(self, namespace: str, key: str, default: Any = None) -> Any:
        self.counts["keys_read"] += 1
        row = self._query(
            "SELECT value FROM walsh_state WHERE identity=? AND namespace=? AND key=? "
            "AND (expires IS NULL OR expires > ?)",
            (self.identity, namespace, key, self.clock()),
        ).fetchone()
        return default if row is None else json.loads(row[0])

    def set(self, namespace: str, key: str, value: Any, ttl: float | None = None) -> None:
        self.set_many([(namespace, key, value)], ttl)

    def set_many(
        self, entries: Sequence[Entry], ttl: float | None = None, delete: Sequence[tuple[str, str]] = ()
    ) -> None:
        """One transaction, fsynced unless every namespace is in :data:`SYNC_BY_NAMESPACE`."""
        rows = [
            (entry[0], entry[1], json.dumps(entry[2], separators=(",", ":"), ensure_ascii=False), entry_ttl(entry, ttl))
            for entry in entries
        ]
        if not rows and not delete:
            return
        namespaces = [row[0] for row in rows] + [namespace for namespace, _ in delete]
        modes = {SYNC_BY_NAMESPACE.get(namespace, FULL) for namespace in namespaces}
        sync = FULL if FULL in modes else NORMAL if NORMAL in modes else OFF
        with self._transaction(sync) as now:
            self._db.executemany(
                UPSERT,
                [
                    (self.identity, namespace, key, encoded, None if expiry is None else now + expiry, now)
                    for namespace, key, encoded, expiry in rows
                ],
            )
            self._db.executemany(
                "DELETE FROM walsh_state WHERE identity=? AND namespace=? AND key=?",
                [(self.identity, namespace, key) for namespace, key in delete],
            )

    def delete(self, namespace: str, key: str) -> None:
        self._write(
            "DELETE FROM walsh_state WHERE identity=? AND namespace=? AND key=?",
            (self.identity, namespace, key),
            sync=SYNC_BY_NAMESPACE.get(namespace, FULL),
        )

    def items(self, namespace: str) -> Iterator[tuple[str, Any]]:
        rows = self._query(
            "SELECT key, value FROM walsh_state WHERE identity=? AND namespace=? "
            "AND (expires IS NULL OR expires > ?) ORDER BY key",
            (self.identity, namespace, self.clock()),
        ).fetchall()
        self.counts["keys_read"] += len(rows)
        for key, value in rows:
            yield key, json.loads(value)

    def pages(self, namespace: str, prefix: str = "", size: int = PAGE) -> Iterator[list[tuple[str, Any]]]:
        """Each page one read of a range of the table's key (keyset: after the last key read)."""
        above, after = prefix, ">="
        below = prefix[:-1] + chr(ord(prefix[-1]) + 1) if prefix else None  # UTF-8 sorts as code points
        while True:
            rows = self._query(
                f"SELECT key, value FROM walsh_state WHERE identity=? AND namespace=? AND key {after} ? "
                f"{'AND key < ? ' if below else ''}AND (expires IS NULL OR expires > ?) ORDER BY key LIMIT ?",
                (self.identity, namespace, above, *([below] if below else []), self.clock(), size),
            ).fetchall()
            self.counts["keys_read"] += len(rows)
            if rows:
                yield [(key, json.loads(value)) for key, value in rows]
            if len(rows) < size:
                return
            above, after = rows[-1][0], ">"

    def get_many(self, namespace: str, keys: Iterable[str]) -> dict[str, Any]:
        keys = list(keys)
        self.counts["keys_read"] += len(keys)
        found: dict[str, Any] = {}
        for start in range(0, len(keys), 500):  # under sqlite's bound-parameter limit
            chunk = keys[start : start + 500]
            rows = self._query(
                f"SELECT key, value FROM walsh_state WHERE identity=? AND namespace=? "
                f"AND key IN ({','.join('?' * len(chunk))}) AND (expires IS NULL OR expires > ?)",
                (self.identity, namespace, *chunk, self.clock()),
            ).fetchall()
            found.update((key, json.loads(value)) for key, value in rows)
        return found

    def update_all(
        self,
        namespace: str,
        keys: Sequence[str],
        operation: Operation,
        args: Sequence[Any] = (),
        ttl: float | None = None,
        fsync: bool = True,
    ) -> Updated:
        return self.update_batch([Step(namespace, tuple(keys), operation, tuple(args), ttl)], fsync)[0]

    def update_batch(self, steps: Sequence[Step], fsync: bool = True) -> list[Updated]:
        """Every step in one ``BEGIN IMMEDIATE`` transaction: all or nothing."""
        with self._transaction(FULL if fsync else NORMAL) as now:
            return [self._update(step, now) for step in steps]

    def _update(self, step: Step, now: float) -> Updated:
        """One step inside the open transaction (:meth:`StateStore.update_all`'s rule)."""
        namespace, keys, operation = step.namespace, step.keys, step.operation
        self.counts["keys_read"] += len(keys)
        found = [self._read(namespace, key, now) for key in keys]
        changed = [
            operation.python(given(value, operation), now, *((i,) if operation.indexed else ()), *step.args)
            for i, (value, _) in enumerate(found)
        ]
        result = max(float(r) for r, _ in changed)
        if all(new is not None for _, new in changed):
            for key, (_, expires), (_, new) in zip(keys, found, changed):
                self._upsert(namespace, key, new, now, step.ttl, expires)
            first = changed[0][1]
        else:
            first = found[0][0]
        return Updated(result, first if isinstance(first, dict) else {}, now)

    def claim(self, namespace: str, key: str, value: Any, ttl: float | None = None) -> bool:
        with self._transaction(SYNC_BY_NAMESPACE.get(namespace, FULL)) as now:
            if self._read(namespace, key, now)[1] is not False:
                return False
            self._upsert(namespace, key, value, now, ttl, False)
            return True

    def check(self) -> None:
        """The file at the store's path is still the one it opened (not removed, not replaced)."""
        if _identity_of(self.path) != self._file:
            raise self.failed(
                StoreLost(
                    f"state store {self.path} was removed or replaced while the crawl ran (store {self.store_id}): "
                    "the opt-outs and the pacing ledger the next crawl reads are not the ones this crawl writes"
                )
            )

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _transaction(self, sync: str = FULL) -> Iterator[float]:
        """One ``BEGIN IMMEDIATE`` transaction (the write lock first); yields now.

        ``sync`` other than FULL commits without waiting for the fsync: the next FULL
        commit's (or checkpoint's) fsync covers it, since the WAL is written in order. The
        connection's ``PRAGMA synchronous`` is switched only when the mode changes (two
        statements fewer per transaction of a run of the same kind)."""
        name = "transactions" if sync == FULL else "unsynced_transactions"
        try:
            if sync != self._sync:
                self._db.execute(f"PRAGMA synchronous={sync}")
                self._sync = sync
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self.clock()
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            self.counts[name] = self.counts.get(name, 0) + 1
        except sqlite3.Error as exc:
            raise self.failed(StateStoreError(f"state store {self.uri}: write failed: {exc}")) from exc

    def _read(self, namespace: str, key: str, now: float) -> tuple[Any, float | None | bool]:
        """``(value, expires)`` of a live entry, or ``({}, False)`` when there is none."""
        row = self._db.execute(
            "SELECT value, expires FROM walsh_state WHERE identity=? AND namespace=? AND key=? "
            "AND (expires IS NULL OR expires > ?)",
            (self.identity, namespace, key, now),
        ).fetchone()
        return ({}, False) if row is None else (json.loads(row[0]), row[1])

    def _upsert(
        self, namespace: str, key: str, value: Any, now: float, ttl: float | None, expires: float | None | bool
    ) -> None:
        """Write inside the open transaction; an existing expiry is never shortened."""
        new = None if ttl is None else now + ttl
        if expires is None or (new is not None and expires is not False and expires > new):
            new = None if expires is None else expires
        encoded = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        self._db.execute(
            UPSERT,
            (self.identity, namespace, key, encoded, new, now),
        )

    def _query(self, sql: str, params: tuple) -> sqlite3.Cursor:
        self.counts["reads"] += 1
        try:
            return self._db.execute(sql, params)
        except sqlite3.Error as exc:
            raise self.failed(StateStoreError(f"state store {self.uri}: {exc}")) from exc

    def _write(self, sql: str, params: tuple, sync: str = FULL) -> None:
        with self._transaction(sync):
            self._db.execute(sql, params)
