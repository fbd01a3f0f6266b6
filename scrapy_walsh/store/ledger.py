"""The pacing ledger: one entry per host in the state store, and the only code that takes
or moves a host's slot.

An entry holds ``last_start`` and ``not_before``, which every process sharing the store
obeys, and the terms each process keeps for itself (Crawl-delay, Request-rate, adaptive
delay: written so that a restart starts from them). Two atomic operations change it:

- :meth:`Ledger.reserve` takes the host's next slot only if it is free now: if
  :func:`~scrapy_walsh.policy.pacing.ready_time` of the entry is not after now, it sets
  ``last_start`` to now and returns ``wait=0``; otherwise it changes nothing and returns
  the wait.
- :meth:`Ledger.advance` raises fields to ``now + offset`` and never lowers them (a pause
  never shortens; a settle counts the interval from the answer).

Each is one :class:`~scrapy_walsh.store.base.Operation`: the Python below runs inside one
sqlite ``BEGIN IMMEDIATE`` transaction, the Lua below inside one Redis script. The Lua
repeats ``ready_time`` (Redis runs no Python); tests/e2e/test_store_atomic.py pins both
to one table of cases. Times are the store's clock (Redis ``TIME`` for a fleet); the
ledger follows it through :attr:`Ledger.skew`, so "now" means the same on every machine.

An advance that cannot reach the store (:class:`~scrapy_walsh.store.base.StoreUnavailable`)
is not lost: it is kept, with its times made absolute, and written before this process's
next reservation, which cannot happen before the store is back. A reservation is never
kept or guessed: it raises, and the request waits.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..policy.pacing import ready_time
from ..policy.vocabulary import Namespace
from .base import Operation, StateStore, StoreUnavailable

#: The Lua twin of :func:`scrapy_walsh.policy.pacing.ready_time` (``nil`` for no last start).
READY_TIME_LUA = """
local function ready_time(last, nb, interval, margin)
  local ready = nb
  if last then ready = math.max(nb, last + interval) end
  if ready ~= 0 then return ready + margin end
  return 0
end
"""


def _reserve(
    value: dict[str, Any], now: float, interval: float, margin: float, assign: dict[str, Any]
) -> tuple[float, dict[str, Any] | None]:
    ready = ready_time(value.get("last_start"), value.get("not_before") or 0.0, interval, margin)
    if ready > now:
        return ready - now, None
    return 0.0, {**value, **assign, "last_start": now}


def _advance(
    value: dict[str, Any], now: float, offsets: dict[str, float], assign: dict[str, Any]
) -> tuple[float, dict[str, Any] | None]:
    new = dict(value)
    for field, offset in offsets.items():
        new[field] = max(new.get(field) or 0.0, now + offset)
    new.update(assign)
    return 0.0, new


#: args: interval, margin, assign.
RESERVE = Operation(
    "reserve",
    _reserve,
    READY_TIME_LUA
    + """
local function change(v, now, A)
  local ready = ready_time(tonumber(v['last_start']), tonumber(v['not_before']) or 0, A[1], A[2])
  if ready > now then return ready - now, nil end
  for f, val in pairs(A[3]) do v[f] = val end
  v['last_start'] = now
  return 0, v
end
""",
)


def slot_wait(
    value: dict[str, Any], now: float, index: int, interval: float, margin: float, modes: list[dict[str, Any]]
) -> float:
    """Seconds until key ``index``'s slot is free for a reservation of ``modes`` (0: free now)."""
    last = value.get("last_start")
    if modes[index]["any"] and value.get("any_start") is not None:
        last = max(last or 0.0, value["any_start"])
    ready = ready_time(last, value.get("not_before") or 0.0, interval, margin)
    return ready - now if ready > now else 0.0


def _reserve_key(
    value: dict[str, Any],
    now: float,
    index: int,
    interval: float,
    margin: float,
    assign: dict[str, Any],
    modes: list[dict[str, Any]],
) -> tuple[float, dict[str, Any] | None]:
    mode = modes[index]
    if wait := slot_wait(value, now, index, interval, margin, modes):
        return wait, None
    new = {**value, **(assign if mode["assign"] else {})}
    new[mode["write"]] = now
    return 0.0, new


def own_key(first: bool = False) -> dict[str, Any]:
    """A key this process paces by: every start on it counts, ours is written as ``last_start``."""
    return {"any": True, "write": "last_start", "assign": first}


def watched_key() -> dict[str, Any]:
    """An address a process pacing by host meets others on: it waits for the starts of processes
    pacing by address (``last_start``), and writes its own as ``any_start``, which only they wait
    for; so names sharing one address stay separate hosts to it."""
    return {"any": False, "write": "any_start", "assign": False}


#: Several keys at once (:meth:`Ledger.reserve` with a host and its addresses, issue 32),
#: all or nothing. args: interval, margin, assign, modes (one per key): ``any`` also waits
#: for ``any_start`` (starts by processes that pace by host, watched by those pacing by
#: address), ``write`` the field the start goes to, ``assign`` whether the terms go there too.
RESERVE_KEYS = Operation(
    "reserve",
    _reserve_key,
    READY_TIME_LUA
    + """
local function change(v, now, A, i)
  local m = A[4][i]
  local last = tonumber(v['last_start'])
  local any = tonumber(v['any_start'])
  if m['any'] and any then last = math.max(last or 0, any) end
  local ready = ready_time(last, tonumber(v['not_before']) or 0, A[1], A[2])
  if ready > now then return ready - now, nil end
  if m['assign'] then for f, val in pairs(A[3]) do v[f] = val end end
  v[m['write']] = now
  return 0, v
end
""",
    indexed=True,
)

