"""Appending to the journal (no Scrapy): one file per process per UTC day, batched fsync, retention.

Each entry is one ``write`` of an unbuffered file; ``fsync`` runs at most once per
:data:`SYNC_EVERY` entries or :data:`SYNC_SECONDS`, in a thread of its own. The files of one
identity on one machine form one chain (:class:`ChainTip`); retention keeps whole days.
docs/journal.md ("Where it lives, and how it grows") says why.
"""

from __future__ import annotations

import datetime
import errno
import fcntl
import json
import os
import secrets
import shutil
import socket
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path
from typing import Any

from scrapy_walsh.journal.chain import FORMAT, SUFFIX, Chain, entries, line_hash, verify_lines

#: At most one fsync per this many entries ...
SYNC_EVERY = 100
#: ... or per this many seconds, whichever comes first.
SYNC_SECONDS = 1.0
#: The tail of a file read for its last entry (an entry is a few KiB at most).
TAIL_BYTES = 65536


def day_of(t: float) -> str:
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d")


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
        #: This machine, in the ``open`` entry: one chain per identity per machine
        self.machine = socket.gethostname()
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
        #: the thread the batched fsyncs run in (made at the first), and the ones not yet waited for
        self._syncer: ThreadPoolExecutor | None = None
        self._syncing: list[Future[None]] = []
        #: the marker that says this process writes its file (a later start recovers it if we die)
        self._live: Live | None = None

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
        self._release()

    def sync(self) -> None:
        """Every entry written so far on disk when this returns (the batched fsyncs included)."""
        self._wait_for_syncs()
        if self._fd is not None and self._unsynced:
            os.fsync(self._fd)
            self._synced()

    def _sync_later(self, fd: int) -> None:
        """The batched fsync, in the writer's thread; one that failed raises at the next."""
        finished = [future for future in self._syncing if future.done()]
        self._syncing = [future for future in self._syncing if not future.done()]
        for future in finished:
            future.result()
        if self._syncer is None:
            self._syncer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="walsh-journal-fsync")
        self._syncing.append(self._syncer.submit(os.fsync, fd))
        self._synced()

    def _wait_for_syncs(self) -> None:
        """Every batched fsync run (the first one's error raised), and the thread gone."""
        syncing, self._syncing = self._syncing, []
        try:
            for future in syncing:
                future.result()
        finally:
            if self._syncer is not None:
                self._syncer.shutdown()
                self._syncer = None

    def _synced(self) -> None:
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
        line = self.chain.line(fields, self.key if signed else None) + b"\n"
        if os.write(self._fd, line) != len(line):
            # a full disk takes part of a line: a torn entry, and nothing more is written after it
            raise OSError(errno.ENOSPC, "the journal's disk took part of an entry only")
        self.entries += 1
        self._unsynced += 1
        if self._unsynced >= self.sync_every or self.clock() - self._last_sync >= self.sync_seconds:
            self._sync_later(self._fd)

    def _open(self, now: float) -> None:
        if self._fd is not None:  # the day changed: close this file; the next one continues the chain
            self.sign_head(now)
            self.sync()
            os.close(self._fd)
            self._fd = None
            self._release()
        self._day = day_of(now)
        self._day_start = datetime.datetime.fromisoformat(self._day).replace(tzinfo=datetime.timezone.utc).timestamp()
        folder = self.directory / self._day
        folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.datetime.fromtimestamp(now, datetime.timezone.utc).strftime("%H%M%S")
        path = folder / f"{self.pid}-{stamp}-{secrets.token_hex(3)}{SUFFIX}"
        with ChainTip(self.directory, self.identity, self.machine) as tip:
            # under the tip's lock: two processes opening files at once still make one chain
            after = tip.head()
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
            self.path = path
            self.chain = Chain()
            self._write(
                {
                    "kind": "open",
                    "t": round(now, 6),
                    "pid": self.pid,
                    "format": FORMAT,
                    "identity": self.identity,
                    "machine": self.machine,
                    "file": self._relative(path),
                    "chain": tip.chain,
                    "after": after,
                }
            )
            tip.move_to(self._relative(path))
            self._live = tip.live(self._relative(path))
            for crashed in tip.crashed(self._relative(path)):
                self._recover(crashed, now)
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

    def _recover(self, crashed: str, now: float) -> None:
        """Vouch, signed, for the unsigned tail of a file whose writer died (kill -9, a power cut):
        its entries up to the last whole one, by seq and hash, and when it crashed."""
        report = verify_lines(crashed, _read(self.directory / crashed), None)
        last = report.last or {}
        signed = _last_signed(self.directory / crashed)
        if report.broken is not None or report.close_seq or signed >= report.seq:
            return  # closed, fully signed, or broken: nothing a recovery may vouch for
        fields = {"kind": "recovery", "t": round(now, 6), "pid": self.pid, "file": crashed, "from": signed + 1}
        fields |= {"to": report.seq, "head": report.head, "crashed": last.get("t"), "torn": report.torn_tail}
        self._write(fields, signed=self.key is not None)

    def _release(self) -> None:
        """This process's file is complete: no later start recovers it."""
        if self._live is not None:
            self._live.release()
            self._live = None

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


