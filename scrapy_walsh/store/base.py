"""The one interface every piece of persistent state goes through.

It is deliberately narrow: namespaced JSON values with an optional expiry. The gates
keep their own meaning on top (the blocklist stores its last adopted document, the
robots gate one entry per origin), so a backend only has to get these four methods
right to hold everything, and the Redis backend for fleets adds nothing to the
gates' code. Values are JSON, so a store can be inspected with ``sqlite3`` or
``redis-cli`` and never unpickles anything.

Keys are namespaced by identity (the robots token, lower-cased), so two bot
identities sharing one file or one Redis never share limits or lists.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import Any


class StateStoreError(RuntimeError):
    """The store cannot be opened, read or written; the message says which and why."""


class StateStore(ABC):
    #: ``"sqlite:///…"`` or ``"redis://…"``, for logs and the summary.
    uri: str
    #: The identity every key is namespaced under.
    identity: str

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

    def close(self) -> None:  # noqa: B027 - optional for backends without resources
        """Release the connection; later calls may fail."""
