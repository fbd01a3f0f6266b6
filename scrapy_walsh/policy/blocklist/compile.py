"""The entries' schema compiled to a predicate: why a 100,000-entry list adopts in about 1 s.

The handful of simple keywords an entries schema uses compile once to a predicate with the
same checks (formats through the same FORMAT_CHECKER); anything else disables the fast path,
and an entry the predicate rejects sends the whole document to jsonschema, which has the
last word. docs/requirements/r3-blocklist.md says why.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from scrapy_walsh.policy.blocklist.formats import prepare as prepare_jsonschema

_ANNOTATIONS = frozenset(
    {"title", "description", "$comment", "examples", "default", "deprecated", "readOnly", "writeOnly"}
)
# exactly jsonschema's checks
_PY_TYPES: Mapping[str, type] = MappingProxyType({"object": dict, "array": list, "string": str})
_LOCAL_REF = re.compile(r"#/(\$defs|definitions)/([A-Za-z0-9_.-]+)")
_UNSAFE_KEYS = frozenset({"$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor", "$anchor"})


def _always(instance: Any) -> bool:
    return True


def _never(instance: Any) -> bool:
    return False


def _all(checks: list[Callable[[Any], bool]]) -> Callable[[Any], bool]:
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]

    def check_all(x: Any) -> bool:
        for check in checks:
            if not check(x):
                return False
        return True

    return check_all


def _refs_are_local(node: Any, root: bool = True) -> bool:
    """Every $ref is "#/$defs/name" and no subschema changes the base URI, so nothing
    can point into properties.blocked.items and refs resolve against the root."""
    if isinstance(node, list):
        return all(_refs_are_local(item, False) for item in node)
    if not isinstance(node, dict):
        return True
    for key, value in node.items():
        if key in _UNSAFE_KEYS or (key in ("$id", "$schema") and not root):
            return False
        if key == "$ref" and not (isinstance(value, str) and _LOCAL_REF.fullmatch(value)):
            return False
        if not _refs_are_local(value, False):
            return False
    return True


def entries_fast_path(schema: Any) -> tuple[dict[str, Any], Callable[[Any], bool]] | None:
    """(the skeleton schema, the compiled entry predicate), or None when unsound."""
    if not isinstance(schema, dict):
        return None
    properties = schema.get("properties")
    blocked = properties.get("blocked") if isinstance(properties, dict) else None
    if not isinstance(blocked, dict) or "items" not in blocked or "prefixItems" in blocked:
        return None
    if not _refs_are_local(schema):
        return None
    entry_ok = _compile(blocked["items"], schema, 0)
    if entry_ok is None:
        return None
    skeleton = copy.deepcopy(schema)
    skeleton["properties"]["blocked"]["items"] = True
    return skeleton, entry_ok


def _compile(schema: Any, root: dict[str, Any], depth: int) -> Callable[[Any], bool] | None:
    """A predicate equal to "valid against ``schema``", or None outside the subset."""
    if schema is True:
        return _always
    if schema is False:
        return _never
    if not isinstance(schema, dict) or depth > 16:
        return None
    checks = []
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            continue
        check = _compile_keyword(key, value, schema, root, depth)
        if check is None:
            return None
        checks.append(check)
    return _all(checks)


def _compile_keyword(
    key: str, value: Any, schema: dict[str, Any], root: dict[str, Any], depth: int
) -> Callable[[Any], bool] | None:
    """The predicate of one keyword of ``schema``, or None outside the subset."""
    if key == "type":
        return _compile_type(value)
    if key == "required":
        return _compile_required(value)
    if key == "properties":
        return _compile_properties(value, root, depth)
    if key == "additionalProperties":
        return _compile_additional_properties(value, schema)
    if key in ("anyOf", "allOf"):
        return _compile_branches(key, value, root, depth)
    if key == "format":
        return _compile_format(value)
    if key == "pattern":
        return _compile_pattern(value)
    if key in ("minLength", "maxLength"):
        return _compile_length(key, value)
    if key == "$ref":
        return _compile_ref(value, root, depth)
    return None


def _compile_type(value: Any) -> Callable[[Any], bool] | None:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        return None
    if len(names) == 1 and names[0] in _PY_TYPES:
        cls = _PY_TYPES[names[0]]
        return lambda x: isinstance(x, cls)
    prepare_jsonschema()
    from jsonschema import Draft202012Validator  # already loaded: a plan is being built

    is_type = Draft202012Validator.TYPE_CHECKER.is_type
    return lambda x: any(is_type(x, name) for name in names)


def _compile_required(value: Any) -> Callable[[Any], bool] | None:
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        return None
    return lambda x: not isinstance(x, dict) or all(name in x for name in value)


def _compile_properties(value: Any, root: dict[str, Any], depth: int) -> Callable[[Any], bool] | None:
    if not isinstance(value, dict):
        return None
    subs = [(name, _compile(sub, root, depth + 1)) for name, sub in value.items()]
    if any(check is None for _, check in subs):
        return None

    def check_properties(x: Any) -> bool:
        if isinstance(x, dict):
            for name, check in subs:
                if name in x and not check(x[name]):  # type: ignore[misc]
                    return False
        return True

    return check_properties


def _compile_additional_properties(value: Any, schema: dict[str, Any]) -> Callable[[Any], bool] | None:
    if value is True:
        return _always
    if value is False and "patternProperties" not in schema:
        allowed = frozenset(schema.get("properties") or ())
        return lambda x: not isinstance(x, dict) or allowed.issuperset(x)
    return None


def _compile_branches(key: str, value: Any, root: dict[str, Any], depth: int) -> Callable[[Any], bool] | None:
    """``anyOf`` or ``allOf``."""
    if not isinstance(value, list) or not value:
        return None
    branches = [_compile(sub, root, depth + 1) for sub in value]
    if any(check is None for check in branches):
        return None
    if key == "allOf":
        return _all(branches)  # type: ignore[arg-type]
    return lambda x: any(check(x) for check in branches)  # type: ignore[misc]


def _compile_format(value: Any) -> Callable[[Any], bool] | None:
    if not isinstance(value, str):
        return None
    prepare_jsonschema()
    from jsonschema import Draft202012Validator

    conforms = Draft202012Validator.FORMAT_CHECKER.conforms
    return lambda x: conforms(x, value)


def _compile_pattern(value: Any) -> Callable[[Any], bool] | None:
    try:
        regex = re.compile(value)
    except (re.error, TypeError):
        return None
    return lambda x: not isinstance(x, str) or regex.search(x) is not None


def _compile_length(key: str, value: Any) -> Callable[[Any], bool] | None:
    """``minLength`` or ``maxLength``."""
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    if key == "minLength":
        return lambda x: not isinstance(x, str) or len(x) >= value
    return lambda x: not isinstance(x, str) or len(x) <= value


def _compile_ref(value: Any, root: dict[str, Any], depth: int) -> Callable[[Any], bool] | None:
    """A local ``$ref`` ("#/$defs/name"): the referenced schema, compiled."""
    m = _LOCAL_REF.fullmatch(value) if isinstance(value, str) else None
    defs = root.get(m.group(1)) if m else None
    if not isinstance(defs, dict) or m is None or m.group(2) not in defs:
        return None
    return _compile(defs[m.group(2)], root, depth + 1)