#: args: offsets (field -> seconds from now), assign.
ADVANCE = Operation(
    "advance",
    _advance,
    """
local function change(v, now, A)
  for f, off in pairs(A[1]) do
    local want = now + off
    local cur = tonumber(v[f])
    if cur == nil or want > cur then v[f] = want end
  end
  for f, val in pairs(A[2]) do v[f] = val end
  return 0, v
end
""",
)


@dataclass(frozen=True)
class Reservation:
    """The answer of :meth:`Ledger.reserve` / :meth:`Ledger.advance`."""

    #: Seconds until the host's slot is free (0: it was free and is now ours).
    wait: float
    #: The entry after the operation (a dict; empty when there was none).
    value: dict[str, Any]
    #: The store's clock when it decided: the fleet's one clock.
    now: float


class Ledger:
    def __init__(self, store: StateStore, namespace: str = Namespace.PACING):
        self.store = store
        self.namespace = namespace
        #: The store's clock minus ours, from the last answer (about 0 for sqlite).
        self.skew = 0.0
        #: Advances the store did not take: key -> (absolute times, assign, ttl).
        self._pending: dict[str, tuple[dict[str, float], dict[str, Any], float | None]] = {}

    def now(self) -> float:
        """Now on the store's clock."""
        return time.time() + self.skew

    def entries(self) -> Iterator[tuple[str, dict[str, Any]]]:
        return self.store.items(self.namespace)

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        return self.store.get_many(self.namespace, keys)

    def reserve(
        self,
        key: str | Sequence[str],
        interval: float,
        margin: float = 0.0,
        assign: dict[str, Any] | None = None,
        ttl: float | None = None,
        modes: list[dict[str, Any]] | None = None,
    ) -> Reservation:
        """Take ``key``'s slot if it is free now; raises ``StoreUnavailable`` (nothing taken).
        Several keys (a host and its addresses, issue 32): one atomic step that takes every
        slot or none, and waits for the busiest. ``modes`` (one per key, :func:`own_key` /
        :func:`watched_key`) says how each is read and written; by default every key is owned."""
        self._flush()
        # crash-safe, not fsynced: docs/state-store.md "Durability"
        if isinstance(key, str):
            return self._run(key, RESERVE, (interval, margin, assign or {}), ttl, fsync=False)
        modes = modes or [own_key(i == 0) for i in range(len(key))]
        return self._run(key, RESERVE_KEYS, (interval, margin, assign or {}, modes), ttl, fsync=False)

    def advance(
        self,
        key: str | Sequence[str],
        offsets: dict[str, float],
        assign: dict[str, Any] | None = None,
        ttl: float | None = None,
    ) -> Reservation:
        """Raise each field of ``offsets`` to ``now + offset`` and set ``assign``. When the
        store is unavailable, the advance is kept for later and applied to the answer only."""
        try:
            self._flush()
            # a pause (R5, up to an hour) is fsynced; a settle only moves the interval's start
            return self._run(key, ADVANCE, (offsets, assign or {}), ttl, fsync="not_before" in offsets)
        except StoreUnavailable:
            keys = [key] if isinstance(key, str) else list(key)
            kept = [self._keep(k, offsets, assign or {}, ttl) for k in keys]
            return kept[0]

    @property
    def pending(self) -> int:
        """How many entries wait for the store to be back."""
        return len(self._pending)

    def _run(
        self,
        key: str | Sequence[str],
        operation: Operation,
        args: tuple[Any, ...],
        ttl: float | None,
        fsync: bool = True,
    ) -> Reservation:
        keys = [key] if isinstance(key, str) else list(key)
        done = self.store.update_all(self.namespace, keys, operation, args, ttl, fsync=fsync)
        self.skew = done.now - time.time()
        return Reservation(done.result, done.value, done.now)

    def _keep(self, key: str, offsets: dict[str, float], assign: dict[str, Any], ttl: float | None) -> Reservation:
        now = self.now()
        times, kept_assign, kept_ttl = self._pending.get(key, ({}, {}, None))
        for field, offset in offsets.items():
            times[field] = max(times.get(field, 0.0), now + offset)
        kept_assign.update(assign)
        if ttl is not None and (kept_ttl is None or ttl > kept_ttl):
            kept_ttl = ttl
        self._pending[key] = (times, kept_assign, kept_ttl)
        _, value = _advance({}, now, offsets, assign)
        return Reservation(0.0, value or {}, now)

    def _flush(self) -> None:
        """Write the kept advances, oldest first; raises ``StoreUnavailable`` if still down."""
        for key in list(self._pending):
            times, assign, ttl = self._pending[key]
            now = self.now()
            self._run(key, ADVANCE, ({f: t - now for f, t in times.items()}, assign), ttl)
            del self._pending[key]
