"""From text to JSON, strictly: the size cap, UTF-8 (one leading BOM ignored), no NaN, no duplicate key.

A key written twice in one object (RFC 8259 §4: names SHOULD be unique) is refused at any
level: ``json.loads`` keeps the last value, so ``{"blocked": [opt-out], "blocked": []}`` would
read as an empty list, and the first key's opt-outs would vanish without a word.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from scrapy_walsh.policy.blocklist.errors import InvalidBlocklist

#: The largest ``str``/``bytes`` document accepted: 8 MiB. The real list is a few KB
#: (about 70 bytes per entry), so this is ~100,000 entries of headroom, yet it bounds
#: what a misconfigured or compromised server (or a captive portal) can make every
#: process parse and validate while requests wait on the gate. The middleware also
#: passes it to the download as ``download_maxsize``. A ``dict`` has no byte size and
#: is not capped.
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024


def reject_constant(name: str) -> Any:
    """``json.loads`` hook: NaN and Infinity are not JSON (RFC 8259)."""
    raise ValueError(f"{name} is not valid JSON")


class _DuplicateKey(ValueError):
    pass


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads`` hook: an object whose keys are all distinct, else :class:`InvalidBlocklist`."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def decode(doc: str | bytes | bytearray, what: str) -> str:
    """Apply the size cap and the encoding rule: UTF-8 only (RFC 8259 §8.1), with one
    leading BOM ignored (some editors and hosts add one, and the text is unambiguous)."""
    if isinstance(doc, str):
        size = len(doc)
        if size * 4 > MAX_DOCUMENT_BYTES:  # only then can the UTF-8 size exceed the cap
            size = len(doc.encode("utf-8", "surrogatepass"))
        if size > MAX_DOCUMENT_BYTES:
            raise InvalidBlocklist(f"{what} is {size} bytes, over the 8 MiB limit")
        return doc[1:] if doc.startswith("\ufeff") else doc
    if len(doc) > MAX_DOCUMENT_BYTES:
        raise InvalidBlocklist(f"{what} is {len(doc)} bytes, over the 8 MiB limit")
    try:
        return bytes(doc).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidBlocklist(f"{what}: not UTF-8: {exc}") from None


def parse(doc: object) -> Any:
    """The document as parsed JSON: a mapping as is (copied to a dict), text decoded and parsed."""
    if isinstance(doc, Mapping):
        return doc if isinstance(doc, dict) else dict(doc)
    if isinstance(doc, memoryview):
        doc = doc.tobytes()
    if not isinstance(doc, (str, bytes, bytearray)):
        raise InvalidBlocklist(f"document: expected a dict, str or bytes, got {type(doc).__name__}")
    text = decode(doc, what="document")
    try:
        return json.loads(text, parse_constant=reject_constant, object_pairs_hook=unique_keys)
    except _DuplicateKey as exc:
        raise InvalidBlocklist(
            f"duplicate key {exc.args[0]!r} in one object: a key written twice is ambiguous "
            "(a reader keeps one of them), so the document is not a list anyone can trust"
        ) from None
    except RecursionError:
        raise InvalidBlocklist("not JSON: nested too deeply") from None
    except ValueError as exc:
        raise InvalidBlocklist(f"not JSON: {exc}") from None
