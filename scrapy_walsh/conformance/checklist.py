"""The contract (§8), row by row: each row's findings and its status, for ``scrapy walsh check``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from scrapy_walsh.conformance.engine import FAIL, PASS, WARN, Finding, Status

MUST, SHOULD = "MUST", "SHOULD"


@dataclass(frozen=True)
class ChecklistRow:
    """One row of the contract (§8.)"""

    row: str
    requirement: str
    level: str
    title: str


#: The contract (§8), in its order. Row 9 mixes SHOULD (markdown, llms.txt) and MUST NOT
#: (scrape HTML); a fail there is always the MUST NOT.
CHECKLIST: tuple[ChecklistRow, ...] = (
    ChecklistRow("1", "R1", MUST, "Exact User-Agent string"),
    ChecklistRow("2", "R2", MUST, "robots.txt fetched + obeyed, RFC 9309 group selection"),
    ChecklistRow("2a", "R2", MUST, "Named Walsh-Research group overrides *"),
    ChecklistRow("3", "R3", MUST, "Operator blocklist consulted, checked before robots"),
    ChecklistRow("3a", "R3", MUST, "apex + subdomain match"),
    ChecklistRow("3b", "R3", MUST, "retain last list on fetch failure"),
    ChecklistRow("3c", "R3", SHOULD, "validate against schema; reject invalid"),
    ChecklistRow("4", "R4", MUST, "serial; <= 1 req/s/domain; honor Crawl-delay"),
    ChecklistRow("5", "R5", MUST, "429/503 exponential backoff + jitter; Retry-After"),
    ChecklistRow("6", "R6", MUST, "no recursion, no sub-resources, metadata-only"),
    ChecklistRow("7", "R7", SHOULD, "conditional fetch + dedup"),
    ChecklistRow("8", "R8", SHOULD, "infrequent"),
    ChecklistRow("9", "R9", MUST, "feed-less: content-neg markdown / llms.txt; never scrape HTML"),
)
#: Findings not tied to one row (unknown WALSH_* names, a missing add-on, unreadable values).
GENERAL_ROW = ChecklistRow("-", "configuration", MUST, "the configuration can be audited")
_STATUS_RANK: Mapping[str, int] = MappingProxyType({PASS: 0, WARN: 1, FAIL: 2})


@dataclass(frozen=True)
class RowResult:
    """A checklist row with its findings; its status is the worst of them."""

    row: ChecklistRow
    findings: tuple[Finding, ...]

    @property
    def status(self) -> Status:
        if not self.findings:
            return WARN  # no rule audited it: never a silent pass
        return max((f.status for f in self.findings), key=_STATUS_RANK.__getitem__)


def checklist(findings: list[Finding]) -> list[RowResult]:
    """Every §8 row with its findings, in checklist order (general findings first)."""
    rows = [RowResult(r, tuple(f for f in findings if f.row == r.row)) for r in CHECKLIST]
    known = {r.row for r in CHECKLIST}
    general = tuple(f for f in findings if f.row not in known)
    return ([RowResult(GENERAL_ROW, general)] if general else []) + rows


def overall(rows: list[RowResult]) -> Status:
    """``fail`` when any row fails (a MUST breaks, or the add-on would refuse to start)."""
    return max((r.status for r in rows), key=_STATUS_RANK.__getitem__, default=PASS)
