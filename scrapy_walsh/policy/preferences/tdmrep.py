"""``/.well-known/tdmrep.json`` -> a per-path TDM statement (pure).

TDMRep (W3C Community Group final report, 10 May 2024): the first rule in sequence whose
``location`` matches the path applies; an invalid rule is skipped. A body that is not such a
document raises :class:`TdmRepError`, and only that: the caller treats it as absent.
docs/preferences.md ("Each parser's reading") says why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from scrapy_walsh.policy.preferences.model import AI_INPUT, TRAIN_AI, Preference, Signal, Statement
from scrapy_walsh.policy.preferences.paths import PathPattern, PathRule, url_path, written_path

#: The same cap as robots.txt (RFC 9309 §2.5): a larger file is not parsed at all.
MAX_BYTES = 512_000
#: Rules after this many are ignored (each costs a match per URL).
MAX_RULES = 1000
_AI = (TRAIN_AI, AI_INPUT)


class TdmRepError(ValueError):
    """``tdmrep.json`` is not a TDMRep document (not JSON, not an array, or too large)."""


@dataclass(frozen=True, slots=True)
class TdmRep:
    """A parsed ``tdmrep.json``: its valid rules, in the file's order."""

    rules: tuple[PathRule, ...] = ()

    @classmethod
    def parse(cls, body: str | bytes) -> TdmRep:
        """Raises :class:`TdmRepError` (a ``ValueError``) for anything but a JSON array."""
        if len(body) > MAX_BYTES:
            raise TdmRepError(f"tdmrep.json is larger than {MAX_BYTES} bytes")
        try:
            document = json.loads(body)
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            raise TdmRepError(f"tdmrep.json is not JSON: {exc.__class__.__name__}") from None
        if not isinstance(document, list):
            raise TdmRepError("tdmrep.json is not a JSON array")
        rules = []
        for index, entry in enumerate(document[:MAX_RULES]):
            rule = _rule(index, entry)
            if rule is not None:
                rules.append(rule)
        return cls(tuple(rules))

    def statement(self, path: str) -> Statement | None:
        """The first rule covering ``path``, or None (TDM unset)."""
        target, written = url_path(path), written_path(path)
        return next((rule.statement for rule in self.rules if rule.pattern.matches(target, written)), None)


def _rule(index: int, entry: object) -> PathRule | None:
    if not isinstance(entry, dict):
        return None
    location, reservation = entry.get("location"), entry.get("tdm-reservation")
    if not isinstance(location, str) or isinstance(reservation, bool) or reservation not in (0, 1):
        return None
    pattern = PathPattern.parse(location)
    if pattern is None:
        return None
    source = f"tdmrep.json rule {index}: location {location[:100]!r}, tdm-reservation {reservation}"
    if reservation == 1:
        policy = entry.get("tdm-policy")
        reference = policy[:2048] if isinstance(policy, str) and policy else None
        return PathRule(
            pattern, Statement(Signal.TDMREP_FILE, source, dict.fromkeys(_AI, Preference.RESERVED), reference)
        )
    return PathRule(pattern, Statement(Signal.TDMREP_FILE, source, dict.fromkeys(_AI, Preference.ALLOWED)))
