"""RateLimit header fields -> the seconds between requests a host asks for (pure).

draft-ietf-httpapi-ratelimit-headers-10: ``RateLimit-Policy`` asks for ``w / q`` seconds,
``RateLimit`` for ``t / r``; only request quotas count, and a malformed field is ignored. The
answer is the slowest pace any item asks for, capped at :data:`MAX_INTERVAL`: a pacing term
that can only lower our rate. Nothing here raises on any input. docs/preferences.md says why.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import http_sf

HeaderLines = Iterable[tuple[str | bytes, str | bytes]]
#: A host asking for more than a day between requests is answered with a day: the term
#: still stops the crawl of that host for the run, without overflowing a ledger.
MAX_INTERVAL = 86_400.0
#: A field longer than this is ignored (it cannot mean more than a few policies).
MAX_FIELD_BYTES = 16_384
REQUESTS = "requests"


@dataclass(frozen=True, slots=True)
class RateLimitHint:
    """The seconds between requests a host asks for, and the item that asked it."""

    seconds: float
    source: str


def _text(value: str | bytes) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)


def _items(values: list[str]) -> list[tuple[str, dict]]:
    """(identifier, parameters) of each member of a List field; [] if it does not parse."""
    joined = ", ".join(values).encode("latin-1", "replace")
    if not joined.strip() or len(joined) > MAX_FIELD_BYTES:
        return []
    try:
        parsed: Any = http_sf.parse(joined, tltype="list")
    except ValueError:  # http_sf.StructuredFieldError
        return []
    found = []
    for value, params in parsed:
        if not isinstance(value, str | http_sf.Token):  # an inner list, a number, bytes ...
            continue
        found.append((str(value), dict(params)))
    return found


def _count(params: dict, key: str, *, positive: bool = False) -> int | None:
    value = params.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < (1 if positive else 0):
        return None
    return value


def parse_ratelimit(headers: HeaderLines) -> RateLimitHint | None:
    """The slowest pace the ``RateLimit-Policy`` and ``RateLimit`` fields ask for, or None."""
    fields: dict[str, list[str]] = {}
    for name, value in headers:
        key = _text(name).strip().lower()
        if key in ("ratelimit-policy", "ratelimit"):
            fields.setdefault(key, []).append(_text(value))
    hints: list[RateLimitHint] = []
    units: dict[str, object] = {}
    for name, params in _items(fields.get("ratelimit-policy", [])):
        units[name] = params.get("qu", REQUESTS)
        quota, window = _count(params, "q"), _count(params, "w", positive=True)
        if quota is None or window is None or units[name] != REQUESTS:
            continue
        seconds = window / quota if quota else float(window)
        hints.append(RateLimitHint(seconds, f'RateLimit-Policy: "{name[:60]}";q={quota};w={window}'))
    for name, params in _items(fields.get("ratelimit", [])):
        remaining, reset = _count(params, "r"), _count(params, "t")
        if remaining is None or reset is None or units.get(name, REQUESTS) != REQUESTS:
            continue
        seconds = reset / remaining if remaining else float(reset)
        hints.append(RateLimitHint(seconds, f'RateLimit: "{name[:60]}";r={remaining};t={reset}'))
    if not hints:
        return None
    slowest = max(hints, key=lambda hint: hint.seconds)
    return RateLimitHint(min(slowest.seconds, MAX_INTERVAL), slowest.source)


def requested_interval(headers: HeaderLines) -> float | None:
    """Seconds between requests the host asks for (a pacing term), or None if it asks nothing."""
    hint = parse_ratelimit(headers)
    return None if hint is None else hint.seconds
