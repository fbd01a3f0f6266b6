"""The document's dates, date-times (RFC 3339) and durations (ISO 8601), read strictly."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

from scrapy_walsh.policy.blocklist.errors import short

_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)
_DATETIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))", re.ASCII
)
_NUM = r"(\d+(?:[.,]\d+)?)"
_DURATION = re.compile(
    rf"([+-])?P(?!$)(?:{_NUM}Y)?(?:{_NUM}M)?(?:{_NUM}W)?(?:{_NUM}D)?(?:T(?=\d)(?:{_NUM}H)?(?:{_NUM}M)?(?:{_NUM}S)?)?",
    re.ASCII,
)
#: Seconds per designator; a year and a month have no fixed length, so 365 and 30 days.
_DURATION_UNITS = (365 * 86400, 30 * 86400, 7 * 86400, 86400, 3600, 60, 1)


def parse_date(value: object) -> date:
    """A ``YYYY-MM-DD`` date; ``ValueError`` if ``value`` isn't one."""
    if not isinstance(value, str) or not _DATE.fullmatch(value):
        raise ValueError(f"{short(repr(value), 80)} is not a date (YYYY-MM-DD)")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a date (YYYY-MM-DD)") from None


def parse_datetime(value: object) -> datetime:
    """An RFC 3339 date-time, timezone-aware (a leap second reads as :59); ``ValueError`` otherwise."""
    m = _DATETIME.fullmatch(value) if isinstance(value, str) else None
    if m is None:
        raise ValueError(f"{short(repr(value), 80)} is not an RFC 3339 date-time")
    year, month, day, hour, minute, second = (int(g) for g in m.group(1, 2, 3, 4, 5, 6))
    micro = int((m.group(7) or "0")[:6].ljust(6, "0"))
    if m.group(8):
        tz = timezone.utc
    else:
        offset = timedelta(hours=int(m.group(10)), minutes=int(m.group(11)))
        tz = timezone(-offset if m.group(9) == "-" else offset)
    try:
        return datetime(year, month, day, hour, minute, min(second, 59), micro, tzinfo=tz)  # 60: leap second
    except ValueError:
        raise ValueError(f"{value!r} is not an RFC 3339 date-time") from None


def parse_duration(value: str) -> float:
    """Seconds in an ISO-8601 duration such as ``PT6H`` or ``P1DT12H`` (years count
    365 days, months 30); ``ValueError`` if it isn't one. Not bounded."""
    m = _DURATION.fullmatch(value) if isinstance(value, str) else None
    if m is None:
        raise ValueError(f"{short(repr(value), 80)} is not an ISO-8601 duration (e.g. PT6H)")
    seconds = sum(float(g.replace(",", ".")) * unit for g, unit in zip(m.groups()[1:], _DURATION_UNITS) if g)
    return -seconds if m.group(1) == "-" else seconds
