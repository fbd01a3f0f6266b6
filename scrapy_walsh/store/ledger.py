"""The pacing ledger: one entry per host in the state store, and the only code that takes
or moves a host's slot.

:meth:`Ledger.reserve` takes the host's next slot only if it is free now (and a host lease),
:meth:`Ledger.advance` raises times and never lowers them, :meth:`Ledger.confirm` and
:meth:`Ledger.renew` serve the lease. Each is one :class:`~scrapy_walsh.store.base.Operation`
(Python for sqlite, the same in Lua for Redis), on the store's clock. An advance the store
cannot take is kept; a reservation never is. docs/fleet.md ("The ledger's operations") says why.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from scrapy_walsh.policy.pacing import ready_time, unstep
from scrapy_walsh.policy.vocabulary import Namespace
from scrapy_walsh.store.base import Operation, StateStore, Step, StoreUnavailable, Updated

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


def live_leases(value: dict[str, Any], now: float) -> dict[str, dict[str, Any]]:
    """The host leases of an entry still live at ``now`` (token -> ``{"until", "kind"}``)."""
    found = value.get("sending")
    if not isinstance(found, dict):
        return {}
    return {
        token: lease
        for token, lease in found.items()
        if isinstance(lease, dict) and isinstance(lease.get("until"), (int, float)) and lease["until"] > now
    }


def lease_wait(
    leases: dict[str, dict[str, Any]], now: float, mode: dict[str, Any], interval: float, margin: float, token: str = ""
) -> float:
    """Seconds a reservation of ``mode`` waits for the live leases of others: until a lease ends,
    or at least one slot (its holder may write now, and its start then counts). A lease is read
    like the start its holder will write: an owned key respects every one, a watched key only
    those of processes that own it (``kind`` ``last_start``)."""
    waits = [
        min(lease["until"] - now, interval + margin)
        for other, lease in leases.items()
        if other != token and (mode["any"] or lease.get("kind") == "last_start")
    ]
    return max(waits, default=0.0)


def _with_leases(new: dict[str, Any], leases: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if leases:
        new["sending"] = leases
    else:
        new.pop("sending", None)
    return new


def slot_wait(
    value: dict[str, Any], now: float, index: int, interval: float, margin: float, modes: list[dict[str, Any]]
) -> float:
    """Seconds until key ``index``'s slot is free for a reservation of ``modes`` (0: free now)."""
    last = value.get("last_start")
    if modes[index]["any"] and value.get("any_start") is not None:
        last = max(last or 0.0, value["any_start"])
    ready = ready_time(last, value.get("not_before") or 0.0, interval, margin)
    wait = ready - now if ready > now else 0.0
    return max(wait, lease_wait(live_leases(value, now), now, modes[index], interval, margin))


def _reserve_key(
    value: dict[str, Any],
    now: float,
    index: int,
    interval: float,
    margin: float,
    assign: dict[str, Any],
    modes: list[dict[str, Any]],
    token: str = "",
    hold: float = 0.0,
    written: Sequence[str] = (),
) -> tuple[float, dict[str, Any] | None]:
    mode = modes[index]
    if wait := slot_wait(value, now, index, interval, margin, modes):
        return wait, None
    new = {**value, **(assign if mode["assign"] else {})}
    new[mode["write"]] = now
    leases = live_leases(value, now)
    for done in written:
        # the request went within its reservation's margin: its lease says no more than the start
        # stamped with it, and leaving it would make every name sharing an address carry (and
        # read) one more lease per request of the last second
        leases.pop(done, None)
    if token:
        leases[token] = {"until": now + hold, "kind": mode["write"]}
    return 0.0, _with_leases(new, leases)


def _confirm_key(
    value: dict[str, Any],
    now: float,
    index: int,
    interval: float,
    margin: float,
    modes: list[dict[str, Any]],
    token: str,
    until: float,
    always: bool = False,
) -> tuple[float, dict[str, Any] | None]:
    """The request holding lease ``token`` (granted until ``until``) is written now: its start is
    now, unless another process is connecting, a pause holds, or (our lease lapsed) another
    process started since; then the wait, and nothing changes. ``always``: the request is already
    on the wire, so its start is written whatever the wait, which still says what came first."""
    mode = modes[index]
    leases = live_leases(value, now)
    mine = leases.pop(token, None)
    wait = lease_wait(leases, now, mode, interval, margin)
    paused = ready_time(None, value.get("not_before") or 0.0, interval, margin)
    if paused > now:
        wait = max(wait, paused - now)
    if mine is None:
        last = value.get("last_start")
        if mode["any"] and value.get("any_start") is not None:
            last = max(last or 0.0, value["any_start"])
        # our own start is at least a slot before our lease's end; anyone else's came after it
        if last is not None and last >= until - interval / 2:
            wait = max(wait, ready_time(last, 0.0, interval, margin) - now)
    if wait > 0 and not always:
        return wait, None
    new = dict(value)
    new[mode["write"]] = max(value.get(mode["write"]) or 0.0, now)
    return wait, _with_leases(new, leases)


