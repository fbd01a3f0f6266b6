"""Exceptions every gate raises, so a denial always carries its gate and verdict."""

from __future__ import annotations

from typing import Any

from scrapy.exceptions import IgnoreRequest


class WalshIgnoreRequest(IgnoreRequest):
    """A request a scrapy_walsh gate refused.

    Subclasses set ``gate`` (``blocklist``, ``robots``, ``scope`` ...). ``verdict`` is
    one of the seed-000 names (``disallowed_explicit``, ``unknown_unreachable`` ...)
    or a gate's own (``blocked_by_operator``). Errbacks can read both from the
    exception, and the compliance summary counts them per gate and verdict.
    """

    gate = "walsh"

    def __init__(self, verdict: str, reason: str, url: str = "", **details: Any):
        self.verdict = verdict
        self.reason = reason
        self.url = url
        self.details = details
        super().__init__(f"{self.gate}: {verdict}: {reason}" + (f" <{url}>" if url else ""))


def record_denial(stats: Any, exc: WalshIgnoreRequest) -> None:
    """Count a denial under ``walsh/denied``, per gate and per gate+verdict."""
    stats.inc_value("walsh/denied")
    stats.inc_value(f"walsh/denied/{exc.gate}")
    stats.inc_value(f"walsh/denied/{exc.gate}/{exc.verdict}")
