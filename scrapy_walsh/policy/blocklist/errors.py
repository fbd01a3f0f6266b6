"""The two refusals of the blocklist, and the helpers that keep their messages to one line."""

from __future__ import annotations

from collections.abc import Iterable


class InvalidBlocklist(ValueError):
    """A document that must not be adopted; the message says which rule failed."""


class InvalidSchema(InvalidBlocklist):
    """The schema itself is unusable ("schema: ..."); fall back to the bundled schema."""


def short(value: object, limit: int = 120) -> str:
    """``value`` cut to ``limit`` characters, so a huge instance never floods a log line."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def where(path: Iterable[object], root: str = "document") -> str:
    """A JSON path as a reader writes it: ``blocked[3].domain``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and part.isidentifier():
            out += f".{part}" if out else part
        else:
            out += f"[{part!r}]"
    return out or root
