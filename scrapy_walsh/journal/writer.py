"""Appending to the journal (no Scrapy): one file per process per UTC day, batched fsync, retention.

Layout: ``<dir>/<YYYY-MM-DD>/<pid>-<HHMMSS>-<nonce>.jsonl``. Each entry is one ``write`` of an
unbuffered file, so a process killed with ``kill -9`` loses nothing the kernel has; ``fsync``
(what a power cut would otherwise lose) runs at most once per :data:`SYNC_EVERY` entries or
per :data:`SYNC_SECONDS`, whichever comes first, and at close. When the day changes the writer
opens the new day's file, whose ``open`` entry names the last entry of the previous one
(``after``), so ``journal verify DIR`` notices a missing day file.

Retention keeps whole days: at open, day directories older than ``retention_days`` are deleted,
and a ``retention`` entry in the new chain says which.
"""

from __future__ import annotations

import datetime
import os
import secrets
import shutil
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

from .chain import FORMAT, SUFFIX, Chain

#: At most one fsync per this many entries ...
SYNC_EVERY = 100
#: ... or per this many seconds, whichever comes first.
SYNC_SECONDS = 1.0


def day_of(t: float) -> str:
    return datetime.datetime.fromtimestamp(t, datetime.UTC).strftime("%Y-%m-%d")


class JournalWriter:
    def __init__(
        self,
        directory: Path,
        identity: str,
        *,
        key: Any = None,
        sign_every: int = 1000,
        retention_days: int = 90,
        clock: Callable[[], float] = time.time,
        sync_every: int = SYNC_EVERY,
        sync_seconds: float = SYNC_SECONDS,
    ):
        self.directory = Path(directory)
        self.identity = identity
        self.key = key
        self.sign_every = sign_every
        self.retention_days = retention_days
        self.clock = clock
        self.sync_every, self.sync_seconds = sync_every, sync_seconds
        self.pid = os.getpid()
        self.fsyncs = 0
        self.entries = 0
        self._fd: int | None = None
        self._day = ""
        self._day_start = 0.0
        self.path: Path | None = None
        self.chain = Chain()
        self._unsynced = 0
        self._last_sync = clock()
        self._since_head = 0

    # ------------------------------------------------------------------ appending

    def append(self, kind: str, **fields: Any) -> None:
        now = fields.pop("t", None) or self.clock()
        if self._fd is None or not self._day_start <= now < self._day_start + 86400:
            self._open(now)
        self._write({"kind": kind, "t": round(now, 6), "pid": self.pid, **fields})
        self._since_head += 1
        if self.key is not None and self._since_head >= self.sign_every:
            self.sign_head(now)

    def sign_head(self, now: float | None = None) -> str:
        """Append a signed ``head`` entry (it vouches for every entry before it); its hash."""
        if self.key is None or self._fd is None:
            return self.chain.head
        self._write({"kind": "head", "t": round(now or self.clock(), 6), "pid": self.pid}, signed=True)
        self._since_head = 0
        return self.chain.head

    def close(self) -> None:
        if self._fd is None:
            return
        self._write({"kind": "close", "t": round(self.clock(), 6), "pid": self.pid, "entries": self.entries})
        self.sign_head()
        self.sync()
        os.close(self._fd)
        self._fd = None

    def sync(self) -> None:
        if self._fd is not None and self._unsynced:
            os.fsync(self._fd)
            self.fsyncs += 1
            self._unsynced = 0
            self._last_sync = self.clock()

    def head(self) -> dict[str, Any]:
        """Where the chain stands: file, seq and hash of its last entry (for the attestation)."""
        return {
            "file": self._relative(self.path) if self.path else None,
            "seq": self.chain.seq,
            "head": self.chain.head,
        }

    # ------------------------------------------------------------------ files

    def _write(self, fields: dict[str, Any], signed: bool = False) -> None:
        assert self._fd is not None
        line = self.chain.line(fields, self.key if signed else None)
        os.write(self._fd, line + b"\n")
        self.entries += 1
        self._unsynced += 1
        if self._unsynced >= self.sync_every or self.clock() - self._last_sync >= self.sync_seconds:
            self.sync()

    def _open(self, now: float) -> None:
        after = None
        if self._fd is not None:  # the day changed: close this file, link the next to it
            self.sign_head(now)
            self.sync()
            os.close(self._fd)
            after = self.head()
        self._day = day_of(now)
        self._day_start = datetime.datetime.fromisoformat(self._day).replace(tzinfo=datetime.UTC).timestamp()
        folder = self.directory / self._day
        folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.datetime.fromtimestamp(now, datetime.UTC).strftime("%H%M%S")
        self.path = folder / f"{self.pid}-{stamp}-{secrets.token_hex(3)}{SUFFIX}"
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        self.chain = Chain()
        self._write(
            {
                "kind": "open",
                "t": round(now, 6),
                "pid": self.pid,
                "format": FORMAT,
                "identity": self.identity,
                "after": after,
            }
        )
        deleted = self._expire(now)
        if deleted:
            self._write(
                {
                    "kind": "retention",
                    "t": round(now, 6),
                    "pid": self.pid,
                    "days": self.retention_days,
                    "deleted_days": deleted,
                }
            )
        self.sync()  # the file and its directory entry survive a power cut from the start
        with suppress(OSError):
            dir_fd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)

    def _expire(self, now: float) -> list[str]:
        """Delete whole day directories older than the retention; the days deleted."""
        cutoff = day_of(now - self.retention_days * 86400)
        deleted = []
        for folder in sorted(self.directory.iterdir()):
            name = folder.name
            if folder.is_dir() and _is_day(name) and name < cutoff:
                shutil.rmtree(folder, ignore_errors=True)
                deleted.append(name)
        return deleted

    def _relative(self, path: Path) -> str:
        return str(path.relative_to(self.directory))


def _is_day(name: str) -> bool:
    try:
        datetime.date.fromisoformat(name)
    except ValueError:
        return False
    return len(name) == 10