class ChainTip:
    """Which file of an identity on this machine was opened last: the next file's ``open`` entry
    names that file's head, so the files of every process and every day form one chain, and a
    whole file deleted, replaced or moved breaks it. Kept in ``<dir>/.chains/<identity>@<machine>``
    (the file's name, then the chain's id, a line each), read and moved under an exclusive lock
    (``flock``). Beside it, ``<identity>@<machine>.live/`` marks the files being written: one whose
    writer died is recovered by the next start (:meth:`crashed`)."""

    def __init__(self, directory: Path, identity: str, machine: str):
        self.directory = directory
        folder = directory / ".chains"
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{_safe(identity)}@{_safe(machine)}"
        self._fd = -1
        self.chain = ""

    def __enter__(self) -> ChainTip:
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self._fd)  # closing releases the lock

    def head(self) -> dict[str, Any] | None:
        """The last opened file and its last whole entry now (seq, hash); None for a new chain."""
        lines = os.pread(self._fd, 4096, 0).decode("utf-8", "replace").split("\n")
        name = lines[0].strip()
        # a chain's id, made when its tip is: a second chain on one machine says it is a new one
        self.chain = lines[1].strip() if len(lines) > 1 and lines[1].strip() else secrets.token_hex(8)
        if not name:
            return None
        line = _last_line(self.directory / name)
        if line is None:  # gone (a retention's deleted day, or removed): verify says which
            return {"file": name, "seq": 0, "head": None}
        try:
            seq = json.loads(line).get("seq", 0)
        except ValueError:
            seq = 0
        return {"file": name, "seq": seq, "head": line_hash(line)}

    def move_to(self, name: str) -> None:
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, f"{name}\n{self.chain}\n".encode(), 0)
        os.fsync(self._fd)

    def live(self, name: str) -> Live:
        return Live(self.path.with_name(self.path.name + ".live"), name)

    def crashed(self, own: str) -> list[str]:
        """The files whose writer died before completing them (its marker's lock is free)."""
        folder = self.path.with_name(self.path.name + ".live")
        found = []
        for marker in sorted(folder.iterdir()) if folder.is_dir() else []:
            try:
                fd = os.open(marker, os.O_RDONLY)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # its writer is alive
            finally:
                name = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip()
                os.close(fd)
            if name and name != own:
                found.append(name)
            with suppress(OSError):
                marker.unlink()
        return found


class Live:
    """A marker held (``flock``) while a process writes its file; released when the file is complete."""

    def __init__(self, folder: Path, name: str):
        folder.mkdir(exist_ok=True)
        self.path = folder / f"{_safe(name)}.marker"
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        os.write(self._fd, name.encode("utf-8") + b"\n")

    def release(self) -> None:
        with suppress(OSError):
            self.path.unlink()
        os.close(self._fd)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _last_signed(path: Path) -> int:
    """The seq of the file's last entry carrying a signature (0: none)."""
    last = 0
    for entry in entries(_read(path)):
        if "sig" in entry and isinstance(entry.get("seq"), int):
            last = entry["seq"]
    return last


def _last_line(path: Path) -> bytes | None:
    """The last whole line of a journal file (a torn tail is not one), None when it has none."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            start = max(0, size - TAIL_BYTES)
            handle.seek(start)
            data = handle.read()
            if start and data.count(b"\n") < 2:
                handle.seek(0)
                data = handle.read()
    except OSError:
        return None
    lines = data.split(b"\n")[:-1]  # what follows the last newline is torn, or nothing
    return lines[-1] if lines and lines[-1] else None


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "_"


def _is_day(name: str) -> bool:
    try:
        datetime.date.fromisoformat(name)
    except ValueError:
        return False
    return len(name) == 10
