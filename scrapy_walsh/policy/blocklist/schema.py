"""Which schema a document is validated against, and the validation plan built for it.

The published schema must itself be a valid draft 2020-12 schema whose $refs resolve
without the network, or :class:`InvalidSchema` is raised and the caller falls back to
:func:`bundled_schema`. jsonschema is imported on the first plan built, not with this
module: its format checkers alone cost about 2 s of import time.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from scrapy_walsh.policy.blocklist.compile import entries_fast_path
from scrapy_walsh.policy.blocklist.errors import InvalidBlocklist, InvalidSchema, short, where
from scrapy_walsh.policy.blocklist.formats import prepare as prepare_jsonschema
from scrapy_walsh.policy.blocklist.jsontext import decode, reject_constant

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator


@lru_cache(maxsize=1)
def _bundled() -> dict[str, Any]:
    """The bundled schema, read once; never handed out (:func:`bundled_schema` copies)."""
    return json.loads((resources.files("scrapy_walsh") / "schemas" / "blocklist.schema.json").read_bytes())


def bundled_schema() -> dict[str, Any]:
    """A fresh copy of the schema shipped with the package (the fallback for the
    published one)."""
    return copy.deepcopy(_bundled())


def load_schema(obj: Mapping[str, Any] | str | bytes) -> dict[str, Any]:
    """Check that ``obj`` (a parsed schema, or its JSON text) is a usable draft 2020-12
    schema and return it as a dict; raise :class:`InvalidSchema` (a ``ValueError``)
    saying why not. Used by the middleware on the published schema before trusting it.
    """
    if isinstance(obj, (bytes, bytearray, str)):
        try:
            text = decode(obj, what="schema")
        except InvalidBlocklist as exc:
            raise InvalidSchema(str(exc)) from None
        try:
            obj = json.loads(text, parse_constant=reject_constant)
        except (ValueError, RecursionError) as exc:
            raise InvalidSchema(f"schema: not JSON: {exc}") from None
    if not isinstance(obj, Mapping):
        raise InvalidSchema(f"schema: must be a JSON object, got {type(obj).__name__}")
    schema = dict(obj)
    _plan_for(schema)
    return schema


def _schema_key(schema: Mapping[str, Any], sort_keys: bool = True) -> str:
    try:
        return json.dumps(schema, sort_keys=sort_keys, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidSchema(f"schema: not JSON-serialisable: {exc}") from None


@dataclass(frozen=True)
class Plan:
    """How to validate against one schema: ``full`` is the reference; when the schema
    allows it, ``skeleton`` (the schema with ``properties.blocked.items`` set to
    ``true``) plus ``entry_ok`` (that items schema compiled to a predicate) give the
    same verdict several times faster on a long list."""

    full: Draft202012Validator
    skeleton: Draft202012Validator | None = None
    entry_ok: Callable[[Any], bool] | None = None


def _plan_for(schema: Mapping[str, Any]) -> Plan:
    """One plan per distinct schema, built once: checking the schema, compiling its
    regexes and entry predicate is not repeated on every refresh."""
    return _plan_for_text(_schema_key(schema, sort_keys=False))


@lru_cache(maxsize=8)  # by JSON text: a process sees one or two schemas
def _plan_for_text(text: str) -> Plan:
    try:
        # our own copy, read back from the text in the schema's own key order (the order of its
        # keywords decides which error a validator reports first)
        return _build_plan(json.loads(text))
    except RecursionError:  # jsonschema and json recurse per level of nesting
        raise InvalidSchema("schema: nested too deeply") from None


def _build_plan(schema: dict[str, Any]) -> Plan:
    prepare_jsonschema()
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
        bad_ref = _unresolvable_ref(schema)
    except SchemaError as exc:
        at = where(exc.absolute_path, root="schema")
        raise InvalidSchema(f"schema: {at}: {short(exc.message)}") from None
    if bad_ref is not None:
        raise InvalidSchema(f"schema: unresolvable $ref {short(repr(bad_ref), 80)}")
    fast = entries_fast_path(schema)
    if fast is None:
        return Plan(_new_validator(schema))
    skeleton, entry_ok = fast
    return Plan(_new_validator(schema), _new_validator(skeleton), entry_ok)


def _new_validator(schema: Any) -> Draft202012Validator:
    prepare_jsonschema()
    from jsonschema import Draft202012Validator
    from jsonschema_specifications import REGISTRY

    # The registry holds the draft metaschemas only: a $ref elsewhere is an error, never
    # a network fetch (jsonschema's default would retrieve it over HTTP).
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER, registry=REGISTRY)


def _refs(node: Any, root: bool = True) -> list[str] | None:
    """Every $ref string, or None if a subschema changes the base URI (then the refs
    are left to resolve, or fail, during validation)."""
    found: list[str] = []
    if isinstance(node, list):
        for item in node:
            sub = _refs(item, False)
            if sub is None:
                return None
            found += sub
    elif isinstance(node, dict):
        for key, value in node.items():
            if key == "$id" and not root:
                return None
            if key == "$ref" and isinstance(value, str):
                found.append(value)
            sub = _refs(value, False)
            if sub is None:
                return None
            found += sub
    return found


def _unresolvable_ref(schema: Any) -> str | None:
    """The first $ref of ``schema`` that can't be resolved without the network, found
    up front so that :func:`load_schema` rejects such a schema (jsonschema would only
    notice when validation reaches it)."""
    prepare_jsonschema()
    from jsonschema_specifications import REGISTRY
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    refs = _refs(schema)
    if not refs or not isinstance(schema, dict):
        return None
    root = DRAFT202012.create_resource(schema)
    registry = REGISTRY.with_resource(root.id(), root) if root.id() else REGISTRY
    resolver = registry.resolver_with_root(root)
    for ref in refs:
        try:
            resolver.lookup(ref)
        except Unresolvable:
            return ref
    return None


def plan_for(schema: Mapping[str, Any] | None) -> Plan:
    """The plan for ``schema``, or for the bundled schema when it is None."""
    if schema is None:
        return _plan_for(_bundled())
    if not isinstance(schema, Mapping):
        raise InvalidSchema(f"schema: must be a JSON object, got {type(schema).__name__}")
    return _plan_for(schema)
