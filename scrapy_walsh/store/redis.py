"""Fleet mode: the state store in Redis, shared by every process of one identity.

Keys are ``walsh:<identity>:<namespace>:<key>`` (``:`` and ``%`` in the namespace
percent-encoded, so ``seen:spider`` never shares a prefix with ``seen``); each value is
the same JSON as in sqlite, so ``redis-cli GET`` shows it, and expiry is a Redis TTL.
``reserve`` and ``advance`` are Lua scripts (one round trip, atomic, on Redis's own
clock) and ``claim`` is ``SET NX PX``.

Fail safe: redis-py is synchronous, and every call here blocks until Redis answers.
When Redis is unreachable, the call retries with exponential backoff (0.25 s doubling
to 30 s), logging an ERROR at each attempt, and never returns a guess. Because the
pacing middleware reserves a slot here before each request, a crawl whose Redis is down
sends nothing (the whole reactor waits) and resumes when Redis is back. There is no
local fallback: local pacing would let ten processes send ten times the rate.

Durability is Redis's: "state written before a crash is never lost" holds when the server
runs with ``appendonly yes`` and ``appendfsync always`` (the README says so; the tests run
their server that way).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from .base import Slot, StateStore, StateStoreError

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: First retry delay when Redis is unreachable; it doubles up to RETRY_MAX.
RETRY_FIRST = 0.25
RETRY_MAX = 30.0
SOCKET_TIMEOUT = 5.0

# Both scripts start with this: Redis's own clock, the entry (KEYS[1]) as a table, and a
# write that never shortens the entry's TTL (as sqlite's _upsert never shortens an expiry).
_PRELUDE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local raw = redis.call('GET', KEYS[1])
local v = {}
if raw then v = cjson.decode(raw) end
local function set_keeping_ttl(enc, ttl_ms)
  local pttl = redis.call('PTTL', KEYS[1])
  if ttl_ms == '' or pttl == -1 then
    redis.call('SET', KEYS[1], enc)
  else
    redis.call('SET', KEYS[1], enc, 'PX', math.max(tonumber(ttl_ms), pttl))
  end
end
"""

# KEYS[1] the ledger entry; ARGV: interval, margin, assign (JSON object), ttl in ms ('' = none).
# The same formula as pacing.ready_time; the value is re-encoded with every other field kept.
RESERVE = (
    _PRELUDE
    + """
local nb = tonumber(v['not_before']) or 0
local last = tonumber(v['last_start'])
local ready = nb
if last then ready = math.max(nb, last + tonumber(ARGV[1])) end
if ready > 0 then ready = ready + tonumber(ARGV[2]) end
if ready > now then
  return {string.format('%.6f', ready - now), raw or '{}', string.format('%.6f', now)}
end
for f, val in pairs(cjson.decode(ARGV[3])) do v[f] = val end
v['last_start'] = now
local enc = cjson.encode(v)
set_keeping_ttl(enc, ARGV[4])
return {'0', enc, string.format('%.6f', now)}
"""
)

# KEYS[1] the entry; ARGV: offsets (JSON object field -> seconds from now), assign, ttl ms.
ADVANCE = (
    _PRELUDE
    + """
for f, off in pairs(cjson.decode(ARGV[1])) do
  local want = now + off
  local cur = tonumber(v[f])
  if cur == nil or want > cur then v[f] = want end
end
for f, val in pairs(cjson.decode(ARGV[2])) do v[f] = val end
local enc = cjson.encode(v)
set_keeping_ttl(enc, ARGV[3])
return {enc, string.format('%.6f', now)}
"""
)


def _ms(ttl: float | None) -> int | None:
    return None if ttl is None else max(1, int(ttl * 1000))


def _glob_escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


