"""The embedded default: one sqlite file, stdlib only.

Every ``set`` is its own transaction in WAL mode with ``synchronous=FULL``, so a
``kill -9`` (or a power cut) at any instant leaves either the old value or the new
one, never a torn row, and a committed value is on disk before ``set`` returns.
Several processes may share the file; writers wait up to ``busy_timeout``. The atomic
operations (``claim``, and ``update``, which runs a ledger operation's Python) read and
write inside one ``BEGIN IMMEDIATE`` transaction, which takes the write lock before
reading, so two processes on one machine sharing the file can never take the same
pacing slot.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .base import Operation, StateStore, StateStoreError, Updated

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
BUSY_TIMEOUT_MS = 10_000


class SqliteStore(StateStore):
    def __init__(
        self, path: str | Path, identity: str, uri: str | None = None, clock: Callable[[], float] | None = None
    ):
        self.path = Path(path)
        super().__init__(uri or f"sqlite:///{self.path}", identity, **({"clock": clock} if clock else {}))
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
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise StateStoreError(f"{self.uri}: sqlite refused WAL mode (got {mode!r})")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute(SCHEMA)
            self._db.execute("DELETE FROM walsh_state WHERE expires IS NOT NULL AND expires <= ?", (self.clock(),))
        except (sqlite3.Error, OSError) as exc:
            raise StateStoreError(f"cannot open the state store {self.uri}: {exc}") from exc

    def get(self, namespace: str, key: str, default: Any = None) -> Any:
        row = self._query(
            "SELECT value FROM walsh_state WHERE identity=? AND namespace=? AND key=? "
            "AND (expires IS NULL OR expires > ?)",
            (self.identity, namespace, key, self.clock()),
        ).fetchone()
        return default if row is None else json.loads(row[0])

    def set(self, namespace: str, key: str, value: Any, ttl: float | None = None) -> None:
        now = self.clock()
        encoded = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        self._write(
            "INSERT INTO walsh_state (identity, namespace, key, value, expires, updated) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (identity, namespace, key) DO UPDATE SET "
            "value=excluded.value, expires=excluded.expires, updated=excluded.updated",
            (self.identity, namespace, key, encoded, None if ttl is None else now + ttl, now),
        )

    def delete(self, namespace: str, key: str) -> None:
        self._write(
            "DELETE FROM walsh_state WHERE identity=? AND namespace=? AND key=?", (self.identity, namespace, key)
        )

    def items(self, namespace: str) -> Iterator[tuple[str, Any]]:
        rows = self._query(
            "SELECT key, value FROM walsh_state WHERE identity=? AND namespace=? "
            "AND (expires IS NULL OR expires > ?) ORDER BY key",
            (self.identity, namespace, self.clock()),
        ).fetchall()
        for key, value in rows:
            yield key, json.loads(value)

    def get_many(self, namespace: str, keys: Iterable[str]) -> dict[str, Any]:
        keys = list(keys)
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

    def update(
        self, namespace: str, key: str, operation: Operation, args: Sequence[Any] = (), ttl: float | None = None
    ) -> Updated:
        with self._transaction() as now:
            value, expires = self._read(namespace, key, now)
            if not isinstance(value, dict):
                value = {}
            result, new = operation.python(value, now, *args)
            if new is not None:
                self._upsert(namespace, key, new, now, ttl, expires)
                value = new
            return Updated(float(result), value, now)

    def claim(self, namespace: str, key: str, value: Any, ttl: float | None = None) -> bool:
        with self._transaction() as now:
            if self._read(namespace, key, now)[1] is not False:
                return False
            self._upsert(namespace, key, value, now, ttl, False)
            return True

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[float]:
        """One ``BEGIN IMMEDIATE`` transaction (the write lock first); yields now."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self.clock()
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise StateStoreError(f"state store {self.uri}: write failed: {exc}") from exc

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
            "INSERT INTO walsh_state (identity, namespace, key, value, expires, updated) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (identity, namespace, key) DO UPDATE SET "
            "value=excluded.value, expires=excluded.expires, updated=excluded.updated",
            (self.identity, namespace, key, encoded, new, now),
        )

    def _query(self, sql: str, params: tuple) -> sqlite3.Cursor:
        try:
            return self._db.execute(sql, params)
        except sqlite3.Error as exc:
            raise StateStoreError(f"state store {self.uri}: {exc}") from exc

    def _write(self, sql: str, params: tuple) -> None:
        with self._transaction():
            self._db.execute(sql, params)