def _renew_key(
    value: dict[str, Any], now: float, index: int, token: str, hold: float
) -> tuple[float, dict[str, Any] | None]:
    """Extend lease ``token`` to ``now + hold`` if it is still live (result 0), else 1: lost."""
    leases = live_leases(value, now)
    if token not in leases:
        return 1.0, None
    leases[token] = {**leases[token], "until": max(leases[token]["until"], now + hold)}
    return 0.0, _with_leases(dict(value), leases)


def own_key(first: bool = False) -> dict[str, Any]:
    """A key this process paces by: every start on it counts, ours is written as ``last_start``."""
    return {"any": True, "write": "last_start", "assign": first}


def watched_key() -> dict[str, Any]:
    """An address a process pacing by host meets others on: it waits for the starts of processes
    pacing by address (``last_start``), and writes its own as ``any_start``, which only they wait
    for; so names sharing one address stay separate hosts to it."""
    return {"any": False, "write": "any_start", "assign": False}


#: The Lua twins of :func:`live_leases`, :func:`lease_wait` and :func:`_with_leases`.
LEASES_LUA = """
local function live_leases(v, now)
  local live, any = {}, false
  if type(v['sending']) == 'table' then
    for t, l in pairs(v['sending']) do
      if type(l) == 'table' and type(l['until']) == 'number' and l['until'] > now then
        live[t] = l
        any = true
      end
    end
  end
  return live, any
end
local function lease_wait(live, now, m, interval, margin, token)
  local w = 0
  for t, l in pairs(live) do
    if t ~= token and (m['any'] or l['kind'] == 'last_start') then
      w = math.max(w, math.min(l['until'] - now, interval + margin))
    end
  end
  return w
end
local function with_leases(v, live)
  local any = false
  for _ in pairs(live) do any = true end
  if any then v['sending'] = live else v['sending'] = nil end
  return v
end
local function slot_wait(v, now, m, interval, margin)
  local last = tonumber(v['last_start'])
  local any = tonumber(v['any_start'])
  if m['any'] and any then last = math.max(last or 0, any) end
  local ready = ready_time(last, tonumber(v['not_before']) or 0, interval, margin)
  local wait = 0
  if ready > now then wait = ready - now end
  local live = live_leases(v, now)
  return math.max(wait, lease_wait(live, now, m, interval, margin, ''))
end
"""

#: Several keys at once (:meth:`Ledger.reserve` with a host and its addresses),
#: all or nothing. args: interval, margin, assign, modes (one per key): ``any`` also waits
#: for ``any_start`` (starts by processes that pace by host, watched by those pacing by
#: address), ``write`` the field the start goes to, ``assign`` whether the terms go there too;
#: then the host lease's token ('' for none), how long it holds, and this process's leases whose
#: requests were written at once (dropped: :func:`_reserve_key`).
RESERVE_KEYS = Operation(
    "reserve",
    _reserve_key,
    READY_TIME_LUA
    + LEASES_LUA
    + """
local function change(v, now, A, i)
  local m = A[4][i]
  local wait = slot_wait(v, now, m, A[1], A[2])
  if wait > 0 then return wait, nil end
  if m['assign'] then for f, val in pairs(A[3]) do v[f] = val end end
  v[m['write']] = now
  local live = live_leases(v, now)
  if type(A[7]) == 'table' then for _, t in ipairs(A[7]) do live[t] = nil end end
  if A[5] and A[5] ~= '' then live[A[5]] = {['until'] = now + A[6], kind = m['write']} end
  return 0, with_leases(v, live)
end
""",
    indexed=True,
)

