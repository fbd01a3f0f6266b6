"""Fleet mode: the state store in Redis, shared by every process of one identity.

Values are the same JSON as in sqlite under ``walsh:<identity>:<namespace>:<key>``; ``update``
is one Lua script, ``claim`` is ``SET NX PX``. Unreachable Redis: retry within
``RETRY_BUDGET``, then :class:`StoreUnavailable`; a call never returns a guess, and there is no
local fallback. docs/fleet.md ("The Redis store") says why.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from functools import partial
from typing import Any, TypeVar

from scrapy_walsh.config import masked_uri
from scrapy_walsh.policy.vocabulary import Namespace
from scrapy_walsh.store import machine_state
from scrapy_walsh.store.base import (
    PAGE,
    Entry,
    Operation,
    StateStore,
    StateStoreError,
    Step,
    StoreLost,
    StoreRefused,
    StoreUnavailable,
    Updated,
    entry_ttl,
)
from scrapy_walsh.store.waiting import Interrupted, interruptible, stopping

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: First retry delay when Redis is unreachable; it doubles while the budget lasts.
RETRY_FIRST = 0.1
#: Most seconds one call spends retrying before it raises StoreUnavailable.
RETRY_BUDGET = 2.0
SOCKET_TIMEOUT = 5.0
#: Once the crawl is stopping, a call waits at most this long for an answer.
STOP_TIMEOUT = 1.0

#: Every script first checks that the store still carries its id (KEYS[1], the marker, against
#: the id this process found at start): a store that lost it (FLUSHALL, a restart without
#: persistence) answers nothing, and the crawl stops (:class:`StoreLost`). In the same round trip.
_GUARD = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('STORE_LOST this store lost its id') end
"""

# Runs an Operation's Lua: Redis's own clock, the entry (KEYS[2]) as a table, the
# operation's change(v, now, A) with A = ARGV[2] decoded, and a write that never shortens
# the entry's TTL (ARGV[3], ms, '' for none), as sqlite's _upsert never shortens an expiry.
# ``now`` is cut to 0.1 ms: cjson writes numbers with 14 significant digits, so a finer time
# would be stored rounded (up to 50 µs earlier than granted) and a host's next slot could come
# that much before its interval; at 0.1 ms, what is stored is exactly what was granted.
# The result goes back whole (%.17g): a wait of one rounding step (a ready time that is the
# last start plus the interval, 0.24 us past this tick) printed to six decimals read as 0, a
# grant, though nothing was written.
_BEFORE = """
local t = redis.call('TIME')
local now = (tonumber(t[1]) * 10000 + math.floor(tonumber(t[2]) / 100)) / 10000
local raw = redis.call('GET', KEYS[2])
local v = {}
if raw then
  local ok, decoded = pcall(cjson.decode, raw)
  if ok and type(decoded) == 'table' then v = decoded elseif ok and SCALARS then v = {value = decoded} end
end
"""
_AFTER = """
local result, new = change(v, now, cjson.decode(ARGV[2]))
local enc = raw or '{}'
if new then
  enc = cjson.encode(new)
  local pttl = redis.call('PTTL', KEYS[2])
  if ARGV[3] == '' or pttl == -1 then
    redis.call('SET', KEYS[2], enc)
  else
    redis.call('SET', KEYS[2], enc, 'PX', math.max(tonumber(ARGV[3]), pttl))
  end
end
return {string.format('%.17g', result), enc, string.format('%.6f', now)}
"""


