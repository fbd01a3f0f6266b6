"""The settings audit: each rule maps a Scrapy setting onto a row of the §8 checklist.

- :mod:`.engine`: what a rule reads (``Subject``) and the helpers rules share; ``Finding`` and
  its ``Status`` are defined with ``ConformanceError`` in :mod:`scrapy_walsh.exceptions`;
- :mod:`.audit`: running the rules (``audit_settings``) and refusing a crawl (``enforce``);
- :mod:`.rules`: the rules, one module per requirement;
- :mod:`.checklist`: the §8 rows ``scrapy walsh check`` reports;
- :mod:`.guard`: ``ConformanceGuard``, the extension that audits the final settings.
"""

from __future__ import annotations

from scrapy_walsh.conformance.audit import audit_settings, enforce
from scrapy_walsh.conformance.checklist import (
    CHECKLIST,
    GENERAL_ROW,
    MUST,
    SHOULD,
    ChecklistRow,
    RowResult,
    checklist,
    overall,
)
from scrapy_walsh.conformance.engine import (
    FAIL,
    PASS,
    WARN,
    Finding,
    Status,
    component_enabled,
    enabled_components,
    path_of,
    user_set,
)
from scrapy_walsh.conformance.guard import ConformanceGuard
from scrapy_walsh.exceptions import ConformanceError

__all__ = (
    "CHECKLIST",
    "FAIL",
    "GENERAL_ROW",
    "MUST",
    "PASS",
    "SHOULD",
    "WARN",
    "ChecklistRow",
    "ConformanceError",
    "ConformanceGuard",
    "Finding",
    "RowResult",
    "Status",
    "audit_settings",
    "checklist",
    "component_enabled",
    "enabled_components",
    "enforce",
    "overall",
    "path_of",
    "user_set",
)