#: The request of lease ``token`` is written now (:func:`_confirm_key`). args: interval,
#: margin, modes, token, the lease's end as granted, and whether it is on the wire already.
CONFIRM = Operation(
    "confirm",
    _confirm_key,
    READY_TIME_LUA
    + LEASES_LUA
    + """
local function change(v, now, A, i)
  local m = A[3][i]
  local live = live_leases(v, now)
  local mine = live[A[4]]
  live[A[4]] = nil
  local wait = lease_wait(live, now, m, A[1], A[2], '')
  local paused = ready_time(nil, tonumber(v['not_before']) or 0, A[1], A[2])
  if paused > now then wait = math.max(wait, paused - now) end
  if mine == nil then
    local last = tonumber(v['last_start'])
    local any = tonumber(v['any_start'])
    if m['any'] and any then last = math.max(last or 0, any) end
    if last and last >= A[5] - A[1] / 2 then
      wait = math.max(wait, ready_time(last, 0, A[1], A[2]) - now)
    end
  end
  if wait > 0 and not A[6] then return wait, nil end
  v[m['write']] = math.max(tonumber(v[m['write']]) or 0, now)
  return wait, with_leases(v, live)
end
""",
    indexed=True,
)

#: Extend lease ``token`` while its request is being connected (:func:`_renew_key`). args:
#: token, how long it holds from now.
RENEW = Operation(
    "renew",
    _renew_key,
    READY_TIME_LUA
    + LEASES_LUA
    + """
local function change(v, now, A, i)
  local live = live_leases(v, now)
  local mine = live[A[1]]
  if mine == nil then return 1, nil end
  mine['until'] = math.max(mine['until'], now + A[2])
  return 0, with_leases(v, live)
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


#: A clock step mended (:func:`~scrapy_walsh.policy.pacing.unstep`): the result is how far ahead
#: the entry was (0: nothing written). args: the slack, the horizon of leases.
REBASE = Operation(
    "rebase",
    lambda value, now, slack, horizon: unstep(value, now, horizon, slack),
    """
local function change(v, now, A)
  local slack, step = A[1], 0
  local stamp, last = tonumber(v['paused_at']), tonumber(v['last_start'])
  if stamp == nil and last and last - now > slack then stamp = last end
  for _, f in ipairs({'last_start', 'any_start'}) do
    local t = tonumber(v[f])
    if t and t - now > slack then step = math.max(step, t - now); v[f] = now end
  end
  if stamp and stamp - now > slack then
    step = math.max(step, stamp - now)
    local nb = tonumber(v['not_before'])
    if nb and nb > now then v['not_before'] = nb - (stamp - now) end
    if v['paused_at'] ~= nil then v['paused_at'] = now end
  end
  if type(v['sending']) == 'table' then
    local kept, any = {}, false
    for t, l in pairs(v['sending']) do
      if type(l) == 'table' and type(l['until']) == 'number' and l['until'] - now > A[2] then
        step = math.max(step, l['until'] - now)
      else
        kept[t] = l
        any = true
      end
    end
    if any then v['sending'] = kept else v['sending'] = nil end
  end
  if step > 0 then return step, v end
  return 0, nil
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
    #: The entries of the reservation's ``reads`` (key -> entry, ``{}`` when there is none).
    read: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)


