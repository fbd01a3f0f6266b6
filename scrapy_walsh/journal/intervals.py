"""The interval that applied to a journaled request, and why, in a site owner's words (pure).

A ``send`` entry carries ``interval`` (seconds between the starts of two requests to the host)
and ``why`` (what set it: ``floor``, ``crawl-delay``, ``request-rate``, ``ratelimit``,
``retry-after``, ``backoff``, ``timeout-rest``). Journals written before ``why`` existed carry
``interval`` as ``{"seconds": s, "by": name}``; both read the same here, and an entry with
neither reads as unknown, never as the floor.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

WHY_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "floor": "our minimum interval",
        "crawl-delay": "your robots.txt Crawl-delay",
        "request-rate": "your robots.txt Request-rate",
        "ratelimit": "your RateLimit response fields",
        "retry-after": "your Retry-After",
        "backoff": "our backoff after an error or a slow answer",
        "timeout-rest": "a rest after timeouts",
        "adaptive": "your server's response time",
    }
)
#: ``by`` of the older ``{"seconds", "by"}`` form -> ``why``.
_OLDER: Mapping[str, str] = MappingProxyType(
    {"floor": "floor", "crawl_delay": "crawl-delay", "request_rate": "request-rate", "ratelimit": "ratelimit"}
)
#: Answers that make us pause a host (R5).
PAUSING = (429, 503)


def applied(entry: Mapping[str, Any]) -> tuple[float | None, str | None]:
    """(seconds, why) of a send entry; None for what it does not say."""
    interval = entry.get("interval")
    why = entry.get("why")
    if isinstance(interval, Mapping):  # the older form
        seconds = interval.get("seconds")
        by = interval.get("by")
        why = why or _OLDER.get(str(by), str(by) if by else None)
        interval = seconds
    if isinstance(interval, bool) or not isinstance(interval, int | float):
        interval = None
    return (float(interval) if interval is not None else None), (str(why) if why else None)


def words(entry: Mapping[str, Any]) -> str:
    """``3 s (your Retry-After)``; ``unknown`` when the entry does not say."""
    seconds, why = applied(entry)
    if seconds is None:
        return "unknown"
    return f"{round(seconds, 3):g} s ({WHY_WORDS.get(why or '', why or 'why unknown')})"


def backoff_cause(before: Mapping[str, Any]) -> str:
    """What a ``backoff`` followed, from the request before it: an error answer (a 5xx, a 429), a
    request that got no answer, or a slow answer (how long it took)."""
    status = before.get("status")
    if isinstance(status, int) and not isinstance(status, bool) and (status >= 500 or status == 429):
        return f"an error answer ({status})"
    outcome = before.get("outcome")
    if status is None and isinstance(outcome, str) and outcome:
        return f"an error ({outcome[:60]})"
    took = before.get("settled", before.get("t", 0)) - before.get("t", 0)
    return f"a slow answer ({took:.1f} s)" if took > 0 else "a slow answer"
