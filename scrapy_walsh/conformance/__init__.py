"""The settings audit: each rule maps a Scrapy setting onto a row of the §8 checklist.

- :mod:`.engine`: ``Finding``, its ``Status``, and running the rules (``audit_settings``,
  ``enforce``);
- :mod:`.rules`: the rules, one module per requirement;
- :mod:`.checklist`: the §8 rows ``scrapy walsh check`` reports;
- :mod:`.guard`: ``ConformanceGuard``, the extension that audits the final settings.
"""

from __future__ import annotations

from ..exceptions import ConformanceError
from .checklist import CHECKLIST, GENERAL_ROW, MUST, SHOULD, ChecklistRow, RowResult, checklist, overall
from .engine import (
    FAIL,
    PASS,
    WARN,
    Finding,
    Status,
    audit_settings,
    component_enabled,
    enabled_components,
    enforce,
    path_of,
    user_set,
)
from .guard import ConformanceGuard

__all__ = [
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
]
