"""The adopted list as the state store keeps it, with the schema it was validated with.

R3: an opt-out never lapses. The record carries the schema the list passed (``None`` for the
bundled one) and its SHA-256; :func:`from_stored` re-validates against that schema, then the
bundled one. A record that passes neither raises :class:`InvalidBlocklist`: the caller fails
closed, never runs with an empty list. docs/requirements/r3-blocklist.md says why.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from scrapy_walsh.policy.blocklist.document import Blocklist
from scrapy_walsh.policy.blocklist.errors import InvalidBlocklist, InvalidSchema
from scrapy_walsh.policy.blocklist.schema import _bundled, load_schema


def replaces(current: Blocklist, fetched: Blocklist) -> tuple[bool, str | None]:
    """Whether ``fetched`` may replace the adopted ``current`` list, and a warning when something is odd.

    R3: an opt-out never lapses, so a document whose ``updated`` is older than the adopted
    one's (a CDN rollback, a stale mirror) is not adopted: ``(False, why)``. Equal dates with
    different contents can't be ordered: the fetched list is adopted (it is what the operator
    serves now), with a warning, since one of the two was edited without a new ``updated``.
    """
    if current.updated is None or fetched.updated is None:
        return True, None
    if fetched.updated < current.updated:
        return False, (
            f"its updated {fetched.updated.isoformat()} is older than the adopted list's "
            f"{current.updated.isoformat()} (a rollback or a stale copy?)"
        )
    if fetched.updated == current.updated and _digest(fetched.document) != _digest(current.document):
        return True, (
            f"it differs from the adopted list but has the same updated {fetched.updated.isoformat()}: "
            "an edit should set a new updated"
        )
    return True, None


def _digest(document: Any) -> str:
    return schema_digest(document) if isinstance(document, Mapping) else repr(document)


#: What :func:`from_stored` says it validated with.
ADOPTED_SCHEMA, BUNDLED_SCHEMA = "adopted", "bundled"


def schema_digest(schema: Mapping[str, Any]) -> str:
    """SHA-256 of the schema's canonical JSON (sorted keys), to tell a stored copy is intact."""
    text = json.dumps(schema, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def stored_record(blocklist: Blocklist, schema: Mapping[str, Any] | None, adopted: float) -> dict[str, Any]:
    """What the store keeps for an adopted list: the document, when, and the schema it passed."""
    if schema is not None and schema_digest(schema) == schema_digest(_bundled()):
        schema = None  # the bundled schema: nothing to keep, the package has it
    return {
        "document": blocklist.document,
        "adopted": adopted,
        "fetched_at": adopted,  # the store's freshness field: another process may use it as fetched
        "schema": None if schema is None else dict(schema),
        "schema_sha256": None if schema is None else schema_digest(schema),
    }


def from_stored(record: Any) -> tuple[Blocklist, str]:
    """The stored list re-adopted, and which schema it passed (:data:`ADOPTED_SCHEMA` or
    :data:`BUNDLED_SCHEMA`); :class:`InvalidBlocklist` naming both failures when neither."""
    if not isinstance(record, Mapping) or "document" not in record:
        raise InvalidBlocklist(f"stored record: not an adopted list ({type(record).__name__})")
    reasons: list[str] = []
    schema = record.get("schema")
    if schema is not None:
        try:
            if not isinstance(schema, Mapping) or record.get("schema_sha256") != schema_digest(schema):
                raise InvalidSchema("schema: the stored copy does not match its SHA-256")
            return Blocklist.from_document(record["document"], schema=load_schema(schema)), ADOPTED_SCHEMA
        except (InvalidBlocklist, TypeError, ValueError, RecursionError) as exc:
            reasons.append(f"under the schema it was adopted with: {exc}")
    try:
        return Blocklist.from_document(record["document"]), BUNDLED_SCHEMA
    except (InvalidBlocklist, TypeError, ValueError, RecursionError) as exc:
        reasons.append(f"under the bundled schema: {exc}")
    raise InvalidBlocklist("; ".join(reasons))


def schema_record(schema: Mapping[str, Any], fetched: float) -> dict[str, Any]:
    """The store's record of the published schema: the schema, and when it was fetched (a later
    run within a day validates with it, without asking the list's host for it again)."""
    return {"published": dict(schema), "fetched": fetched}


def from_schema_record(record: Any) -> tuple[dict[str, Any] | None, float | None]:
    """(the schema, when it was fetched) of a :func:`schema_record`, or of the schema alone as
    earlier versions stored it (fetched: unknown, so never fresh); (None, None) for no record or
    a damaged one, never an exception."""
    fetched = None
    if isinstance(record, Mapping) and set(record) == {"published", "fetched"}:
        record, fetched = record["published"], record["fetched"]
    if not isinstance(record, Mapping) or not record:
        return None, None
    try:
        schema = load_schema(record)
    except InvalidSchema:
        return None, None
    if isinstance(fetched, bool) or not isinstance(fetched, int | float):
        fetched = None
    return schema, fetched
