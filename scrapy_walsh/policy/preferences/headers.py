"""Usage preferences in response headers -> statements (pure).

Read here: ``Content-Usage``, ``Content-Signal``, ``tdm-reservation`` / ``tdm-policy`` and
``X-Robots-Tag`` (scoped to our token), from ``(name, value)`` lines (values ``str`` or
``bytes``, read as Latin-1). Nothing here raises on any input. docs/preferences.md
("Every signal", "Each parser's reading") says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from scrapy_walsh.policy.preferences.model import AI_INPUT, SEARCH, TRAIN_AI, Preference, Signal, Statement
from scrapy_walsh.policy.preferences.syntax import parse_aipref, parse_content_signal
from scrapy_walsh.policy.xrobotstag import usage_warnings

HeaderLines = Iterable[tuple[str | bytes, str | bytes]]
MAX_SOURCE_CHARS = 200
_AI = (TRAIN_AI, AI_INPUT)
#: X-Robots-Tag directive -> the purposes it reserves (``noimageai`` only for images).
X_ROBOTS_RESERVES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "noai": _AI,
        "noimageai": _AI,
        "noindex": (SEARCH,),
        "none": (SEARCH,),
    }
)


def _text(value: str | bytes) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)


def _source(name: str, value: str) -> str:
    text = f"header {name}: {value}"
    return text if len(text) <= MAX_SOURCE_CHARS else text[: MAX_SOURCE_CHARS - 3] + "..."


def _by_name(headers: HeaderLines) -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    for name, value in headers:
        fields.setdefault(_text(name).strip().lower(), []).append(_text(value).strip())
    return fields


def tdm_header_statement(fields: dict[str, list[str]]) -> Statement | None:
    """TDMRep's header pair, or None when ``tdm-reservation`` is absent or invalid (unset)."""
    values = fields.get("tdm-reservation", [])
    if "1" in values:
        policy = next((p for p in fields.get("tdm-policy", []) if p), None)
        said = dict.fromkeys(_AI, Preference.RESERVED)
        return Statement(Signal.TDMREP_HEADER, _source("tdm-reservation", "1"), said, reference=policy)
    if "0" in values:
        return Statement(Signal.TDMREP_HEADER, _source("tdm-reservation", "0"), dict.fromkeys(_AI, Preference.ALLOWED))
    return None


def header_statements(headers: HeaderLines, *, token: str = "") -> list[Statement]:
    """Every statement the response's headers make, for the agent ``token``."""
    fields = _by_name(headers)
    statements: list[Statement] = []
    if "content-usage" in fields:
        value = ", ".join(fields["content-usage"])
        statements.append(Statement(Signal.CONTENT_USAGE_HEADER, _source("Content-Usage", value), parse_aipref(value)))
    if "content-signal" in fields:
        value = ", ".join(fields["content-signal"])
        said = parse_content_signal(value)
        statements.append(Statement(Signal.CONTENT_SIGNAL_HEADER, _source("Content-Signal", value), said))
    tdm = tdm_header_statement(fields)
    if tdm is not None:
        statements.append(tdm)
    is_image = any(v.lower().startswith("image/") for v in fields.get("content-type", []))
    for directive in usage_warnings(fields.get("x-robots-tag", []), token):
        purposes = X_ROBOTS_RESERVES.get(directive, ())
        if purposes and (directive != "noimageai" or is_image):
            said = dict.fromkeys(purposes, Preference.RESERVED)
            statements.append(Statement(Signal.X_ROBOTS_TAG, _source("X-Robots-Tag", directive), said))
    return statements