# The same over every entry key (KEYS[2] ...), all or nothing (StateStore.update_all).
_ALL = """
local t = redis.call('TIME')
local now = (tonumber(t[1]) * 10000 + math.floor(tonumber(t[2]) / 100)) / 10000
local A = cjson.decode(ARGV[2])
local raws, news, result, every = {}, {}, 0, true
for i = 2, #KEYS do
  local raw = redis.call('GET', KEYS[i])
  local v = {}
  if raw then
    local ok, decoded = pcall(cjson.decode, raw)
    if ok and type(decoded) == 'table' then v = decoded elseif ok and SCALARS then v = {value = decoded} end
  end
  raws[i] = raw or '{}'
  local r, new = change(v, now, A, i - 1)
  if r > result then result = r end
  if new then news[i] = new else every = false end
end
local first = raws[2]
if every then
  for i = 2, #KEYS do
    local enc = cjson.encode(news[i])
    if i == 2 then first = enc end
    local pttl = redis.call('PTTL', KEYS[i])
    if ARGV[3] == '' or pttl == -1 then
      redis.call('SET', KEYS[i], enc)
    else
      redis.call('SET', KEYS[i], enc, 'PX', math.max(tonumber(ARGV[3]), pttl))
    end
  end
end
return {string.format('%.17g', result), first, string.format('%.6f', now)}
"""

#: Writes whole values (``set``, ``set_many``): KEYS[2] ... get ARGV[3], ARGV[5] ..., each with its
#: expiry in the next ARGV (ms, '' for none); ARGV[2] 'NX': only a key that holds nothing (``claim``; one key).
#: The keys after those with a value are deleted (``set_many``'s ``delete``), in the same atomic step.
_SET = (
    _GUARD
    + """
local n = (#ARGV - 2) / 2
for i = n + 2, #KEYS do redis.call('DEL', KEYS[i]) end
for i = 2, n + 1 do
  local args = {KEYS[i], ARGV[2 * i - 1]}
  if ARGV[2 * i] ~= '' then table.insert(args, 'PX'); table.insert(args, ARGV[2 * i]) end
  if ARGV[2] == 'NX' then
    table.insert(args, 'NX')
    if not redis.call('SET', unpack(args)) then return 0 end
  else
    redis.call('SET', unpack(args))
  end
end
return 1
"""
)

#: ``claim_reading``: KEYS[2] set to ARGV[2] if it holds nothing (expiry ARGV[3], ms, '' for none),
#: then the value of each of KEYS[3] ...: ``{1 or 0, value or nil, ...}``.
_CLAIM_READ = (
    _GUARD
    + """
local args = {KEYS[2], ARGV[2], 'NX'}
if ARGV[3] ~= '' then table.insert(args, 'PX'); table.insert(args, ARGV[3]) end
local out = {0}
if redis.call('SET', unpack(args)) then out[1] = 1 end
for i = 3, #KEYS do out[i - 1] = redis.call('GET', KEYS[i]) end
return out
"""
)

#: ``claim_unless_fresh``: the value of KEYS[3], and KEYS[2] set to ARGV[2] if it holds nothing (expiry
#: ARGV[3], ms, '' for none) unless that value's ``fetched_at`` is after ARGV[4] (the freshness rule of
#: :func:`scrapy_walsh.policy.gates.fetched_after`): ``{1 or 0, value or nil}``.
_CLAIM_UNLESS_FRESH = (
    _GUARD
    + """
local raw = redis.call('GET', KEYS[3])
if raw then
  local ok, decoded = pcall(cjson.decode, raw)
  if ok and type(decoded) == 'table' and type(decoded['fetched_at']) == 'number'
      and decoded['fetched_at'] > tonumber(ARGV[4]) then
    return {0, raw}
  end
end
local args = {KEYS[2], ARGV[2], 'NX'}
if ARGV[3] ~= '' then table.insert(args, 'PX'); table.insert(args, ARGV[3]) end
if redis.call('SET', unpack(args)) then return {1, raw} end
return {0, raw}
"""
)

#: ``delete``: KEYS[2].
_DELETE = _GUARD + "\nredis.call('DEL', KEYS[2])\nreturn 1\n"


def _scalars(operation: Operation) -> str:
    """Whether the entry is given as ``{value = v}`` when not an object (:attr:`Operation.scalars`)."""
    return f"local SCALARS = {'true' if operation.scalars else 'false'}\n"


