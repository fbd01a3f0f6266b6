"""Running the audit: every rule over one set of settings (``audit_settings``), and refusing a
crawl on any failure (``enforce``).

Apart from :mod:`.engine`, which the rules themselves import, so that the engine never imports
the rules back.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy_walsh.config import Readings
from scrapy_walsh.conformance.engine import Subject
from scrapy_walsh.conformance.rules import RULES
from scrapy_walsh.exceptions import FAIL, WARN, ConformanceError, Finding

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

logger = logging.getLogger(__name__)


def audit_settings(settings: BaseSettings, readings: Readings | None = None) -> list[Finding]:
    """Run every rule against effective settings; never raises on bad input.

    A rule that cannot read a malformed value fails closed: its row becomes a
    ``fail`` naming the error, instead of a crash or a silent pass.
    """
    subject = Subject(settings, readings or Readings(settings))
    findings: list[Finding] = []
    for check in RULES:
        try:
            findings.extend(check(subject))
        except Exception as exc:  # noqa: BLE001 - any unreadable value must refuse the crawl
            findings.append(
                Finding("-", "configuration", FAIL, None, f"{check.__name__.strip('_')}: cannot audit: {exc!r}")
            )
    # Every WALSH_* value the add-on reads and refuses stops the crawl here, with its reason,
    # whether or not a rule above looks at it (never a traceback from the config later).
    failed = {f.setting for f in findings if f.status == FAIL}
    for name, error in subject.walsh.errors.items():
        if name not in failed:
            findings.append(Finding("-", "configuration", FAIL, name, f"cannot be read: {error}"))
    return findings


def enforce(settings: BaseSettings, log_warnings: bool = True) -> list[Finding]:
    """Audit, log the warnings, and raise :class:`ConformanceError` on any failure."""
    findings = audit_settings(settings)
    if any(f.status == FAIL for f in findings):
        raise ConformanceError(findings)
    if log_warnings:
        for f in findings:
            if f.status == WARN:
                logger.warning("scrapy_walsh: %s", f)
    return findings
