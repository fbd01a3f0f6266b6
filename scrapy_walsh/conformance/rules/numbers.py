"""Every number the crawl's politeness rests on is finite.

``nan`` compares false with everything, so ``DOWNLOAD_DELAY = nan`` slips through every
"under the floor" check, and an infinite timeout or delay is no number a crawl can act on.
The ``WALSH_*`` numbers are refused by their own parsers (:func:`scrapy_walsh.config.number`);
this rule refuses the Scrapy settings the audit and the gates read, when set to something
that is not a finite number. A value Scrapy itself can't read as a number is refused too,
with the same message, rather than crashing the crawl later with a traceback.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from scrapy_walsh.conformance.engine import FAIL, Finding, Subject

#: Scrapy's numeric settings, with the checklist row and requirement each one bears on.
SCRAPY_NUMBERS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "DOWNLOAD_DELAY": ("4", "R4"),
        "DOWNLOAD_DELAY_JITTER": ("4", "R4"),
        "CONCURRENT_REQUESTS": ("4", "R4"),
        "CONCURRENT_REQUESTS_PER_DOMAIN": ("4", "R4"),
        "CONCURRENT_REQUESTS_PER_IP": ("4", "R4"),
        "CONCURRENT_ITEMS": ("-", "configuration"),
        "AUTOTHROTTLE_START_DELAY": ("4", "R4"),
        "AUTOTHROTTLE_MAX_DELAY": ("4", "R4"),
        "AUTOTHROTTLE_TARGET_CONCURRENCY": ("4", "R4"),
        "DOWNLOAD_TIMEOUT": ("4", "R4"),
        "DNS_TIMEOUT": ("4", "R4"),
        "RETRY_TIMES": ("5", "R5"),
        "REDIRECT_MAX_TIMES": ("-", "configuration"),
        "DOWNLOAD_MAXSIZE": ("-", "configuration"),
        "DOWNLOAD_WARNSIZE": ("-", "configuration"),
    }
)


def _finite(value: Any) -> bool:
    if isinstance(value, bool):
        return True  # Scrapy reads True as 1
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError, OverflowError):
        return False


def finite_numbers(subject: Subject) -> Iterator[Finding]:
    settings = subject.settings
    for name, (row, requirement) in SCRAPY_NUMBERS.items():
        value = settings.get(name)
        if value is None or _finite(value):
            continue
        yield Finding(
            row,
            requirement,
            FAIL,
            name,
            f"must be a finite number, got {value!r} (NaN and infinity are refused)",
        )
    slots = settings.getdict("DOWNLOAD_SLOTS") if settings.get("DOWNLOAD_SLOTS") else {}
    for key, conf in slots.items():
        if not isinstance(conf, dict):
            continue
        for field in ("delay", "concurrency"):
            value = conf.get(field)
            if value is not None and not _finite(value):
                yield Finding(
                    "4",
                    "R4",
                    FAIL,
                    "DOWNLOAD_SLOTS",
                    f"slot {key!r} has {field} {value!r}: must be a finite number (NaN and infinity are refused)",
                )