def script_for_all(operation: Operation) -> str:
    """The whole Lua script that runs ``operation`` on every entry of KEYS, all or nothing."""
    return _GUARD + _scalars(operation) + operation.lua + _ALL


def script_for(operation: Operation) -> str:
    """The whole Lua script that runs ``operation`` on one entry."""
    return _GUARD + _scalars(operation) + _BEFORE + operation.lua + _AFTER


def _ms(ttl: float | None) -> int | None:
    return None if ttl is None else max(1, int(ttl * 1000))


#: Keyspace slots one ``SCAN`` of :meth:`RedisStore.pages` walks: a million keys in 100 round trips,
#: each a millisecond or so of the server's time.
SCAN_COUNT = 10_000


def _glob_escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


_FIX = (
    "refusing to start on it. Nothing is crawled with an empty list and ledger. If you mean to start "
    "afresh, run `scrapy walsh state reset --yes` on each machine of the fleet (it forgets the id this "
    "machine remembers; it deletes nothing in Redis)"
)


class RedisStore(StateStore):
    fleet = True
    writes_check = True

    def __init__(self, url: str, identity: str):
        try:
            import redis
        except ImportError as exc:
            raise StateStoreError(
                f"{masked_uri(url)}: the Redis backend needs the redis package: pip install 'scrapy-walsh[redis]'"
            ) from exc
        super().__init__(masked_uri(url), identity)  # what messages show; the password only connects
        self._errors: tuple[type[BaseException], ...] = (
            redis.ConnectionError,
            redis.TimeoutError,
            redis.exceptions.BusyLoadingError,
        )
        #: ConnectionError subclasses that say "no" rather than "not now": a wrong password,
        #: a user without the rights
        self._refusals: tuple[type[BaseException], ...] = (
            redis.exceptions.AuthenticationError,
            redis.exceptions.AuthenticationWrongNumberOfArgsError,
            redis.exceptions.AuthorizationError,
        )
        self._no_script = redis.exceptions.NoScriptError
        self._stop_timeout_set = False
        try:
            self._redis = redis.Redis.from_url(
                url, socket_timeout=SOCKET_TIMEOUT, socket_connect_timeout=SOCKET_TIMEOUT, decode_responses=True
            )
        except ValueError as exc:
            raise StateStoreError(f"cannot open the state store {self.uri}: {exc}") from exc
        self._scripts: dict[str, Any] = {}
        #: the SHAs of the scripts this process loaded for its pipelines (:meth:`_run_many`)
        self._loaded: set[str] = set()
        #: Redis commands sent (a pipeline or a script counts once): the bench reports it.
        self.round_trips = 0
        #: The same, by what each was for (:meth:`_kind`: its operation and namespaces; ``kept``: the
        #: writes kept for the next round trip, written on their own): the tests count them per kind.
        self.round_trips_by: Counter[str] = Counter()
        #: seconds spent waiting for Redis's answers (the calls are synchronous: the reactor waits too)
        self.wait_seconds = 0.0
        #: Groups of writes kept for the next round trip (:meth:`set_many_later`) that rode on another
        #: round trip, and that were written on their own (``kept``).
        self.kept_rode = 0
        self.kept_alone = 0
        #: Writes kept for the next round trip (:meth:`set_many_later`): key -> (entries, written).
        self._later: dict[Hashable, tuple[list[Entry], Callable[[], None]]] = {}
        #: Seconds Redis was unreachable in earlier outages (see :attr:`unreachable_seconds`).
        self._unreachable = 0.0
        #: ``time.monotonic()`` of the first failure of the outage under way, else None.
        self._down_since: float | None = None
        self.prefix = f"walsh:{self.identity}:"
        self._marker = self._key(Namespace.META, "id")
        #: where this machine remembers the store's id: the address, never the password
        self.address = redis_address(url)
        self.store_id = self._identify()  # its first read is the connection's first test

    def _identify(self) -> str:
        """The store's id, created with it and remembered by every machine that uses it
        (:mod:`scrapy_walsh.store.machine_state`): a store that lost it, or now holds another one, is
        refused (:class:`StoreRefused`), as a lost sqlite file is."""
        remembered = machine_state.remembered_id(self.identity, self.address)
        found: Any = self._call("GET", lambda: self._redis.get(self._marker))  # str: decode_responses
        if found is None and remembered is not None:
            raise StoreRefused(
                f"state store {self.uri} was initialised (id {remembered}) and has lost it: its data is gone "
                "(FLUSHALL, a restart without persistence, another server or database at this address), and "
                f"the opt-outs and the pacing ledger with it: {_FIX}"
            )
        if found is None:  # a new store (or one written before ids existed): it gets one now
            self._call("SET NX", lambda: self._redis.set(self._marker, uuid.uuid4().hex, nx=True))
            found = self._call("GET", lambda: self._redis.get(self._marker))  # ours, or a faster process's
        if remembered is not None and found != remembered:
            raise StoreRefused(
                f"state store {self.uri} holds store {found}, not {remembered}, the one this machine used: it lost "
                f"its data and was started afresh by another machine, or another server answers at this address: "
                f"{_FIX}"
            )
        if remembered is None:
            machine_state.remember_id(self.identity, self.address, str(found), self.uri)
        return str(found)

    # -- keys -------------------------------------------------------------------------

    def _key(self, namespace: str, key: str) -> str:
        return f"{self.prefix}{namespace.replace('%', '%25').replace(':', '%3A')}:{key}"

    def _kind(self, label: str, full_keys: Iterable[str]) -> str:
        """What a round trip on ``full_keys`` is for: ``label`` and the namespaces of its keys."""
        found = {
            key[len(self.prefix) :].split(":", 1)[0].replace("%3A", ":").replace("%25", "%")
            for key in full_keys
            if key.startswith(self.prefix) and key != self._marker
        }
        return f"{label} {','.join(sorted(found))}" if found else label

    # -- the fail-safe wrapper -----------------------------------------------------------

    @property
    def unreachable_seconds(self) -> float:
        """Seconds Redis has been unreachable so far (an outage under way included)."""
        down = 0.0 if self._down_since is None else time.monotonic() - self._down_since
        return self._unreachable + down

    def _call(self, what: str, fn: Callable[[], T], kind: str | None = None) -> T:
        """``fn()``, retried for at most ``RETRY_BUDGET`` s while Redis is unreachable, then
        :class:`StoreUnavailable` (docs/fleet.md has the policy); each try counted as ``kind``
        (default ``what``)."""
        if stopping():
            self._stopping()
            if self._down_since is not None:
                raise StoreUnavailable(f"state store {self.uri}: {what}: not asked again, the crawl is stopping")
        began = time.monotonic()
        delay = RETRY_FIRST
        # the first call of an outage rides out a blip; later ones fail fast until it ends; once
        # the crawl is stopping, none is retried
        budget = 0.0 if stopping() else RETRY_BUDGET if self._down_since is None else RETRY_FIRST
        try:
            with interruptible():
                while True:
                    try:
                        self.round_trips += 1
                        self.round_trips_by[kind or what] += 1
                        result = fn()
                    except self._refusals as exc:  # a wrong password: no retry makes it right
                        raise StateStoreError(f"state store {self.uri}: {what} refused: {exc}") from exc
                    except self._errors as exc:
                        now = time.monotonic()
                        if self._down_since is None:
                            self._down_since = began  # away since the call that found it so began
                            logger.error(
                                "Redis state store %s unreachable (%s: %s) during %s: no request is sent "
                                "until it answers; retrying",
                                self.uri,
                                type(exc).__name__,
                                exc,
                                what,
                            )
                        left = budget - (now - began)
                        if left <= 0:
                            raise StoreUnavailable(
                                f"state store {self.uri}: {what}: unreachable for {now - self._down_since:.1f} s "
                                f"({exc})"
                            ) from exc
                        time.sleep(min(delay, left))
                        delay *= 2
                        continue
                    except Exception as exc:  # a Redis error that retrying won't fix
                        raise StateStoreError(f"state store {self.uri}: {what} failed: {exc}") from exc
                    break
        except Interrupted:
            if self._down_since is None:
                self._down_since = began
            raise StoreUnavailable(f"state store {self.uri}: {what}: given up, the crawl is stopping") from None
        self.wait_seconds += time.monotonic() - began
        if self._down_since is not None:
            down = time.monotonic() - self._down_since
            self._unreachable += down
            self._down_since = None
            logger.warning("Redis state store %s is reachable again after %.1f s; resuming", self.uri, down)
        return result

    def _stopping(self) -> None:
        """The crawl is stopping: a Redis that stopped answering is waited for at most
        ``STOP_TIMEOUT`` per call from now on (the connections made from here on)."""
        if self._stop_timeout_set:
            return
        self._stop_timeout_set = True
        pool = self._redis.connection_pool
        pool.connection_kwargs["socket_timeout"] = STOP_TIMEOUT
        pool.connection_kwargs["socket_connect_timeout"] = STOP_TIMEOUT
        pool.disconnect()

    # -- the interface ---------------------------------------------------------------------

    def get(self, namespace: str, key: str, default: Any = None) -> Any:
        found = self._get_raw([self._key(namespace, key)])
        return found.get(self._key(namespace, key), default)

    def set(self, namespace: str, key: str, value: Any, ttl: float | None = None) -> None:
        self.set_many([(namespace, key, value)], ttl)

    def set_many(
        self, entries: Sequence[Entry], ttl: float | None = None, delete: Sequence[tuple[str, str]] = ()
    ) -> None:
        """Every entry, and every deletion, in one script: one round trip, all at once."""
        if entries or delete:
            self._run("SET+DEL" if delete else "SET", *self._set_call(entries, ttl, delete))

    def set_many_later(self, key: Hashable, entries: Sequence[Entry], written: Callable[[], None]) -> None:
        """Kept, and written in the pipeline of the next round trip (:meth:`_run_many`), before
        what that round trip is for: no round trip of its own."""
        self._later[key] = (list(entries), written)

    def write_later(self) -> None:
        if self._later:
            self._run_many("", [])

    def _set_call(
        self, entries: Sequence[Entry], ttl: float | None = None, delete: Sequence[tuple[str, str]] = ()
    ) -> tuple[str, list[str], list[Any]]:
        """The ``_SET`` script's call that writes ``entries`` and deletes ``delete``."""
        keys = [self._key(entry[0], entry[1]) for entry in entries] + [self._key(n, k) for n, k in delete]
        args: list[Any] = [""]
        for entry in entries:
            args += [_encode(entry[2]), _ms(entry_ttl(entry, ttl)) or ""]
        return _SET, keys, args

    def delete(self, namespace: str, key: str) -> None:
        self._run("DEL", _DELETE, [self._key(namespace, key)], [])

    def items(self, namespace: str) -> Iterator[tuple[str, Any]]:
        start = len(self._key(namespace, ""))
        pattern = _glob_escape(self._key(namespace, "")) + "*"
        keys = sorted(self._call("SCAN", lambda: list(self._redis.scan_iter(match=pattern, count=1000))))
        if not keys:
            return  # nothing to read (the store's id is checked by the next call)
        for key, value in self._get_raw(keys).items():
            yield key[start:], value

    def pages(self, namespace: str, prefix: str = "", size: int = PAGE) -> Iterator[list[tuple[str, Any]]]:
        """The keys under ``prefix`` come from ``SCAN ... MATCH`` (Redis walks its whole keyspace,
        :data:`SCAN_COUNT` slots a round trip, and answers the matching keys only); each page's
        values are one ``MGET``."""
        start = len(self._key(namespace, ""))
        pattern = _glob_escape(self._key(namespace, prefix)) + "*"
        cursor: int | None = None
        keys: list[str] = []
        seen: set[str] = set()  # SCAN may answer a key twice
        while cursor != 0:
            at = cursor or 0
            cursor, found = self._call("SCAN", partial(self._redis.scan, at, match=pattern, count=SCAN_COUNT))
            fresh = [str(key) for key in found if key not in seen]  # str: decode_responses
            keys += fresh
            seen.update(fresh)
            while len(keys) >= size or (cursor == 0 and keys):
                page, keys = sorted(keys[:size]), keys[size:]
                values = self._get_raw(page)
                if values:
                    yield [(key[start:], value) for key, value in values.items()]

    def get_many(self, namespace: str, keys: Iterable[str]) -> dict[str, Any]:
        keys = list(keys)
        found = self._get_raw([self._key(namespace, k) for k in keys])
        return {k: found[self._key(namespace, k)] for k in keys if self._key(namespace, k) in found}

    def _get_raw(self, full_keys: list[str]) -> dict[str, Any]:
        """The values of ``full_keys``, read with the store's id in the same ``MGET``."""
        if self._later:
            values = self._run_many("", [], full_keys)[1]
        else:
            kind = self._kind("MGET", full_keys)
            values = self._call("MGET", lambda: self._redis.mget([*full_keys, self._marker]), kind)
            if values[-1] != self.store_id:
                raise self._lost()
        return {k: json.loads(v) for k, v in zip(full_keys, values) if v is not None}

    def _run(self, what: str, source: str, keys: list[str], args: list[Any]) -> Any:
        """One of the guarded scripts, on ``keys`` (the marker goes first), with the store's id;
        in the pipeline of the writes kept for the next round trip, when there are some."""
        if self._later:
            return self._run_many(what, [(source, keys, args)])[0][0]
        return self._run_one(what, source, keys, args)

    def _run_one(self, what: str, source: str, keys: list[str], args: list[Any]) -> Any:
        """:meth:`_run`'s script alone."""
        script = self._script(source)
        try:
            answer = self._call(
                what, lambda: script(keys=[self._marker, *keys], args=[self.store_id, *args]), self._kind(what, keys)
            )
            self._loaded.add(script.sha)  # redis-py's Script loads it when Redis lacks it
            return answer
        except StateStoreError as exc:
            if "STORE_LOST" in str(exc):
                raise self._lost() from None
            raise

    def _run_many(
        self, what: str, calls: list[tuple[str, list[str], list[Any]]], reads: Sequence[str] = (), label: str = ""
    ) -> tuple[list[Any], list[Any]]:
        """Several guarded scripts (:meth:`_run`'s) in one pipeline, by their SHA (redis-py's own
        pipelined scripts ask ``SCRIPT EXISTS`` first: a second round trip), then the raw values
        of ``reads`` (full keys) read with the store's id in one ``MGET``. A script this process
        has not run yet goes by its source (``EVAL``, which Redis keeps for the ``EVALSHA`` that
        follow): no ``SCRIPT LOAD`` round trip of its own. A Redis that restarted has forgotten
        the scripts: a step it refuses so is loaded and run again, in order.

        The writes kept for the next round trip (:meth:`set_many_later`) go first, in one ``_SET``
        script: written with this round trip or, when it fails, kept for the next one. ``label``:
        what the round trip is for (default ``what``), counted with its keys' namespaces."""
        kept, self._later = self._later, {}
        if calls or reads:
            kind = self._kind(label or what or "MGET", [*(key for _, keys, _ in calls for key in keys), *reads])
        else:
            kind = "kept"
        try:
            done, read = self._pipeline(what, calls, reads, kept, kind)
        except BaseException:
            for key, value in kept.items():
                self._later.setdefault(key, value)  # a newer hand-over of one key wins
            raise
        if calls or reads:
            self.kept_rode += len(kept)
        else:
            self.kept_alone += len(kept)
        for _, written in kept.values():
            written()
        return done, read

    def _pipeline(
        self,
        what: str,
        calls: list[tuple[str, list[str], list[Any]]],
        reads: Sequence[str],
        kept: dict[Hashable, tuple[list[Entry], Callable[[], None]]],
        kind: str,
    ) -> tuple[list[Any], list[Any]]:
        """:meth:`_run_many`'s one round trip, ``kept``'s writes first, counted as ``kind``."""
        if kept:
            calls = [self._set_call([entry for entries, _ in kept.values() for entry in entries]), *calls]
        what = "+".join(part for part in ("SET" if kept else "", what, "MGET" if reads else "") if part)
        scripts = [self._script(source) for source, _, _ in calls]

        def send() -> list[Any]:
            pipe = self._redis.pipeline(transaction=False)
            for script, (source, keys, args) in zip(scripts, calls):
                if script.sha in self._loaded:
                    pipe.evalsha(script.sha, len(keys) + 1, self._marker, *keys, self.store_id, *args)
                else:
                    pipe.eval(source, len(keys) + 1, self._marker, *keys, self.store_id, *args)
            if reads:
                pipe.mget([*reads, self._marker])
            return pipe.execute(raise_on_error=False)

        answers = self._call(what, send, kind)
        self._loaded.update(script.sha for script in scripts)
        read: list[Any] = []
        if reads:
            values = answers.pop()
            if isinstance(values, Exception):
                raise StateStoreError(f"state store {self.uri}: {what}: MGET failed: {values}")
            if values[-1] != self.store_id:
                raise self._lost()
            read = list(values[:-1])
        done = []
        for (source, keys, args), answer in zip(calls, answers):
            if isinstance(answer, self._no_script):  # a Redis that restarted: Script() loads it again
                answer = self._run_one(what, source, keys, args)
            elif isinstance(answer, Exception):
                if "STORE_LOST" in str(answer):
                    raise self._lost()
                raise StateStoreError(f"state store {self.uri}: {what} failed: {answer}")
            done.append(answer)
        return done[1:] if kept else done, read

    def _script(self, source: str) -> Any:
        script = self._scripts.get(source)
        if script is None:
            script = self._scripts[source] = self._redis.register_script(source)
        return script

    def _lost(self) -> StateStoreError:
        return self.failed(
            StoreLost(
                f"state store {self.uri} lost its data while the crawl ran (its id {self.store_id} is gone: "
                "FLUSHALL, a restart without persistence): the opt-outs and the pacing ledger it held are gone too"
            )
        )

    def update_all(
        self,
        namespace: str,
        keys: Sequence[str],
        operation: Operation,
        args: Sequence[Any] = (),
        ttl: float | None = None,
        fsync: bool = True,
    ) -> Updated:
        source, full, argv = self._script_call(Step(namespace, tuple(keys), operation, tuple(args), ttl))
        return _updated(self._run(operation.name, source, full, argv))

    def update_batch(self, steps: Sequence[Step], fsync: bool = True) -> list[Updated]:
        """Every step's script in one pipeline: one round trip, each step atomic, in order."""
        if len(steps) == 1:
            step = steps[0]
            return [self.update_all(step.namespace, step.keys, step.operation, step.args, step.ttl, fsync)]
        calls = [self._script_call(step) for step in steps]
        what, label = "+".join(s.operation.name for s in steps), steps[-1].operation.name  # kept advances first
        return [_updated(answer) for answer in self._run_many(what, calls, label=label)[0]]

    def update_batch_reading(
        self, steps: Sequence[Step], reads: Sequence[tuple[str, str]], fsync: bool = True
    ) -> tuple[list[Updated], list[Any]]:
        """The steps' scripts and one ``MGET`` of ``reads`` in one pipeline: one round trip."""
        if not reads:
            return self.update_batch(steps, fsync), []
        calls = [self._script_call(step) for step in steps]
        what = "+".join(s.operation.name for s in steps)
        done, raw = self._run_many(what, calls, [self._key(n, k) for n, k in reads], steps[-1].operation.name)
        return [_updated(answer) for answer in done], [None if v is None else json.loads(v) for v in raw]

    def _script_call(self, step: Step) -> tuple[str, list[str], list[Any]]:
        """The script that runs ``step``, its keys and its args (one key: :func:`script_for`)."""
        argv = [json.dumps(list(step.args)), _ms(step.ttl) or ""]
        full = [self._key(step.namespace, key) for key in step.keys]
        if len(full) == 1 and not step.operation.indexed:
            return script_for(step.operation), full, argv
        return script_for_all(step.operation), full, argv

    def claim(self, namespace: str, key: str, value: Any, ttl: float | None = None) -> bool:
        return bool(self._run("SET NX", _SET, [self._key(namespace, key)], ["NX", _encode(value), _ms(ttl) or ""]))

    def claim_reading(
        self, namespace: str, key: str, value: Any, ttl: float | None, reads: Sequence[tuple[str, str]]
    ) -> tuple[bool, list[Any]]:
        """One script: the claim, then each read."""
        keys = [self._key(namespace, key), *(self._key(n, k) for n, k in reads)]
        answer = self._run("SET NX+GET", _CLAIM_READ, keys, [_encode(value), _ms(ttl) or ""])
        return bool(answer[0]), [None if raw is None else json.loads(raw) for raw in answer[1:]]

    def claim_unless_fresh(
        self, namespace: str, key: str, value: Any, ttl: float | None, read: tuple[str, str], since: float
    ) -> tuple[bool, Any]:
        """One script: the read, and the claim unless the read found a fresh copy."""
        keys = [self._key(namespace, key), self._key(*read)]
        answer = self._run("GET+SET NX", _CLAIM_UNLESS_FRESH, keys, [_encode(value), _ms(ttl) or "", repr(since)])
        return bool(answer[0]), None if answer[1] is None else json.loads(answer[1])

    def now(self) -> float:
        seconds, micros = self._call("TIME", self._redis.time)
        return float(seconds) + float(micros) / 1_000_000

    def check(self) -> None:
        """The store still carries its id (the heartbeat asks, so an idle crawl notices too)."""
        self._get_raw([])

    def close(self) -> None:
        self._redis.close()


