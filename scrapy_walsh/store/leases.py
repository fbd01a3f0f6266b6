"""Short leases held by a live crawl, and the crawls holding the store now (issue 32).

A record that says "this happened" (R8: the target was answered; R7: the item is in the
feed) is written only once it happened. Before that, the crawl doing it holds a **lease**
on the same key: ``{"lease": token, "crawl": id, "at": time}``, taken with the store's
atomic add-if-absent, so two processes of a fleet never both send one target or emit one
item. A lease is worth something only while its crawl is alive:

* every crawl that opens the store registers in namespace ``crawls`` (pid, machine, spider)
  and refreshes that record every :data:`HEARTBEAT` s; it expires :data:`HEARTBEAT_TTL` s
  after the last beat, and a crawl that stops deletes it;
* a crawl is gone when its record is missing or expired, or, on this machine, when its pid
  no longer runs (a ``kill -9`` is seen at once, without waiting for the record to expire);
* a lease of a crawl that is gone is taken over by the next one that asks, atomically
  (:data:`TAKE_OVER` replaces it only if it is still that very lease).

So a crash leaves nothing marked as done that was not done: the next run sends again what
was never sent and what was sent but never answered. ``scrapy walsh state reset`` reads
the same records to refuse while a crawl holds the store.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from typing import Any

from ..policy.vocabulary import Namespace
from .base import Operation, StateStore

NAMESPACE = Namespace.CRAWLS
#: Seconds between two heartbeats of a running crawl.
HEARTBEAT = 5.0
#: Seconds a crawl's record lives after its last heartbeat (a crawl on another machine that
#: died is seen as gone this long after its last beat at the latest).
HEARTBEAT_TTL = 20.0
#: The longest a lease of a live crawl holds without being settled (a request waiting in the
#: scheduler longer takes a new one when it comes back; an answer settles it long before).
LEASE_TTL = 900.0


def _take_over(
    value: dict[str, Any], now: float, token: str, lease: dict[str, Any]
) -> tuple[float, dict[str, Any] | None]:
    if value.get("lease") == token:
        return 1.0, lease
    return 0.0, None


#: args: the lease token to replace, the new lease. Replaces the entry only if it still holds
#: that very lease (an answer recorded meanwhile, or another taker, wins).
TAKE_OVER = Operation(
    "take_over",
    _take_over,
    """
local function change(v, now, A)
  if v['lease'] == A[1] then return 1, A[2] end
  return 0, nil
end
""",
)


def this_machine() -> str:
    return socket.gethostname()


def new_crawl_id() -> str:
    return uuid.uuid4().hex


def register(store: StateStore, crawl: str, **info: Any) -> None:
    """``crawl`` holds the store now (call again every :data:`HEARTBEAT` s)."""
    record = {"pid": os.getpid(), "machine": this_machine(), **info, "beat": time.time()}
    store.set(NAMESPACE, crawl, record, ttl=HEARTBEAT_TTL)


def unregister(store: StateStore, crawl: str) -> None:
    store.delete(NAMESPACE, crawl)


def _pid_runs(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it runs, as another user
    return True


def running(record: Any) -> bool:
    """A crawl's record says it still runs (on this machine: its pid runs too)."""
    if not isinstance(record, dict):
        return False
    if record.get("machine") == this_machine():
        return _pid_runs(record.get("pid"))
    return True


def alive(store: StateStore, crawl: Any) -> bool:
    return isinstance(crawl, str) and running(store.get(NAMESPACE, crawl))


def live_crawls(store: StateStore) -> list[tuple[str, dict[str, Any]]]:
    """The crawls holding the store now."""
    return [(crawl, record) for crawl, record in store.items(NAMESPACE) if running(record)]


def is_lease(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("lease"), str)


def take(store: StateStore, namespace: str, key: str, crawl: str, ttl: float = LEASE_TTL) -> str | None:
    """Lease ``key`` for ``crawl``: the lease's token, or None when a record (it happened) or
    the lease of a live crawl holds it. One store call when the key is free."""
    token = f"{crawl}:{uuid.uuid4().hex[:16]}"
    lease = {"lease": token, "crawl": crawl, "at": time.time()}
    if store.claim(namespace, key, lease, ttl=ttl):
        return token
    held = store.get(namespace, key)
    if held is None:  # expired between the two calls
        return token if store.claim(namespace, key, lease, ttl=ttl) else None
    if not is_lease(held) or held.get("crawl") == crawl or alive(store, held.get("crawl")):
        return None
    done = store.update(namespace, key, TAKE_OVER, (held["lease"], lease), ttl)
    return token if done.result else None


def holds(store: StateStore, namespace: str, key: str, token: str) -> bool:
    """The store still holds this very lease on ``key``."""
    held = store.get(namespace, key)
    return is_lease(held) and held["lease"] == token


def release(store: StateStore, namespace: str, key: str, token: str) -> None:
    """Give the lease back (nothing happened): only if it is still ours."""
    if holds(store, namespace, key, token):
        store.delete(namespace, key)
