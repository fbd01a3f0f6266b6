"""What a page's ``X-Robots-Tag`` asks of whoever uses it (pure: no Scrapy, no I/O).

The policy model lists meta robots / ``X-Robots-Tag`` as *usage warnings*: they never block a
fetch, they travel with the page's metadata. Parsed by Google's rules for the header
(comma-separated directives, an optional ``token:`` scope). docs/requirements/usage-signals.md
says why.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Directives written ``name: value``; any other ``token:`` starts an agent's scope.
VALUED = frozenset({"unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"})
#: Directives that restrict nothing (the defaults); not warnings, so not surfaced.
PERMISSIVE = frozenset({"all", "index", "follow"})
#: A hostile header must not bloat every item: at most this many, each this long.
MAX_DIRECTIVES = 32
MAX_DIRECTIVE_CHARS = 100

_WEEKDAY = re.compile(r"^(mon|tue|wed|thu|fri|sat|sun)[a-z]*$", re.IGNORECASE)
_TOKEN = re.compile(r"^[A-Za-z0-9_.-]+$")
_SPACE = re.compile(r"\s+")


def _parts(value: str) -> list[str]:
    """Comma-separated parts, keeping ``unavailable_after: Friday, 25-Jun-10 ...`` whole
    (an RFC 850 date has a comma after its weekday)."""
    parts: list[str] = []
    for piece in value.split(","):
        if (
            parts
            and _WEEKDAY.match(parts[-1].split(":", 1)[-1].strip())
            and parts[-1].split(":", 1)[0].strip().lower() == "unavailable_after"
        ):
            parts[-1] = f"{parts[-1]},{piece}"
        else:
            parts.append(piece)
    return [p.strip() for p in parts if p.strip()]


def _directive(part: str) -> tuple[str | None, str | None]:
    """(agent, directive) for one part; either may be None."""
    name, colon, rest = part.partition(":")
    name = name.strip().lower()
    if not colon:
        return None, name
    if name in VALUED:
        return None, f"{name}: {_SPACE.sub(' ', rest.strip())}"
    if not _TOKEN.match(name):
        return None, None  # garbage: neither a directive nor an agent
    agent = name
    if not rest.strip():
        return agent, None
    return agent, _directive(rest)[1]


def usage_warnings(header_values: Iterable[str | bytes], token: str) -> list[str]:
    """The directives of ``X-Robots-Tag`` values that apply to ``token``, sorted, unique,
    lower-case (a valued one as ``"unavailable_after: 2027-01-01"``)."""
    ours = token.lower()
    found: set[str] = set()
    for raw in header_values:
        value = raw.decode("latin-1") if isinstance(raw, bytes) else str(raw)
        agent: str | None = None
        for part in _parts(value):
            new_agent, directive = _directive(part)
            if new_agent is not None:
                agent = new_agent
            if directive is None or directive in PERMISSIVE or (agent is not None and agent != ours):
                continue
            if len(directive) <= MAX_DIRECTIVE_CHARS and len(found) < MAX_DIRECTIVES:
                found.add(directive)
    return sorted(found)


def directive_name(warning: str) -> str:
    """``"unavailable_after: 2027-01-01"`` -> ``"unavailable_after"`` (for stats keys)."""
    return warning.split(":", 1)[0]
