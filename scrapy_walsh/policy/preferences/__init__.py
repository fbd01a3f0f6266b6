"""Every usage preference a site publishes, combined per purpose (pure: no Scrapy, no I/O).

One entry point, :func:`usage_decision`: for a URL path and our declared purposes, it gathers
the statements of the selected robots.txt group, ``/.well-known/tdmrep.json`` and the response
headers, and combines them (the most restrictive wins), naming what decided each purpose.
Remote input never raises here; only :meth:`TdmRep.parse` raises, and only :class:`TdmRepError`.
docs/preferences.md says why.
"""

from __future__ import annotations

from collections.abc import Iterable

from scrapy_walsh.policy.preferences.headers import HeaderLines, header_statements
from scrapy_walsh.policy.preferences.model import (
    PURPOSES,
    Preference,
    PurposeDecision,
    Signal,
    Statement,
    UsageDecision,
    combine,
    validate_purposes,
)
from scrapy_walsh.policy.preferences.robots import RobotsLine, RobotsPreferences
from scrapy_walsh.policy.preferences.tdmrep import TdmRep, TdmRepError

__all__ = (
    "PURPOSES",
    "Preference",
    "PurposeDecision",
    "RobotsPreferences",
    "Signal",
    "Statement",
    "TdmRep",
    "TdmRepError",
    "UsageDecision",
    "combine",
    "usage_decision",
    "validate_purposes",
)


def usage_decision(
    path: str,
    purposes: Iterable[str],
    *,
    robots: RobotsPreferences | Iterable[RobotsLine] | None = None,
    tdmrep: TdmRep | None = None,
    headers: HeaderLines | None = None,
    token: str = "",
) -> UsageDecision:
    """The combined answer for each purpose in ``purposes`` about ``path`` (path and query).

    ``token`` is our product token, which scopes ``X-Robots-Tag`` directives. A TDMRep header
    supersedes ``tdmrep.json`` (the report's processing priority); every other pair of
    signals combines, most restrictive first.
    """
    if robots is not None and not isinstance(robots, RobotsPreferences):
        robots = RobotsPreferences.from_lines(robots)
    statements: list[Statement] = []
    if robots is not None:
        statements.extend(robots.statements(path))
    from_headers = header_statements(headers, token=token) if headers is not None else []
    if tdmrep is not None and not any(s.signal is Signal.TDMREP_HEADER for s in from_headers):
        file_statement = tdmrep.statement(path)
        if file_statement is not None:
            statements.append(file_statement)
    statements.extend(from_headers)
    return combine(statements, purposes)
