"""A URL pattern per callback, from the URLs a site's manifests list: ``check``'s suggestion of
``WALSH_DISCOVERY_ROUTES`` for a spider that follows links. Pure.

A callback named ``parse_recipe`` is matched to the listed URLs with a ``recipe`` (or ``recipes``)
path segment; the largest group of them of one depth becomes a pattern, each segment written out
where it is the same in all of them, else generalised (digits, or any segment, with its extension).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from scrapy_walsh.policy.urls import split

#: Words of a callback's name that say what it does, not which pages it parses.
_VERBS = frozenset({"parse", "get", "handle", "on", "cb"})
#: Words of a callback's name that say nothing about which pages it parses.
_FILLER = frozenset({"parse", "get", "handle", "on", "page", "pages", "item", "items", "detail", "details", "cb"})


def _singular(word: str) -> str:
    word = word.lower()
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def callback_words(callback: str) -> list[str]:
    """``parse_recipe_page`` -> ``["recipe"]``: what the name says the pages are (``parse_page`` ->
    ``["page"]``: a filler word is kept when it is all the name says)."""
    words = [w.lower() for w in re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", callback) if w]
    telling = [w for w in words if w not in _FILLER] or [w for w in words if w not in _VERBS]
    return [_singular(w) for w in telling]


def _segments(path: str) -> tuple[str, ...]:
    return tuple(s for s in path.split("/") if s)


def _stem(segment: str) -> str:
    return _singular(segment.rsplit(".", 1)[0])


def _generalised(values: Sequence[str], literal: bool) -> str:
    """One regex for the segments of one position: as written when all are the same and ``literal``."""
    if literal and len(set(values)) == 1 and not values[0].isdigit():
        return re.escape(values[0])
    extensions = {v.rsplit(".", 1)[1] if "." in v else "" for v in values}
    stems = [v.rsplit(".", 1)[0] if "." in v else v for v in values]
    tail = "\\." + re.escape(extensions.pop()) if len(extensions) == 1 and "" not in extensions else ""
    if not tail and len(extensions) > 1:
        return "[^/]+"
    return ("\\d+" if all(s.isdigit() for s in stems) else "[^/]+") + tail


def pattern_for(paths: Sequence[str], named: int) -> str:
    """A regex (searched in the URL) naming every path of ``paths`` (all of one depth); the segments
    after the one at ``named`` (the callback's word) stand for any page there."""
    split_paths = [_segments(p) for p in paths]
    depth = len(split_paths[0])
    parts = [_generalised([s[i] for s in split_paths], i <= named or i < depth - 1) for i in range(depth)]
    slash = "/" if all(p.endswith("/") for p in paths) else ""
    return "/" + "/".join(parts) + slash + "$"


def suggest(callbacks: Iterable[str], urls: Iterable[str]) -> dict[str, str | None]:
    """callback -> a pattern for the listed URLs its name points at; None when none does."""
    paths = []
    for url in urls:
        try:
            path = split(url).path or "/"
        except ValueError:
            continue
        if _segments(path):
            paths.append(path)
    found: dict[str, str | None] = {}
    for callback in callbacks:
        words = set(callback_words(callback))
        groups: Counter[tuple[int, int]] = Counter()
        members: dict[tuple[int, int], list[str]] = {}
        for path in paths:
            segments = _segments(path)
            for index, segment in enumerate(segments):
                if _stem(segment) in words:
                    key = (index, len(segments))
                    groups[key] += 1
                    members.setdefault(key, []).append(path)
                    break
        if not groups:
            found[callback] = None
            continue
        best = max(groups, key=lambda k: (groups[k], k[1]))  # the most URLs; then the deeper pages
        found[callback] = pattern_for(members[best], best[0])
    return found


def guess(callback: str) -> str:
    """A pattern from the callback's name alone (``parse_post`` -> ``/posts?/``), when no listed URL
    points at it."""
    words = callback_words(callback)
    return f"/{re.escape(words[0])}s?/" if words else "/"
