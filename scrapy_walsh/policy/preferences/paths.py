"""Path patterns for usage preferences: RFC 9309 §2.2.2-2.2.3 matching (pure).

aipref ``Content-Usage`` and TDMRep ``location`` rules match paths as robots.txt does, spelled
by the robots.txt matcher's own normaliser, so a ``Content-Usage`` rule and a ``Disallow`` with
the same path match the same URLs. The walk is O(len(path) x len(pattern)) at worst: no
exponential backtracking. docs/robots-parsing.md says why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy_walsh.policy.path_match import has_lone_percent, normalise, normalise_pattern, spell_as_written

if TYPE_CHECKING:
    from scrapy_walsh.policy.preferences.model import Statement

#: A pattern longer than this is ignored: no real path is, and matching costs its length.
MAX_PATTERN_CHARS = 2048


def _wildcard_match(pattern: str, text: str) -> bool:
    """Does ``pattern`` (``*`` = any run) match the whole of ``text``?"""
    p = t = 0
    star, mark = -1, 0
    while t < len(text):
        if p < len(pattern) and pattern[p] == "*":
            star, mark = p, t
            p += 1
        elif p < len(pattern) and pattern[p] == text[t]:
            p += 1
            t += 1
        elif star != -1:
            p = star + 1
            mark += 1
            t = mark
        else:
            return False
    while p < len(pattern) and pattern[p] == "*":
        p += 1
    return p == len(pattern)


def _spelled(raw: str, anchored: bool, spell: Callable[[str], str]) -> str:
    text = normalise_pattern(raw, spell)
    text = text[:-1] if anchored else text
    while "**" in text:
        text = text.replace("**", "*")
    return text


@dataclass(frozen=True, slots=True)
class PathPattern:
    """One rule's path, normalized; ``length`` ranks it (longest match wins). As a robots.txt
    rule, a pattern holding a ``%`` that starts no escape is spelled as written
    (``as_written``), and so is every pattern compared with a path holding one
    (:mod:`scrapy_walsh.policy.path_match`)."""

    text: str
    anchored: bool
    #: The pattern spelled as written (``text`` itself when ``as_written``).
    written: str = ""
    as_written: bool = False

    @classmethod
    def parse(cls, raw: str) -> PathPattern | None:
        """None for a pattern no path can match (too long, or not starting with ``/`` or ``*``)."""
        if len(raw) > MAX_PATTERN_CHARS:
            return None
        anchored = raw.endswith("$")
        written = _spelled(raw, anchored, spell_as_written)
        as_written = has_lone_percent(raw)
        text = written if as_written else _spelled(raw, anchored, normalise)
        if text and text[0] not in "/*":
            return None
        return cls(text, anchored, written, as_written)

    @property
    def length(self) -> int:
        return len(self.text) + (1 if self.anchored else 0)

    def matches(self, normalized_path: str, written_path: str | None = None) -> bool:
        """Does the rule cover ``normalized_path`` (a path :func:`url_path` normalised)?
        ``written_path`` is the same path as written (:func:`written_path`), None for a path
        without a ``%``."""
        text, path = self.text, normalized_path
        if written_path is not None and (self.as_written or has_lone_percent(written_path)):
            text, path = self.written, written_path
        return _wildcard_match(text if self.anchored else text + "*", path)


@dataclass(frozen=True, slots=True)
class PathRule:
    """A statement that applies to the paths one pattern covers: a robots.txt
    ``Content-Usage`` line with a path, or a ``tdmrep.json`` rule."""

    pattern: PathPattern
    statement: Statement


def url_path(path: str) -> str:
    """The path (and query) to match, normalised as robots.txt rules compare it; an empty path
    is ``/`` (RFC 9309 §2.2.2)."""
    return normalise(path or "/")


def written_path(path: str) -> str | None:
    """The path (and query) as written, for the patterns compared that way; None when it holds
    no ``%`` (it is then :func:`url_path`)."""
    return spell_as_written(path) if "%" in path else None
