"""Deterministic edits of a walsh-research-blocklist/v1 document (the operator's file). Pure.

The operator keeps the blocklist in git, so the same edit always gives the same bytes and a
diff shows only what changed (:func:`serialise`, :func:`add`, :func:`remove`). Every function
validates its input with the bundled schema and its output before returning it.
docs/command-blocklist.md says how the file is written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from scrapy_walsh.policy.blocklist.document import CONTRACT, Blocklist
from scrapy_walsh.policy.blocklist.errors import InvalidBlocklist
from scrapy_walsh.policy.blocklist.hosts import canonical_domain
from scrapy_walsh.policy.blocklist.jsontext import parse

__all__ = (
    "EditResult",
    "InvalidBlocklist",
    "add",
    "canonical_form",
    "new_document",
    "normalise_domain",
    "parse_document",
    "remove",
    "serialise",
    "utc_now_text",
)

#: The contract's key order (the contract (§5.2)), kept for people reading the file.
TOP_KEYS = ("contract", "updated", "operator", "contact", "policy", "refresh", "blocked")
ENTRY_KEYS = ("domain", "added", "reason")
#: The fields a new document takes from options or settings.
OPERATOR_FIELDS = ("operator", "contact", "policy", "refresh")


@dataclass(frozen=True)
class EditResult:
    """What an edit did: the new document, whether it differs, and a line for people."""

    document: dict[str, Any]
    changed: bool
    message: str


def _ordered(obj: Mapping[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    known = {k: obj[k] for k in order if k in obj}
    return known | {k: obj[k] for k in sorted(obj) if k not in known}


def _sort_key(entry: Any) -> tuple[str, str]:
    domain = entry.get("domain") if isinstance(entry, Mapping) else None
    if not isinstance(domain, str):
        return ("", json.dumps(entry, sort_keys=True, ensure_ascii=False))
    try:
        return (canonical_domain(domain), domain)
    except ValueError:
        return (domain, domain)


def canonical_form(document: Mapping[str, Any]) -> dict[str, Any]:
    """``document`` with keys in the contract's order and entries sorted by domain."""
    out = _ordered(document, TOP_KEYS)
    blocked = out.get("blocked")
    if isinstance(blocked, list):
        entries = [_ordered(e, ENTRY_KEYS) if isinstance(e, Mapping) else e for e in blocked]
        out["blocked"] = sorted(entries, key=_sort_key)
    return out


def serialise(document: Mapping[str, Any]) -> bytes:
    """The one byte form of a document (see the module docstring)."""
    text = json.dumps(canonical_form(document), indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


def parse_document(data: bytes | str) -> dict[str, Any]:
    """Parse and validate an existing file; :class:`InvalidBlocklist` says why it can't be edited
    (a key written twice too: rewriting would keep one of them and drop the other's opt-outs)."""
    Blocklist.from_document(data)  # size, encoding, JSON, duplicate keys, schema (formats on), contract
    return parse(data)


def normalise_domain(domain: str) -> str:
    """The domain as the gate reads it; ``ValueError`` names what is wrong with it."""
    text = domain.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    return canonical_domain(text)


def utc_now_text(now: datetime) -> str:
    return now.astimezone(timezone.utc).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_document(fields: Mapping[str, str | None], now: datetime) -> dict[str, Any]:
    """An empty list with the operator's fields; ``ValueError`` names the missing ones."""
    missing = [name for name in ("operator", "contact", "policy") if not fields.get(name)]
    if missing:
        raise ValueError("a new blocklist needs " + ", ".join(missing))
    doc: dict[str, Any] = {"contract": CONTRACT, "updated": utc_now_text(now)}
    doc.update({name: fields[name] for name in OPERATOR_FIELDS if fields.get(name)})
    doc["blocked"] = []
    return doc


def _checked(document: dict[str, Any]) -> dict[str, Any]:
    """Validate what is about to be written; the canonical form, ready to serialise."""
    out = canonical_form(document)
    Blocklist.from_document(out)
    return out


def add(document: Mapping[str, Any], domain: str, reason: str, now: datetime) -> EditResult:
    """``document`` with ``domain`` listed (``added`` = today in UTC); unchanged if it already is."""
    canonical = normalise_domain(domain)
    if not isinstance(reason, str) or not reason.strip():
        raise ValueError("--reason must say why, in a few words")
    current = Blocklist.from_document(document)
    for entry in current:
        if entry.domain == canonical:
            return EditResult(
                dict(document),
                False,
                f"{canonical} is already listed (added {entry.added}: {entry.reason}); nothing changed",
            )
    note = ""
    parent = current.match(canonical)
    if parent is not None:
        note = f" (already covered by {parent.domain}; listed on its own in case that entry goes)"
    doc = dict(document)
    doc["blocked"] = [
        *document["blocked"],
        {"domain": canonical, "added": now.astimezone(timezone.utc).date().isoformat(), "reason": reason.strip()},
    ]
    doc["updated"] = utc_now_text(now)
    return EditResult(_checked(doc), True, f"added {canonical}{note}")


def remove(document: Mapping[str, Any], domain: str, now: datetime) -> EditResult:
    """``document`` without ``domain``'s entries; :class:`LookupError` when it isn't listed."""
    canonical = normalise_domain(domain)
    Blocklist.from_document(document)
    kept = [e for e in document["blocked"] if _sort_key(e)[0] != canonical]
    if len(kept) == len(document["blocked"]):
        parent = Blocklist.from_document(document).match(canonical)
        still = f"; it stays blocked by {parent.domain}" if parent is not None else ""
        raise LookupError(f"{canonical} is not listed{still}")
    doc = dict(document)
    doc["blocked"] = kept
    doc["updated"] = utc_now_text(now)
    return EditResult(_checked(doc), True, f"removed {canonical}")