class RedisStore(StateStore):
    fleet = True

    def __init__(self, url: str, identity: str, connect_now: bool = True):
        try:
            import redis
        except ImportError as exc:
            raise StateStoreError(
                f"{url}: the Redis backend needs the redis package: pip install 'scrapy-walsh[redis]'"
            ) from exc
        super().__init__(url, identity)
        self._errors: tuple[type[BaseException], ...] = (
            redis.ConnectionError,
            redis.TimeoutError,
            redis.exceptions.BusyLoadingError,
        )
        try:
            self._redis = redis.Redis.from_url(
                url, socket_timeout=SOCKET_TIMEOUT, socket_connect_timeout=SOCKET_TIMEOUT, decode_responses=True
            )
        except ValueError as exc:
            raise StateStoreError(f"cannot open the state store {url}: {exc}") from exc
        self._reserve = self._redis.register_script(RESERVE)
        self._advance = self._redis.register_script(ADVANCE)
        #: Redis commands sent (a pipeline or a script counts once): the bench reports it.
        self.round_trips = 0
        #: Seconds spent waiting for an unreachable Redis.
        self.unreachable_seconds = 0.0
        self.prefix = f"walsh:{self.identity}:"
        if connect_now:
            self._call("PING", self._redis.ping)

    # -- keys -------------------------------------------------------------------------

    def _key(self, namespace: str, key: str) -> str:
        return f"{self.prefix}{namespace.replace('%', '%25').replace(':', '%3A')}:{key}"

    # -- the fail-safe wrapper -----------------------------------------------------------

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        """``fn()``, retried until Redis answers; nothing else happens meanwhile."""
        attempt = 0
        started = None
        while True:
            try:
                self.round_trips += 1
                result = fn()
            except self._errors as exc:
                started = started or time.monotonic()
                delay = min(RETRY_MAX, RETRY_FIRST * 2**attempt)
                attempt += 1
                logger.error(
                    "Redis state store %s unreachable (%s: %s) during %s: no request is sent "
                    "until it answers; attempt %d failed, retrying in %.2f s",
                    self.uri,
                    type(exc).__name__,
                    exc,
                    what,
                    attempt,
                    delay,
                )
                time.sleep(delay)
                continue
            except Exception as exc:  # a Redis error that retrying won't fix
                raise StateStoreError(f"state store {self.uri}: {what} failed: {exc}") from exc
            if started is not None:
                down = time.monotonic() - started
                self.unreachable_seconds += down
                logger.warning("Redis state store %s is reachable again after %.1f s; resuming", self.uri, down)
            return result

    # -- the interface ---------------------------------------------------------------------

    def get(self, namespace: str, key: str, default: Any = None) -> Any:
        raw = self._call("GET", lambda: self._redis.get(self._key(namespace, key)))
        return default if raw is None else json.loads(raw)

    def set(self, namespace: str, key: str, value: Any, ttl: float | None = None) -> None:
        encoded = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        self._call("SET", lambda: self._redis.set(self._key(namespace, key), encoded, px=_ms(ttl)))

    def delete(self, namespace: str, key: str) -> None:
        self._call("DEL", lambda: self._redis.delete(self._key(namespace, key)))

    def items(self, namespace: str) -> Iterator[tuple[str, Any]]:
        start = len(self._key(namespace, ""))
        pattern = _glob_escape(self._key(namespace, "")) + "*"
        keys = sorted(self._call("SCAN", lambda: list(self._redis.scan_iter(match=pattern, count=1000))))
        for key, value in self._get_raw(keys).items():
            yield key[start:], value

    def get_many(self, namespace: str, keys: Iterable[str]) -> dict[str, Any]:
        keys = list(keys)
        found = self._get_raw([self._key(namespace, k) for k in keys])
        return {k: found[self._key(namespace, k)] for k in keys if self._key(namespace, k) in found}

    def _get_raw(self, full_keys: list[str]) -> dict[str, Any]:
        if not full_keys:
            return {}
        values = self._call("MGET", lambda: self._redis.mget(full_keys))
        return {k: json.loads(v) for k, v in zip(full_keys, values) if v is not None}

    def reserve(
        self,
        namespace: str,
        key: str,
        interval: float,
        margin: float = 0.0,
        assign: dict[str, Any] | None = None,
        ttl: float | None = None,
    ) -> Slot:
        args = [repr(float(interval)), repr(float(margin)), json.dumps(assign or {}), _ms(ttl) or ""]
        wait, raw, now = self._call("reserve", lambda: self._reserve(keys=[self._key(namespace, key)], args=args))
        return Slot(float(wait), _decode_object(raw), float(now))

    def advance(
        self,
        namespace: str,
        key: str,
        offsets: dict[str, float],
        assign: dict[str, Any] | None = None,
        ttl: float | None = None,
    ) -> Slot:
        args = [json.dumps(offsets), json.dumps(assign or {}), _ms(ttl) or ""]
        raw, now = self._call("advance", lambda: self._advance(keys=[self._key(namespace, key)], args=args))
        return Slot(0.0, _decode_object(raw), float(now))

    def claim(self, namespace: str, key: str, value: Any, ttl: float | None = None) -> bool:
        encoded = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        done = self._call("SET NX", lambda: self._redis.set(self._key(namespace, key), encoded, nx=True, px=_ms(ttl)))
        return bool(done)

    def close(self) -> None:
        self._redis.close()


def _decode_object(raw: str) -> dict[str, Any]:
    """cjson encodes an empty table as ``{}`` and JSON null as ``null``: both are fine here."""
    value = json.loads(raw) if raw else {}
    return value if isinstance(value, dict) else {}