def current_id(url: str, identity: str) -> str | None:
    """The id the Redis store at ``url`` carries now (None: none), read without the checks of a
    crawl's store (``scrapy walsh state reset``)."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=SOCKET_TIMEOUT, decode_responses=True)
    try:
        found: Any = client.get(f"walsh:{identity.lower()}:{Namespace.META}:id")
    except redis.RedisError as exc:
        raise StateStoreError(f"{type(exc).__name__}: {exc}") from None
    finally:
        client.close()
    return found


def redis_address(url: str) -> str:
    """Where a Redis URI points, without its credentials: ``redis://host:port/db`` or
    ``unix:///path?db=N`` (what this machine remembers a store's id by)."""
    from redis.connection import parse_url

    try:
        found = parse_url(url)
    except ValueError:
        return masked_uri(url)
    db = found.get("db", 0) or 0
    if found.get("path"):
        return f"unix://{found['path']}?db={db}"
    scheme = "rediss" if url.lower().startswith("rediss:") else "redis"
    return f"{scheme}://{str(found.get('host', 'localhost')).lower()}:{found.get('port', 6379)}/{db}"


def _decode_object(raw: str) -> dict[str, Any]:
    """cjson encodes an empty table as ``{}`` and JSON null as ``null``: both are fine here."""
    value = json.loads(raw) if raw else {}
    return value if isinstance(value, dict) else {}


def _encode(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _updated(answer: Any) -> Updated:
    """An operation script's answer: ``[result, the first entry after it, the store's now]``."""
    result, raw, now = answer
    return Updated(float(result), _decode_object(raw), float(now))
