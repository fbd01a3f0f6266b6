"""The building blocks of the ``WALSH_*`` parsers: numbers, lists, URLs, flags, HTTP codes."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    pass


def number(value: Any) -> float:
    """A finite number as Scrapy's ``getfloat`` reads it (``2``, ``2.5``, ``"2.5"``), else ``ValueError``.

    Every float setting is read here. NaN and infinity are refused: ``nan`` compares false
    with everything, so it slips through every ``<`` check ("paused for nan s"), and an
    infinite interval or cap means nothing a crawl can act on.
    """
    try:
        result = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"not a number: {value!r}") from None
    if not math.isfinite(result):
        raise ValueError(f"not a finite number: {value!r} (NaN and infinity are refused)")
    return result


def number_or_none(value: Any) -> float | None:
    try:
        return number(value)
    except ValueError:
        return None


def _finite_note(value: Any) -> str:
    """`` (NaN and infinity are refused)`` when ``value`` reads as one of them, for the messages."""
    try:
        return "" if math.isfinite(float(value)) else " (NaN and infinity are refused)"
    except (TypeError, ValueError, OverflowError):
        return ""


def whole_number(value: Any) -> int | None:
    """A non-negative whole number as a setting may hold it (``5`` or ``"5"``), else None."""
    text = str(value)
    return None if isinstance(value, bool) or not (text.isascii() and text.isdigit()) else int(text)


def as_list(value: Any) -> list[Any]:
    """A list setting as Scrapy's ``getlist`` reads it: a comma-separated string or an
    iterable (``TypeError`` otherwise, as there)."""
    if not value:
        return []
    if isinstance(value, str):
        return value.split(",")
    return list(value)


def is_http_url(value: Any) -> bool:
    parts = urlsplit(value) if isinstance(value, str) else None
    return bool(parts and parts.scheme in {"http", "https"} and parts.hostname)


def http_codes(value: Any) -> tuple[int, ...]:
    """The statuses of a list setting, as integers in its order; ``ValueError`` when one is not."""
    try:
        return tuple(int(c) for c in as_list(value))
    except (TypeError, ValueError):
        raise ValueError(f"expected HTTP status codes, got {value!r}") from None


def flag(value: Any) -> bool:
    """A boolean as Scrapy's ``getbool`` reads it (``True``, ``1``, ``"true"``, ``"0"``...)."""
    if value is None:
        return False
    try:
        return bool(int(value))
    except (TypeError, ValueError):
        if value in ("True", "true"):
            return True
        if value in ("False", "false"):
            return False
    raise ValueError(f"must be True or False, got {value!r}")