class Ledger:
    def __init__(self, store: StateStore, namespace: str = Namespace.PACING):
        self.store = store
        self.namespace = namespace
        #: The store's clock minus ours, from the last answer (about 0 for sqlite); asked at once,
        #: so that times read before the first reservation are compared on the store's clock too
        #: (a worker whose clock was 30 s slow waited 30.9 s before its first request).
        self.skew = 0.0
        try:
            self.skew = store.now() - time.time()
        except StoreUnavailable:
            pass  # learnt from the first answer, as before
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
        lease: tuple[str, float] | None = None,
        reads: Sequence[str] = (),
        written: Sequence[str] = (),
    ) -> Reservation:
        """Take ``key``'s slot if it is free now; raises ``StoreUnavailable`` (nothing taken).
        Several keys (a host and its addresses): one atomic step that takes every
        slot or none, and waits for the busiest. ``modes`` (one per key, :func:`own_key` /
        :func:`watched_key`) says how each is read and written; by default every key is owned.
        ``lease``: ``(token, seconds)``, a host lease taken with the slot (:meth:`confirm`).
        ``reads``: other keys read in the same round trip (the answer's ``read``).
        ``written``: tokens of this process's leases whose requests went at once, dropped from
        the keys if the slot is taken (an address shared by many names stays one lease long)."""
        # crash-safe, not fsynced: docs/state-store-durability.md
        if isinstance(key, str) and lease is None and not written:
            return self._run(key, RESERVE, (interval, margin, assign or {}), ttl, fsync=False, reads=reads)
        keys = [key] if isinstance(key, str) else list(key)
        modes = modes or [own_key(i == 0) for i in range(len(keys))]
        token, hold = lease or ("", 0.0)
        args = (interval, margin, assign or {}, modes, token, hold, list(written))
        return self._run(keys, RESERVE_KEYS, args, ttl, fsync=False, reads=reads)

    def confirm(
        self,
        keys: Sequence[str],
        modes: list[dict[str, Any]],
        token: str,
        until: float,
        interval: float,
        margin: float,
        ttl: float | None = None,
        always: bool = False,
    ) -> Reservation:
        """The request of lease ``token`` (granted until ``until``) is written now: its start is
        stamped now and the lease ends (``wait`` 0), or nothing changes and ``wait`` says how long
        the host is taken. Raises ``StoreUnavailable``: the request must not be written.
        ``always``: it was written already; the start and the lease's end are written even when
        ``wait`` says another process started or a pause holds."""
        return self._run(keys, CONFIRM, (interval, margin, modes, token, until, always), ttl, fsync=False)

    def renew(self, keys: Sequence[str], token: str, hold: float, ttl: float | None = None) -> Reservation:
        """Extend lease ``token`` to ``hold`` s from now while its request is connected (``wait``
        0), or ``wait`` 1: the lease lapsed and nothing was written."""
        return self._run(keys, RENEW, (token, hold), ttl, fsync=False)

    def advance(
        self,
        key: str | Sequence[str],
        offsets: dict[str, float],
        assign: dict[str, Any] | None = None,
        ttl: float | None = None,
        later: bool = False,
    ) -> Reservation:
        """Raise each field of ``offsets`` to ``now + offset`` and set ``assign``. When the
        store is unavailable, the advance is kept for later and applied to the answer only.
        ``later``: kept on purpose, and written with this ledger's next operation, in its round
        trip (or by :meth:`flush`): for a settle, which only moves the start of the interval
        after an answer (R4 counts from the reservation, which was written before the request
        left)."""
        if not later:
            try:
                # a pause (R5, up to an hour) is fsynced; a settle only moves the interval's start
                return self._run(key, ADVANCE, (offsets, assign or {}), ttl, fsync="not_before" in offsets)
            except StoreUnavailable:
                pass
        kept = [self._keep(k, offsets, assign or {}, ttl) for k in ([key] if isinstance(key, str) else key)]
        return kept[0]

    def rebase(self, keys: Sequence[str], slack: float, horizon: float) -> list[Reservation]:
        """Mend each of ``keys`` a clock step left ahead (:data:`REBASE`), one atomic step per key,
        in one round trip: ``wait`` says how far ahead it was (0: untouched)."""
        done, _ = self._batch([Step(self.namespace, (key,), REBASE, (slack, horizon), None) for key in keys])
        return [Reservation(d.result, d.value, d.now) for d in done]

    def flush(self) -> None:
        """Write the kept advances now, in one round trip; raises ``StoreUnavailable`` if the
        store is away (they stay kept)."""
        if self._pending:
            self._batch([])

    @property
    def pending(self) -> int:
        """How many entries wait to be written (kept while the store was away, or deferred)."""
        return len(self._pending)

    def _run(
        self,
        key: str | Sequence[str],
        operation: Operation,
        args: tuple[Any, ...],
        ttl: float | None,
        fsync: bool = True,
        reads: Sequence[str] = (),
    ) -> Reservation:
        """One step on ``key`` (or keys), after the kept advances, with ``reads`` in its round trip."""
        keys = (key,) if isinstance(key, str) else tuple(key)
        done, found = self._batch([Step(self.namespace, keys, operation, args, ttl)], fsync, reads)
        read = {k: v if isinstance(v, dict) else {} for k, v in zip(reads, found)}
        return Reservation(done[0].result, done[0].value, done[0].now, read)

    def _batch(
        self, steps: list[Step], fsync: bool = False, reads: Sequence[str] = ()
    ) -> tuple[list[Updated], list[Any]]:
        """The kept advances, oldest first, then ``steps``, in one round trip (one transaction
        with sqlite); the answers of ``steps``, and the entries of ``reads`` read after them in the
        same round trip. A kept pause makes it fsynced."""
        kept = list(self._pending)
        now = self.now()
        before = []
        for key in kept:
            times, assign, ttl = self._pending[key]
            fsync = fsync or "not_before" in times
            before.append(Step(self.namespace, (key,), ADVANCE, ({f: t - now for f, t in times.items()}, assign), ttl))
        done, found = self.store.update_batch_reading(
            [*before, *steps], [(self.namespace, key) for key in reads], fsync=fsync
        )
        for key in kept:
            del self._pending[key]
        self.skew = done[-1].now - time.time()
        return done[len(before) :], found

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
