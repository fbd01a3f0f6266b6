"""What this machine keeps beside the state store, in the per-user state directory.

The store is shared; a few things must not depend on it: the crawls running here (one
``flock``-ed file each, :func:`running_here`), one identity one ledger (:func:`register`), the
ids of the Redis stores used here, and the last adopted operator blocklist (R3).
docs/state-store.md ("What the machine keeps beside the store") says why.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scrapy_walsh.config import state_dir
from scrapy_walsh.policy.vocabulary import docs_topic
from scrapy_walsh.store.base import StateStoreError

#: The kernel's boot id: equal for every process (container or not) that shares this kernel, so
#: a lock file it finds unlocked tells it the holder is gone. Another machine sharing the state
#: directory over the network says nothing by its lock.
BOOT_ID_PATH = "/proc/sys/kernel/random/boot_id"


def boot_id() -> str:
    try:
        return Path(BOOT_ID_PATH).read_text().strip()
    except OSError:
        return socket.gethostname()


def crawls_dir() -> Path:
    return state_dir() / "crawls"


#: The file of a crawl that ended without removing it (``kill -9``) stays this long after its last
#: heartbeat (its time of change): longer than a store keeps that crawl's record, so while the
#: record lives the file still says, at once, that the crawl is gone.
DEAD_KEPT = 600.0


class StoreConflict(StateStoreError):
    """Another store of the same identity is in use on this machine: the crawl is refused at start."""

    #: reported as its message alone, never a traceback (scrapy_walsh/outputs/clean_refusal.py)
    clean_refusal = True


class Presence:
    """A crawl's entry in this machine's registry: its lock file, held while the crawl runs."""

    def __init__(self, crawl: str, record: dict[str, Any]):
        self.crawl, self.record = crawl, record
        self.path = crawls_dir() / f"{crawl}.lock"
        self._fd: int | None = None

    def hold(self) -> None:
        """Create the file already locked (written under another name, then renamed): no other
        process ever sees it unlocked while this crawl runs."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f".{self.crawl}.{uuid.uuid4().hex[:8]}.tmp")
        fd = os.open(temporary, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(fd, json.dumps(self.record).encode())
        os.replace(temporary, self.path)
        self._fd = fd

    def touch(self) -> None:
        """The crawl is alive now (each heartbeat): see :data:`DEAD_KEPT`."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.utime(self._fd)

    def release(self, keep: bool = False) -> None:
        """The crawl ended. ``keep``: leave the file, unlocked, when the store may still hold the
        crawl's record (it could not be told): the file then says at once that the crawl is gone,
        where the record alone would keep its leases for ``leases.HOLDER_BOUND``; it is removed once
        :data:`DEAD_KEPT` is over, like the file of a crawl killed with ``kill -9``."""
        if self._fd is None:
            return
        if keep:
            with contextlib.suppress(OSError):
                os.utime(self._fd)
        else:
            with contextlib.suppress(OSError):
                self.path.unlink()
        os.close(self._fd)
        self._fd = None


def running_here(crawl: Any) -> bool | None:
    """Whether crawl ``crawl`` runs on this machine: True (its lock is held), False (its file is
    here and nobody holds it: the process ended, ``kill -9`` included), or None (no such file
    here: it runs elsewhere, or in a container that does not share this directory)."""
    if not isinstance(crawl, str) or not crawl or "/" in crawl or crawl.startswith("."):
        return None
    path = crawls_dir() / f"{crawl}.lock"
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        if _read(fd).get("boot") not in (None, boot_id()):
            return None  # another kernel's lock (a network file system): it says nothing here
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def _read(fd: int) -> dict[str, Any]:
    try:
        found = json.loads(os.pread(fd, 65536, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


@contextlib.contextmanager
def _registry_lock() -> Iterator[None]:
    """One crawl at a time reads the registry and adds itself (two starting at once see each other)."""
    directory = crawls_dir()
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory / ".registry", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def running_crawls() -> Iterator[tuple[str, dict[str, Any]]]:
    """The crawls that run on this machine now, with their records; the files of crawls that
    ended without removing theirs (``kill -9``) are removed on the way once :data:`DEAD_KEPT`
    is over (call under the lock)."""
    for path in sorted(crawls_dir().glob("*.lock")):
        crawl = path.name.removesuffix(".lock")
        here = running_here(crawl)
        if here is False:
            with contextlib.suppress(OSError):
                if path.stat().st_mtime < time.time() - DEAD_KEPT:
                    path.unlink()
        elif here:
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError:
                continue
            try:
                yield crawl, _read(fd)
            finally:
                os.close(fd)


def register(crawl: str, identity: str, store: str, store_id: str, separate: bool, **info: Any) -> Presence:
    """Add crawl ``crawl`` to this machine's registry, with the store it uses (``store``, shown,
    and its id); :class:`StoreConflict` when a running crawl of the same identity uses another
    store and neither says it is a bot of its own."""
    identity = identity.lower()
    record = {
        "identity": identity,
        "store": store,
        "store_id": store_id,
        "separate": separate,
        "pid": os.getpid(),
        "boot": boot_id(),
        "started": time.time(),
        **info,
    }
    with _registry_lock():
        for other, theirs in running_crawls():
            if theirs.get("identity") != identity or theirs.get("store_id") == store_id:
                continue
            if separate or theirs.get("separate"):
                continue
            raise StoreConflict(
                f"identity {identity} already paces its requests through {theirs.get('store')} on this machine "
                f"(crawl {other}, pid {theirs.get('pid')}, spider {theirs.get('spider')}), and this crawl's "
                f"store is {store}: two stores of one identity pace as strangers, so one host would get both "
                "their requests (R4: one rate per identity, whatever the store). Point both at one store "
                "(WALSH_STATE_URI), or set WALSH_SEPARATE_BOT = True in a project that is a bot of its own "
                f"on purpose; see {docs_topic('refused-at-start')}"
            )
        presence = Presence(crawl, record)
        presence.hold()
    return presence


# ------------------------------------------------------------------ the stores used here


def _store_file(identity: str, key: str) -> Path:
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return state_dir() / "stores" / f"{identity.lower()}.{digest}.id"


def remembered_id(identity: str, key: str) -> str | None:
    """The id the store at ``key`` (its address, no password) had when this machine first used it."""
    try:
        return _store_file(identity, key).read_text().split()[0]
    except (OSError, IndexError):
        return None


def remember_id(identity: str, key: str, store_id: str, shown: str) -> None:
    path = _store_file(identity, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    temporary.write_text(f"{store_id}\n{shown}\n")
    temporary.replace(path)


def forget_id(identity: str, key: str) -> bool:
    """Forget the id this machine remembers for the store at ``key`` (``state reset``)."""
    try:
        _store_file(identity, key).unlink()
    except FileNotFoundError:
        return False
    return True


# ------------------------------------------------------------------ the blocklist's copy


def _blocklist_file(identity: str) -> Path:
    return state_dir() / f"{identity.lower()}.blocklist.json"


def saved_blocklist(identity: str, url: str) -> Any:
    """The last list adopted on this machine from ``url`` (the store's record of it), or None."""
    try:
        found = json.loads(_blocklist_file(identity).read_text())
    except (OSError, ValueError):
        return None
    return found.get(url) if isinstance(found, dict) else None


def save_blocklist(identity: str, url: str, record: Any) -> None:
    """Keep ``record`` (an adopted list, as the store keeps it) on this machine, on disk before
    this returns (written aside, synced, then renamed over the old copy)."""
    path = _blocklist_file(identity)
    try:
        found = json.loads(path.read_text())
    except (OSError, ValueError):
        found = {}
    if not isinstance(found, dict):
        found = {}
    if found.get(url) == record:
        return
    found[url] = record
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    with open(temporary, "w", encoding="utf-8") as out:
        json.dump(found, out, ensure_ascii=False, separators=(",", ":"))
        out.flush()
        os.fsync(out.fileno())
    temporary.replace(path)
