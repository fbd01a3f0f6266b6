"""Every usage preference a site publishes, combined per purpose (pure: no Scrapy, no I/O).

One entry point, :func:`usage_decision`: for a URL path and our declared purposes (aipref
labels, e.g. ``("search",)`` or ``("search", "train-ai")``), it gathers the statements of

* the selected robots.txt group (:mod:`.preferences.robots`: ``Content-Usage`` per path,
  ``Content-Signal``, RSL ``License``),
* ``/.well-known/tdmrep.json`` (:mod:`.preferences.tdmrep`),
* the response headers (:mod:`.preferences.headers`: ``Content-Usage``, ``Content-Signal``,
  ``tdm-reservation``/``tdm-policy``, ``X-Robots-Tag``),

and combines them (:func:`.preferences.model.combine`: the most restrictive wins), naming the
signal and the line or header that decided each purpose. The vocabulary mapping and the
revisions implemented are in :mod:`.preferences.model` and ``docs/preferences.md``.

Before a fetch only robots.txt and tdmrep.json are known: pass no headers, and a purpose
they reserve is already reserved (headers can only add reservations). Remote input never
raises here; only :meth:`TdmRep.parse` raises, and only :class:`TdmRepError`.
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
