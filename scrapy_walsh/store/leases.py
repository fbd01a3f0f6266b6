"""Short leases held by a live crawl, and the crawls holding the store now.

A record that says "this happened" (R8 answered, R7 emitted) is written only once it happened;
until then the crawl doing it holds a lease on the key, worth something only while that crawl is
alive (its machine lock, or its heartbeat in namespace ``crawls``). A lease of a crawl that is gone
is taken over atomically (:data:`TAKE_OVER`). docs/state-store.md says why.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Sequence
from typing import Any

from scrapy_walsh.policy.vocabulary import Namespace
from scrapy_walsh.process import PROCESS
from scrapy_walsh.store import machine_state
from scrapy_walsh.store.base import Operation, StateStore, StoreUnavailable

NAMESPACE = Namespace.CRAWLS
#: Seconds between two heartbeats of a running crawl.
HEARTBEAT = 5.0
#: Seconds a crawl's record lives after its last heartbeat: a crawl whose lock this machine can't
#: see (another machine) that stopped renewing it (dead, frozen, cut off) loses its leases this
#: long after its last beat, not before. A pause shorter than this costs it nothing.
HOLDER_BOUND = 120.0
HEARTBEAT_TTL = HOLDER_BOUND
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


def _take_stale(
    value: dict[str, Any], now: float, before: float, lease: dict[str, Any]
) -> tuple[float, dict[str, Any] | None]:
    found = value.get("value")
    if stale(found, before):
        return 1.0, lease
    return 0.0, None


def stale(value: Any, before: float) -> bool:
    """``value`` is a bare record time (R8's fetch time, not a lease) no later than ``before``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value <= before


#: args: a time, the new lease. Replaces the entry only if it is a bare record time (R8's fetch
#: time, not a lease) no later than that time: a record the interval in force lets go, whatever
#: expiry it was written with (a fresher record written meanwhile, or a lease, wins).
TAKE_STALE = Operation(
    "take_stale",
    _take_stale,
    """
local function change(v, now, A)
  if type(v['value']) == 'number' and v['value'] <= A[1] then return 1, A[2] end
  return 0, nil
end
""",
    scalars=True,
)


def this_machine() -> str:
    return socket.gethostname()


def register(store: StateStore, crawl: str, **info: Any) -> None:
    """``crawl`` holds the store now (call again every :data:`HEARTBEAT` s)."""
    record = {
        "pid": os.getpid(),
        "machine": this_machine(),
        "boot": machine_state.boot_id(),
        **info,
        "beat": time.time(),
    }
    store.set(NAMESPACE, crawl, record, ttl=HEARTBEAT_TTL)


def unregister(store: StateStore, crawl: str) -> None:
    store.delete(NAMESPACE, crawl)


# The process's state keeps, for this process's crawls, ``beats``: crawl -> ``time.monotonic()`` of
# its last heartbeat that reached the store, and ``lapsed``: the crawls that went so long without a
# heartbeat that their record may have lapsed.
#: A crawl this long without a heartbeat may have lost its record (and its leases) to a reader
#: elsewhere: a beat late by two periods is the margin.
LAPSE = HOLDER_BOUND - 2 * HEARTBEAT


def beaten(crawl: str) -> None:
    """``crawl``'s heartbeat reached the store now."""
    may_have_lapsed(crawl)
    PROCESS.beats[crawl] = time.monotonic()


def may_have_lapsed(crawl: str) -> bool:
    """True once this crawl went :data:`LAPSE` s without a heartbeat (frozen, cut off from the
    store): a lease it took may have been taken over by a crawl elsewhere, so each must be checked
    before its request is sent (the rest of the crawl long: which ones lapsed is not known)."""
    last = PROCESS.beats.get(crawl)
    if last is not None and time.monotonic() - last > LAPSE:
        PROCESS.lapsed.add(crawl)
    return crawl in PROCESS.lapsed


def running(crawl: Any, record: Any) -> bool:
    """Crawl ``crawl`` still runs: by its lock when this machine can see it, else by its record."""
    here = machine_state.running_here(crawl)
    if here is not None:
        return here
    return isinstance(record, dict)


def alive(store: StateStore, crawl: Any) -> bool:
    return isinstance(crawl, str) and running(crawl, store.get(NAMESPACE, crawl))


def live_crawls(store: StateStore) -> list[tuple[str, dict[str, Any]]]:
    """The crawls holding the store now."""
    return [(crawl, record) for crawl, record in store.items(NAMESPACE) if running(crawl, record)]


def is_lease(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("lease"), str)


def take(store: StateStore, namespace: str, key: str, crawl: str, ttl: float = LEASE_TTL) -> str | None:
    """Lease ``key`` for ``crawl``: the lease's token, or None when a record (it happened) or
    the lease of a live crawl holds it (:func:`take_reading`, nothing read)."""
    return take_reading(store, namespace, key, crawl, ttl)[0]


def take_reading(
    store: StateStore,
    namespace: str,
    key: str,
    crawl: str,
    ttl: float = LEASE_TTL,
    reads: Sequence[tuple[str, str]] = (),
    stale_before: float | None = None,
) -> tuple[str | None, list[Any] | None]:
    """:func:`take`, and the values of ``reads`` when they came with the claim (one store call
    when the key is free); None when they did not (the caller reads them). With ``stale_before``,
    a record time no later than it holds the key no more (:data:`TAKE_STALE`): its expiry was
    computed from the interval it was written under, not the one in force.

    A claim whose answer was lost (Redis killed as it answered: the lease may be written) is
    recognised by its token, whether the call retried it or a later take asks again: before, the
    crawl found its own lease and skipped the target as "being fetched" (the outage test, once
    in forty runs under load, sent 7 of its 8 pages)."""
    token = f"{crawl}:{uuid.uuid4().hex[:16]}"
    lease = {"lease": token, "crawl": crawl, "at": time.time()}
    try:
        claimed, found = store.claim_reading(namespace, key, lease, ttl, reads)
        if claimed:
            return token, found
    except StoreUnavailable:
        # the store went away while it answered: the claim may have been written, and a lease
        # holding this token is this one's (kept in the process's state)
        PROCESS.unsure[(namespace, key)] = token
        raise
    unsure = PROCESS.unsure.pop((namespace, key), None)
    held = store.get(namespace, key)
    if held is None:  # expired between the two calls
        return (token if store.claim(namespace, key, lease, ttl=ttl) else None), None
    if is_lease(held) and held["lease"] in (token, unsure):
        return str(held["lease"]), None  # this claim's (or a lost one's) own lease: taken
    if stale_before is not None and stale(held, stale_before):
        done = store.update(namespace, key, TAKE_STALE, (stale_before, lease), ttl)
        return (token if done.result else None), None
    if not is_lease(held) or held.get("crawl") == crawl or alive(store, held.get("crawl")):
        return None, None
    done = store.update(namespace, key, TAKE_OVER, (held["lease"], lease), ttl)
    return (token if done.result else None), None


def holds(store: StateStore, namespace: str, key: str, token: str) -> bool:
    """The store still holds this very lease on ``key``."""
    held = store.get(namespace, key)
    return is_lease(held) and held["lease"] == token


def release(store: StateStore, namespace: str, key: str, token: str) -> None:
    """Give the lease back (nothing happened): only if it is still ours."""
    if holds(store, namespace, key, token):
        store.delete(namespace, key)
