"""The usage-preference model: purposes, statements and their combination (pure: no I/O).

Each parser turns one signal into :class:`Statement` objects in our vocabulary, the purposes of
IETF aipref (draft-ietf-aipref-vocab-07); :func:`combine` answers, per declared purpose,
``allowed``, ``reserved`` or ``unknown`` (vocab-07 §5.1: the most restrictive statement wins),
and names the statement that decided it. docs/preferences.md ("Purposes", "Every signal",
"Combining") has the mapping of each vocabulary and says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from scrapy_walsh.policy.vocabulary import StrEnum

#: aipref vocab-07 §6.1 labels, plus the ``ai-input`` extension (see the module docstring).
SEARCH = "search"
TRAIN_AI = "train-ai"
AI_INPUT = "ai-input"
PURPOSES: tuple[str, ...] = (SEARCH, TRAIN_AI, AI_INPUT)


class Preference(StrEnum):
    """One purpose's answer (vocab-07 §3: allowed, disallowed, unknown)."""

    ALLOWED = "allowed"
    RESERVED = "reserved"
    UNKNOWN = "unknown"


class Signal(StrEnum):
    """Where a statement came from, as ``explain`` and the stats name it."""

    CONTENT_USAGE_ROBOTS = "content-usage/robots"
    CONTENT_USAGE_HEADER = "content-usage/header"
    CONTENT_SIGNAL_ROBOTS = "content-signal/robots"
    CONTENT_SIGNAL_HEADER = "content-signal/header"
    TDMREP_FILE = "tdmrep/file"
    TDMREP_HEADER = "tdmrep/header"
    X_ROBOTS_TAG = "x-robots-tag"
    RSL_LICENSE = "rsl/license"


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement of preference: what one line or header says, in our purposes.

    ``preferences`` holds only explicit answers (allowed or reserved); a purpose it does not
    name is unknown. ``source`` is the line or header as the site wrote it, for ``explain``.
    """

    signal: Signal
    source: str
    preferences: Mapping[str, Preference] = field(default_factory=dict)
    #: A URL the statement points to: an RSL licence or a TDM policy.
    reference: str | None = None


@dataclass(frozen=True, slots=True)
class PurposeDecision:
    """The combined answer for one purpose, and the statement that decided it (if any)."""

    purpose: str
    preference: Preference
    signal: Signal | None = None
    source: str | None = None

    def as_dict(self) -> dict[str, str | None]:
        return {
            "purpose": self.purpose,
            "preference": str(self.preference),
            "signal": None if self.signal is None else str(self.signal),
            "source": self.source,
        }


@dataclass(frozen=True, slots=True)
class UsageDecision:
    """Every declared purpose's answer, plus the licences and policies the site points to."""

    decisions: tuple[PurposeDecision, ...]
    #: RSL licence URLs and TDM policy URLs, in the order met.
    references: tuple[str, ...] = ()

    def __getitem__(self, purpose: str) -> PurposeDecision:
        for decision in self.decisions:
            if decision.purpose == purpose:
                return decision
        raise KeyError(purpose)

    @property
    def reserved(self) -> tuple[str, ...]:
        """The declared purposes the site reserves (what ``"respect"`` mode acts on)."""
        return tuple(d.purpose for d in self.decisions if d.preference is Preference.RESERVED)

    def as_dict(self) -> dict[str, object]:
        """A JSON-ready form for items (``walsh.usage``)."""
        return {
            "decisions": [d.as_dict() for d in self.decisions],
            "reserved": list(self.reserved),
            "references": list(self.references),
        }


def validate_purposes(purposes: Iterable[str]) -> tuple[str, ...]:
    """Our declared purposes, checked against the vocabulary (operator input, so it raises)."""
    declared = tuple(dict.fromkeys(purposes))
    unknown = [p for p in declared if p not in PURPOSES]
    if unknown:
        raise ValueError(f"unknown purpose(s) {unknown}; known: {list(PURPOSES)}")
    return declared


def combine(statements: Iterable[Statement], purposes: Iterable[str]) -> UsageDecision:
    """vocab-07 §5.1 per purpose: reserved if any statement reserves it, else allowed if any
    allows it, else unknown. The first statement (in the order given) that decided is named."""
    declared = validate_purposes(purposes)
    statements = tuple(statements)
    decisions = []
    for purpose in declared:
        decided = PurposeDecision(purpose, Preference.UNKNOWN)
        for statement in statements:
            said = statement.preferences.get(purpose)
            if said is Preference.RESERVED:
                decided = PurposeDecision(purpose, said, statement.signal, statement.source)
                break
            if said is Preference.ALLOWED and decided.preference is Preference.UNKNOWN:
                decided = PurposeDecision(purpose, said, statement.signal, statement.source)
        decisions.append(decided)
    references = tuple(dict.fromkeys(s.reference for s in statements if s.reference))
    return UsageDecision(tuple(decisions), references)
