"""The usage-preference model: purposes, statements and their combination (pure: no I/O).

A site states preferences about how what we fetch may be *used*, in several vocabularies.
Each parser (``preferences.robots``, ``preferences.headers``, ``preferences.tdmrep``) turns
one signal into :class:`Statement` objects in one vocabulary, ours: the purposes of the IETF
aipref vocabulary (draft-ietf-aipref-vocab-07, 19 August 2026). :func:`combine` then answers,
per declared purpose, ``allowed``, ``reserved`` or ``unknown``, and names the statement that
decided it. Revision -08 (13 September 2026) is listed by the IETF, but its text could not
be found; -07 is the newest text read.

Combination is vocab-07 §5.1 ("Combining Preferences"): any statement that disallows a
purpose wins; otherwise any that allows it; otherwise unknown. So the most restrictive
statement wins across signals, and adding a reservation never turns ``reserved`` into
``allowed``. Precedence *inside* one signal (the longest Content-Usage path, TDMRep's header
over its file) is the parsers' business, as each specification says.

Mapping of the vocabularies onto ours (``-`` = that signal says nothing about the purpose):

================================  ============  ============  ==========================
signal (value)                    ``search``    ``train-ai``  ``ai-input`` (extension)
================================  ============  ============  ==========================
aipref ``Content-Usage`` (y / n)  ``search``    ``train-ai``  -
Content Signals (yes / no)        ``search``    ``ai-train``  ``ai-input``
TDMRep ``tdm-reservation`` 1 / 0  -             reserved /    reserved / allowed
                                                allowed
X-Robots-Tag ``noai``             -             reserved      reserved
X-Robots-Tag ``noimageai``        -             reserved *    reserved *
X-Robots-Tag ``noindex``/``none`` reserved      -             -
RSL ``License:``                  -             -             - (the licence URL is kept)
================================  ============  ============  ==========================

``*`` only when the response is an image. ``ai-input`` (using content as live input to an
AI model: retrieval, grounding) is no aipref category in vocab-07 (its last non-training
category, ``ai-output``, was dropped in -05); Content Signals defines it, so it is accepted
as an extension purpose. TDM (text and data mining, CDSM Directive art. 4) covers training
and AI input; search indexing is not mapped from it: TDMRep says nothing a search engine
is asked to stop.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

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
