"""The one key-value interface every piece of persistent state goes through.

Deliberately narrow: namespaced JSON values with an optional expiry, plus two atomic
operations for processes of a fleet racing for a key, :meth:`StateStore.claim` (add if
absent) and :meth:`StateStore.update` (one read-modify-write :class:`Operation`, on the
store's clock). The gates keep their own meaning on top; keys are namespaced by identity.
docs/state-store.md ("The interface") says why.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from scrapy_walsh.policy.gates import fetched_after


class StateStoreError(RuntimeError):
    """The store cannot be opened, read or written; the message says which and why."""


class StoreRefused(StateStoreError):
    """The store is not the one this machine used: empty, replaced, unreadable, or (Redis) it
    lost its id. Refused at start, never silently started afresh."""

    #: reported as its message alone, never a traceback (scrapy_walsh/outputs/clean_refusal.py)
    clean_refusal = True


class StoreLost(StateStoreError):
    """The store lost its data while the crawl ran (its id is gone, or its file was replaced):
    the crawl stops, as on any failure of the store."""


class StoreUnavailable(StateStoreError):
    """The store did not answer within its retry budget (a fleet's Redis is down).

    Nothing was decided: a caller that needs the answer to send a request must not send
    it, and may ask again later without blocking the reactor."""


@dataclass(frozen=True)
class Operation:
    """One atomic read-modify-write of a JSON-object entry, written once per backend kind.

    ``python(value, now, *args)`` returns ``(result, new_value)``; ``new_value`` ``None``
    leaves the entry untouched. ``lua`` defines ``local function change(v, now, A)`` with
    the same meaning (``A`` the args as a Lua array, ``nil`` for no write), for stores that
    cannot run Python inside their atomic step. Stores run ``python`` inside one
    transaction, or ``lua`` inside one script; tests pin the two to the same cases.
    """

    name: str
    python: Callable[..., tuple[float, dict[str, Any] | None]]
    lua: str
    #: For :meth:`StateStore.update_all`: ``python(value, now, index, *args)`` and Lua
    #: ``change(v, now, A, i)`` also get the key's position (0-based in Python, 1-based in Lua).
    indexed: bool = False
    #: The entry is given as ``{"value": v}`` when it holds a JSON value that is not an object
    #: (a bare number, such as R8's fetch time), else as ``{}`` like a missing one.
    scalars: bool = False


def given(value: Any, operation: Operation) -> dict[str, Any]:
    """The entry as ``operation`` is given it (:attr:`Operation.scalars`)."""
    if isinstance(value, dict):
        return value
    return {"value": value} if operation.scalars and value is not None else {}


@dataclass(frozen=True)
class Step:
    """One :meth:`StateStore.update_all` of a batch (:meth:`StateStore.update_batch`)."""

    namespace: str
    keys: tuple[str, ...]
    operation: Operation
    args: tuple[Any, ...] = ()
    ttl: float | None = None


#: Entries a page of :meth:`StateStore.pages` holds at most.
PAGE = 1000

#: ``(namespace, key, value)``, or with its own expiry ``(namespace, key, value, ttl)``.
Entry = tuple[str, str, Any] | tuple[str, str, Any, float | None]


@dataclass(frozen=True)
class Updated:
    """What :meth:`StateStore.update` saw and did."""

    #: The operation's result (a number).
    result: float
    #: The entry after the operation (a dict; empty when there was none and nothing was written).
    value: dict[str, Any]
    #: The store's clock when it decided: the fleet's one clock.
    now: float


class StateStore(ABC):
    #: ``"sqlite:///…"`` or ``"redis://…"``, for logs and the summary.
    uri: str
    #: The identity every key is namespaced under.
    identity: str
    #: True when processes on other machines may share this store (fleet mode).
    fleet: bool = False
    #: The random id the store was created with and carries: one store, whatever names it.
    store_id: str = ""
    #: True when every write also checks that the store still carries its id (Redis's guarded
    #: scripts): the heartbeat's write is then its :meth:`check`, with no round trip of its own.
    writes_check: bool = False

    def __init__(self, uri: str, identity: str, clock: Callable[[], float] = time.time):
        self.uri = uri
        self.identity = identity.lower()
        #: Wall-clock seconds: stored times must mean the same thing to the next process.
        self.clock = clock
        #: operation counts for the benchmarks and cost tests; backends fill in what they count
        self.counts: dict[str, int] = {}
        #: Called with the error when the store fails (not an outage it waits out): the crawl's
        #: store sets it to stop the crawl once (:func:`scrapy_walsh.store.open_crawl_store`).
        self.on_failure: Callable[[StateStoreError], None] | None = None
        #: The first failure reported (:meth:`failed`): the crawl is stopping for it, so what is
        #: only advice (its heartbeat, its unregistering) is not written any more.
        self.failure: StateStoreError | None = None

    def failed(self, error: StateStoreError) -> StateStoreError:
        """Report a failure to :attr:`on_failure`; returns ``error``, for the caller to raise."""
        if self.failure is None:
            self.failure = error
        if self.on_failure is not None:
            self.on_failure(error)
        return error

    @abstractmethod
    def get(self, namespace: str, key: str, default: Any = None) -> Any:
        """The stored value, or ``default`` when missing or expired."""

    @abstractmethod
    def set(self, namespace: str, key: str, value: Any, ttl: float | None = None) -> None:
        """Store ``value`` (JSON-serialisable) atomically; it expires after ``ttl`` s."""

    def set_many(
        self, entries: Sequence[Entry], ttl: float | None = None, delete: Sequence[tuple[str, str]] = ()
    ) -> None:
        """Store each ``(namespace, key, value)`` with ``ttl``, or its own
        ``(namespace, key, value, ttl)``, then delete each ``(namespace, key)`` of ``delete`` (a
        claim given back with what it fetched); backends do it in one transaction (sqlite) or one
        round trip (Redis), all or nothing."""
        for entry in entries:
            self.set(entry[0], entry[1], entry[2], entry_ttl(entry, ttl))
        for namespace, key in delete:
            self.delete(namespace, key)

    def set_many_later(self, key: Hashable, entries: Sequence[Entry], written: Callable[[], None]) -> None:
        """:meth:`set_many` of ``entries``, then ``written()``; a store whose writes are round trips
        (Redis) keeps them instead and writes them with its next round trip, whatever it is, in
        the same pipeline (:meth:`write_later` writes them at once). ``key`` names them: handing
        over the same key again replaces what was kept. Raises like :meth:`set_many` (a store that
        keeps them never raises here: the round trip that carries them does, and keeps them)."""
        self.set_many(entries)
        written()

    def write_later(self) -> None:  # noqa: B027 - a store that keeps nothing has nothing to write
        """Write what :meth:`set_many_later` kept now, in one round trip; raises ``StoreUnavailable``
        (they stay kept)."""

    @abstractmethod
    def delete(self, namespace: str, key: str) -> None: ...

    @abstractmethod
    def items(self, namespace: str) -> Iterator[tuple[str, Any]]:
        """Every live ``(key, value)`` of a namespace (a restart reloads ledgers this way)."""

    def pages(self, namespace: str, prefix: str = "", size: int = PAGE) -> Iterator[list[tuple[str, Any]]]:
        """The live ``(key, value)`` of a namespace whose key starts with ``prefix``, at most ``size``
        a page; backends read each page in one read, and only the keys under ``prefix`` (sqlite: a
        range of its index), so a caller that has its answer stops reading."""
        page: list[tuple[str, Any]] = []
        for key, value in self.items(namespace):
            if key.startswith(prefix):
                page.append((key, value))
            if len(page) == size:
                yield page
                page = []
        if page:
            yield page

    def get_many(self, namespace: str, keys: Iterable[str]) -> dict[str, Any]:
        """The live values among ``keys`` (missing ones left out); backends do it in one read."""
        found = {}
        for key in keys:
            value = self.get(namespace, key)
            if value is not None:
                found[key] = value
        return found

    @abstractmethod
    def claim(self, namespace: str, key: str, value: Any, ttl: float | None = None) -> bool:
        """Store ``value`` only if ``key`` holds no live value; ``True`` if this call stored it."""

    def claim_reading(
        self, namespace: str, key: str, value: Any, ttl: float | None, reads: Sequence[tuple[str, str]]
    ) -> tuple[bool, list[Any]]:
        """:meth:`claim`, and the values of ``reads`` (``(namespace, key)``; None when missing)
        read in the same round trip: what a request's gates read is asked with its claim."""
        return self.claim(namespace, key, value, ttl), [self.get(n, k) for n, k in reads]

    def claim_unless_fresh(
        self, namespace: str, key: str, value: Any, ttl: float | None, read: tuple[str, str], since: float
    ) -> tuple[bool, Any]:
        """The value of ``read`` (None when missing), and :meth:`claim` of ``key`` unless that value
        is an object whose ``fetched_at`` is after ``since`` (a copy fresh enough to use: no fetch to
        claim), in one round trip: ``(claimed, value)``."""
        found = self.get(*read)
        if fetched_after(found, since):
            return False, found
        return self.claim(namespace, key, value, ttl), found

    def update(
        self,
        namespace: str,
        key: str,
        operation: Operation,
        args: Sequence[Any] = (),
        ttl: float | None = None,
        fsync: bool = True,
    ) -> Updated:
        """Run ``operation`` atomically on the entry (``{}`` when missing or not an object),
        on the store's clock. A write keeps the entry's expiry if that is later than
        ``now + ttl`` (an expiry is never shortened). ``fsync=False``: the write must
        survive a crash of this process (it is visible to every other process before the call
        returns) but may wait for the next fsync to survive a power cut (sqlite; Redis
        follows its own ``appendfsync``). One key is :meth:`update_all` of one key: one
        transaction, one script, either way."""
        return self.update_all(namespace, (key,), operation, args, ttl, fsync)

    @abstractmethod
    def update_all(
        self,
        namespace: str,
        keys: Sequence[str],
        operation: Operation,
        args: Sequence[Any] = (),
        ttl: float | None = None,
        fsync: bool = True,
    ) -> Updated:
        """``operation`` on every entry of ``keys`` in one atomic step (one transaction, one
        script): all or nothing. Each entry is written only if the operation writes every one
        (a reservation that finds one key busy takes none); the result is the largest result,
        the value the first key's entry."""

    def update_batch(self, steps: Sequence[Step], fsync: bool = True) -> list[Updated]:
        """Each step's :meth:`update_all`, in order, in one round trip: one sqlite transaction
        (all or nothing), one Redis pipeline (each step one atomic script, in order). What a
        request writes at one moment (its reservation and the settles kept for it) costs one
        round trip, not one per step."""
        return [self.update_all(s.namespace, s.keys, s.operation, s.args, s.ttl, fsync) for s in steps]

    def update_batch_reading(
        self, steps: Sequence[Step], reads: Sequence[tuple[str, str]], fsync: bool = True
    ) -> tuple[list[Updated], list[Any]]:
        """:meth:`update_batch`, then the values of ``reads`` (``(namespace, key)``; None when
        missing), in the same round trip (Redis: one ``MGET`` at the end of the pipeline)."""
        return self.update_batch(steps, fsync), [self.get(n, k) for n, k in reads]

    def now(self) -> float:
        """The store's clock now (what its operations stamp): Redis's ``TIME`` for a fleet."""
        return self.clock()

    def check(self) -> None:  # noqa: B027 - a backend that can't lose its data mid-run has nothing to check
        """Raise (and report, :meth:`failed`) :class:`StoreLost` when the store lost its data since
        it was opened; the crawl's heartbeat asks every few seconds."""

    def close(self) -> None:  # noqa: B027 - optional for backends without resources
        """Release the connection; later calls may fail."""


def entry_ttl(entry: Entry, ttl: float | None) -> float | None:
    """The expiry of one :data:`Entry` of :meth:`StateStore.set_many`: its own, else ``ttl``."""
    return entry[3] if len(entry) > 3 else ttl  # type: ignore[misc]
