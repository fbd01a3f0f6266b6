"""The one interface every piece of persistent state goes through.

It is deliberately narrow: namespaced JSON values with an optional expiry. The gates
keep their own meaning on top (the blocklist stores its last adopted document, the
robots gate one entry per origin), so a backend only has to get these four methods
right to hold everything, and the Redis backend for fleets adds nothing to the
gates' code. Three more operations are atomic read-modify-writes (one sqlite
``BEGIN IMMEDIATE`` transaction, one Redis Lua call), because several processes of one
fleet may race for the same key: :meth:`reserve` takes a host's next pacing slot only
if it is free now, :meth:`advance` raises times and never lowers them (a pause never
shortens), and :meth:`claim` adds a key only if it is absent (a URL is fetched once
fleet-wide). Their times are the store's clock (Redis ``TIME`` for a fleet), so
machines whose clocks disagree still agree on the spacing. Values are JSON, so a store
can be inspected with ``sqlite3`` or ``redis-cli`` and never unpickles anything.

Keys are namespaced by identity (the robots token, lower-cased), so two bot
identities sharing one file or one Redis never share limits or lists.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..policy.pacing import ready_time


class StateStoreError(RuntimeError):
    """The store cannot be opened, read or written; the message says which and why."""


@dataclass(frozen=True)
class Slot:
    """The answer of :meth:`StateStore.reserve` / :meth:`StateStore.advance`."""

    #: Seconds until the slot is free (0: it was free and is now taken).
    wait: float
    #: The stored value after the operation (a dict; empty when there was none).
    value: dict[str, Any]
    #: The store's clock when it decided: the fleet's one clock.
    now: float


def ready_at(value: dict[str, Any], interval: float, margin: float) -> float:
    """When the ledger entry ``value`` (``last_start``, ``not_before``) lets the next request
    start (:func:`scrapy_walsh.policy.pacing.ready_time`); the Redis Lua script repeats the formula."""
    return ready_time(value.get("last_start"), value.get("not_before") or 0.0, interval, margin)


class StateStore(ABC):
    #: ``"sqlite:///…"`` or ``"redis://…"``, for logs and the summary.
    uri: str
    #: The identity every key is namespaced under.
    identity: str
    #: True when processes on other machines may share this store (fleet mode).
    fleet: bool = False

    def __init__(self, uri: str, identity: str, clock: Callable[[], float] = time.time):
        self.uri = uri
        self.identity = identity.lower()
        #: Wall-clock seconds: stored times must mean the same thing to the next process.
        self.clock = clock

    @abstractmethod
    def get(self, namespace: str, key: str, default: Any = None) -> Any:
        """The stored value, or ``default`` when missing or expired."""

    @abstractmethod
    def set(self, namespace: str, key: str, value: Any, ttl: float | None = None) -> None:
        """Store ``value`` (JSON-serialisable) atomically; it expires after ``ttl`` s."""

    @abstractmethod
    def delete(self, namespace: str, key: str) -> None: ...

    @abstractmethod
    def items(self, namespace: str) -> Iterator[tuple[str, Any]]:
        """Every live ``(key, value)`` of a namespace (a restart reloads ledgers this way)."""

    def get_many(self, namespace: str, keys: Iterable[str]) -> dict[str, Any]:
        """The live values among ``keys`` (missing ones left out); backends do it in one read."""
        found = {}
        for key in keys:
            value = self.get(namespace, key)
            if value is not None:
                found[key] = value
        return found

    @abstractmethod
    def reserve(
        self,
        namespace: str,
        key: str,
        interval: float,
        margin: float = 0.0,
        assign: dict[str, Any] | None = None,
        ttl: float | None = None,
    ) -> Slot:
        """Atomically: if the entry's :func:`ready_at` is not after now, set its
        ``last_start`` to now (and the fields of ``assign``) and return ``wait=0``;
        otherwise change nothing and return the wait. The expiry is never shortened."""

    @abstractmethod
    def advance(
        self,
        namespace: str,
        key: str,
        offsets: dict[str, float],
        assign: dict[str, Any] | None = None,
        ttl: float | None = None,
    ) -> Slot:
        """Atomically raise each field of ``offsets`` to ``now + offset`` (a field already
        later stays: a pause never shortens) and set the fields of ``assign``."""

    @abstractmethod
    def claim(self, namespace: str, key: str, value: Any, ttl: float | None = None) -> bool:
        """Store ``value`` only if ``key`` holds no live value; ``True`` if this call stored it."""

    def close(self) -> None:  # noqa: B027 - optional for backends without resources
        """Release the connection; later calls may fail."""
