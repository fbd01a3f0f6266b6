"""The operator blocklist, walsh-research-blocklist/v1 (seed 001 §5.2, R3).

Pure: no Scrapy, no network, no I/O except reading the bundled schema from the
package. The middleware fetches, persists and times; this module decides whether a
document may be adopted and whether a host is covered by it.

Adopting a document (:meth:`Blocklist.from_document`):

1. The schema (the published one, or the bundled copy when ``schema`` is None) must
   itself be a valid draft 2020-12 schema; if not, :class:`InvalidSchema` ("schema:
   ...") is raised and the caller falls back to :func:`bundled_schema`.
2. ``str``/``bytes`` input is capped at :data:`MAX_DOCUMENT_BYTES`, must be UTF-8
   (one leading BOM is ignored) and must be JSON.
3. The document is validated against the schema with format assertions ON
   (date-time, date, uri, duration, hostname, idn-hostname, ipv4, ipv6 are enforced
   by the installed ``jsonschema[format-nongpl]`` checkers). For long lists the
   entries' schema is compiled once into an equivalent predicate that calls the same
   format checkers (see ``_compile``); jsonschema still validates the rest, has the
   last word on any entry the predicate rejects, and writes the message.
4. Independently of the schema (a published schema may be looser than ours), the
   fields this module interprets must make sense: ``contract`` is exactly
   ``walsh-research-blocklist/v1``; ``updated`` is an RFC 3339 date-time;
   ``refresh``, when present, an ISO-8601 duration; ``blocked`` a list of objects whose
   ``domain`` is a hostname or IP literal, ``added`` a date and ``reason`` a string.

Any failure raises :class:`InvalidBlocklist` (a ``ValueError``) naming the rule, e.g.
``blocked[3].domain: 'http://x.com' is not a 'hostname' (nor an 'idn-hostname', an
'ipv4' or an 'ipv6')``. R3: a document that fails is never adopted; the caller keeps
its previous list.

Matching (:meth:`Blocklist.match`): a listed name blocks itself and every subdomain
(``example.com`` blocks ``www.example.com``, not ``notexample.com``); a listed IP
address blocks only that address. Hosts and listed domains are compared in one
canonical form (:func:`normalise_host`): lowercase ASCII, IDN labels in punycode
(UTS 46 mapping, so ``bücher.example`` and ``xn--bcher-kva.example`` are one), no
trailing dot, no port, IP addresses in their ``ipaddress`` form. A lookup costs one
dict probe per label of the host, whatever the size of the list.
"""

from __future__ import annotations

import copy
import ipaddress
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from functools import lru_cache
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

import idna
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError, best_match
from jsonschema_specifications import REGISTRY as _SPECIFICATIONS
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

__all__ = [
    "CONTRACT",
    "DEFAULT_REFRESH_SECONDS",
    "EXTRA_REASON",
    "MAX_DOCUMENT_BYTES",
    "MAX_REFRESH_SECONDS",
    "MIN_REFRESH_SECONDS",
    "Blocklist",
    "BlocklistEntry",
    "InvalidBlocklist",
    "InvalidSchema",
    "bundled_schema",
    "load_schema",
    "normalise_host",
    "parse_duration",
]

#: The data contract and major version this module understands.
CONTRACT = "walsh-research-blocklist/v1"

#: The largest ``str``/``bytes`` document accepted: 8 MiB. The real list is a few KB
#: (about 70 bytes per entry), so this is ~100,000 entries of headroom, yet it bounds
#: what a misconfigured or compromised server (or a captive portal) can make every
#: process parse and validate while requests wait on the gate. The middleware also
#: passes it to the download as ``download_maxsize``. A ``dict`` has no byte size and
#: is not capped.
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024

#: ``refresh`` when the document has none: 1 hour. The spec lets the data source set
#: the timing, and a source that doesn't say gets a short cache so that a new opt-out
#: is honoured within the hour; the cost is one small fetch per hour per process.
DEFAULT_REFRESH_SECONDS = 3600.0
#: Lower bound on ``refresh``: a typo such as ``PT1S`` must not turn every process
#: into a once-a-second poller of the operator's server.
MIN_REFRESH_SECONDS = 60.0
#: Upper bound on ``refresh``: a typo such as ``P1Y`` must not delay new opt-outs for
#: longer than a week.
MAX_REFRESH_SECONDS = 7 * 86400.0

#: The ``reason`` of entries added by :meth:`Blocklist.with_extra`.
EXTRA_REASON = "local opt-out (WALSH_BLOCKLIST_EXTRA)"


class InvalidBlocklist(ValueError):
    """A document that must not be adopted; the message says which rule failed."""


class InvalidSchema(InvalidBlocklist):
    """The schema itself is unusable ("schema: ..."); fall back to :func:`bundled_schema`."""


@dataclass(frozen=True, slots=True)
class BlocklistEntry:
    """One opted-out domain."""

    #: The canonical form matched against (see :func:`normalise_host`).
    domain: str
    #: When the opt-out was recorded; ``None`` for a local opt-out (:meth:`Blocklist.with_extra`).
    added: date | None
    reason: str
    #: The domain as written in the document or the setting.
    listed: str
    #: True for an IP literal, which blocks only itself.
    is_ip: bool = False


# ------------------------------------------------------------------------- schema


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
            text = _decode(obj, what="schema")
        except InvalidBlocklist as exc:
            raise InvalidSchema(str(exc)) from None
        try:
            obj = json.loads(text, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as exc:
            raise InvalidSchema(f"schema: not JSON: {exc}") from None
    if not isinstance(obj, Mapping):
        raise InvalidSchema(f"schema: must be a JSON object, got {type(obj).__name__}")
    schema = dict(obj)
    _plan_for(schema)
    return schema


def _schema_key(schema: Mapping[str, Any]) -> str:
    try:
        return json.dumps(schema, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidSchema(f"schema: not JSON-serialisable: {exc}") from None


@dataclass(frozen=True)
class _Plan:
    """How to validate against one schema: ``full`` is the reference; when the schema
    allows it, ``skeleton`` (the schema with ``properties.blocked.items`` set to
    ``true``) plus ``entry_ok`` (that items schema compiled to a predicate) give the
    same verdict several times faster on a long list."""

    full: Draft202012Validator
    skeleton: Draft202012Validator | None = None
    entry_ok: Callable[[Any], bool] | None = None


#: Plans by schema (canonical JSON text); a process sees one or two schemas.
_PLANS: dict[str, _Plan] = {}


def _plan_for(schema: Mapping[str, Any]) -> _Plan:
    """One plan per distinct schema, built once: checking the schema, compiling its
    regexes and entry predicate is not repeated on every refresh."""
    key = _schema_key(schema)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _build_plan(copy.deepcopy(dict(schema)))  # our own copy: the caller's may change
        if len(_PLANS) >= 8:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


def _build_plan(schema: dict[str, Any]) -> _Plan:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = _where(exc.absolute_path, root="schema")
        raise InvalidSchema(f"schema: {where}: {_short(exc.message)}") from None
    bad_ref = _unresolvable_ref(schema)
    if bad_ref is not None:
        raise InvalidSchema(f"schema: unresolvable $ref {_short(repr(bad_ref), 80)}")
    fast = _entries_fast_path(schema)
    if fast is None:
        return _Plan(_new_validator(schema))
    skeleton, entry_ok = fast
    return _Plan(_new_validator(schema), _new_validator(skeleton), entry_ok)


def _new_validator(schema: Any) -> Draft202012Validator:
    # The registry holds the draft metaschemas only: a $ref elsewhere is an error, never
    # a network fetch (jsonschema's default would retrieve it over HTTP).
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER, registry=_SPECIFICATIONS)


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
    refs = _refs(schema)
    if not refs or not isinstance(schema, dict):
        return None
    root = DRAFT202012.create_resource(schema)
    registry = _SPECIFICATIONS.with_resource(root.id(), root) if root.id() else _SPECIFICATIONS
    resolver = registry.resolver_with_root(root)
    for ref in refs:
        try:
            resolver.lookup(ref)
        except Unresolvable:
            return ref
    return None


def _plan(schema: Mapping[str, Any] | None) -> _Plan:
    if schema is None:
        return _plan_for(_bundled())
    if not isinstance(schema, Mapping):
        raise InvalidSchema(f"schema: must be a JSON object, got {type(schema).__name__}")
    return _plan_for(schema)


# ------------------------------------------------ the entries' compiled fast path
#
# jsonschema spends ~30 us per entry walking the same few keywords 100,000 times. The
# entries schema normally uses a handful of simple keywords, so it is compiled once to
# a predicate that applies the same checks, formats included (through the very same
# FORMAT_CHECKER), in a few microseconds. Anything outside that subset (or any $ref
# that is not a plain "#/$defs/name") disables the fast path: jsonschema does it all.
# An entry the predicate rejects sends the whole document to jsonschema, which has the
# last word and writes the error message; tests compare both on good and bad entries.

_ANNOTATIONS = frozenset(
    {"title", "description", "$comment", "examples", "default", "deprecated", "readOnly", "writeOnly"}
)
_PY_TYPES: dict[str, type] = {"object": dict, "array": list, "string": str}  # exactly jsonschema's checks
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


def _entries_fast_path(schema: Any) -> tuple[dict[str, Any], Callable[[Any], bool]] | None:
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
    if key == "type":
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            return None
        if len(names) == 1 and names[0] in _PY_TYPES:
            cls = _PY_TYPES[names[0]]
            return lambda x: isinstance(x, cls)
        is_type = Draft202012Validator.TYPE_CHECKER.is_type
        return lambda x: any(is_type(x, name) for name in names)
    if key == "required":
        if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
            return None
        return lambda x: not isinstance(x, dict) or all(name in x for name in value)
    if key == "properties":
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
    if key == "additionalProperties":
        if value is True:
            return _always
        if value is False and "patternProperties" not in schema:
            allowed = frozenset(schema.get("properties") or ())
            return lambda x: not isinstance(x, dict) or allowed.issuperset(x)
        return None
    if key in ("anyOf", "allOf"):
        if not isinstance(value, list) or not value:
            return None
        branches = [_compile(sub, root, depth + 1) for sub in value]
        if any(check is None for check in branches):
            return None
        if key == "allOf":
            return _all(branches)  # type: ignore[arg-type]
        return lambda x: any(check(x) for check in branches)  # type: ignore[misc]
    if key == "format":
        if not isinstance(value, str):
            return None
        conforms = Draft202012Validator.FORMAT_CHECKER.conforms
        return lambda x: conforms(x, value)
    if key == "pattern":
        try:
            regex = re.compile(value)
        except (re.error, TypeError):
            return None
        return lambda x: not isinstance(x, str) or regex.search(x) is not None
    if key in ("minLength", "maxLength"):
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        if key == "minLength":
            return lambda x: not isinstance(x, str) or len(x) >= value
        return lambda x: not isinstance(x, str) or len(x) <= value
    if key == "$ref":
        m = _LOCAL_REF.fullmatch(value) if isinstance(value, str) else None
        defs = root.get(m.group(1)) if m else None
        if not isinstance(defs, dict) or m is None or m.group(2) not in defs:
            return None
        return _compile(defs[m.group(2)], root, depth + 1)
    return None


# ------------------------------------------------------------------- the document


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _decode(doc: str | bytes | bytearray, what: str) -> str:
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


def _parse(doc: object) -> Any:
    if isinstance(doc, Mapping):
        return doc if isinstance(doc, dict) else dict(doc)
    if isinstance(doc, memoryview):
        doc = doc.tobytes()
    if not isinstance(doc, (str, bytes, bytearray)):
        raise InvalidBlocklist(f"document: expected a dict, str or bytes, got {type(doc).__name__}")
    text = _decode(doc, what="document")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise InvalidBlocklist("not JSON: nested too deeply") from None
    except ValueError as exc:
        raise InvalidBlocklist(f"not JSON: {exc}") from None


def _short(value: object, limit: int = 120) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _where(path: Iterable[object], root: str = "document") -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and part.isidentifier():
            out += f".{part}" if out else part
        else:
            out += f"[{part!r}]"
    return out or root


def _a(fmt: object) -> str:
    return f"an {fmt!r}" if str(fmt)[:1] in ("a", "e", "i", "o") else f"a {fmt!r}"  # a 'uri', an 'ipv4'


def _describe(error: ValidationError) -> str:
    """A one-line reason: where, and what rule, without dumping a huge instance."""
    where = _where(error.absolute_path)
    instance = _short(repr(error.instance), 80)
    rule = error.validator
    formats = _format_alternatives(error)
    if formats:  # "is not a 'hostname' (nor an 'idn-hostname', an 'ipv4' or an 'ipv6')"
        others = [_a(f) for f in formats[1:]]
        tail = f" (nor {', '.join(others[:-1])} or {others[-1]})" if len(others) > 1 else ""
        tail = f" (nor {others[0]})" if len(others) == 1 else tail
        return f"{where}: {instance} is not {_a(formats[0])}{tail}"
    if rule == "const":
        return f"{where}: must be {error.validator_value!r}, got {instance}"
    if rule == "type":
        return f"{where}: {instance} is not of type {error.validator_value!r}"
    if rule == "format":
        return f"{where}: {instance} is not {_a(error.validator_value)}"
    if rule == "pattern":
        return f"{where}: {instance} does not match /{error.validator_value}/"
    return f"{where}: {_short(error.message, 200)}"


def _format_alternatives(error: ValidationError) -> list[Any]:
    """The formats of an anyOf/oneOf whose every branch failed on a format, else []."""
    if error.validator not in ("anyOf", "oneOf") or not error.context:
        return []
    formats = [e.validator_value for e in error.context if e.validator == "format" and not e.relative_path]
    return formats if len(formats) == len(error.context) else []


def _first_error(errors: Iterable[ValidationError]) -> ValidationError | None:
    """The error to report: the shallowest (a wrong contract before a bad entry), the
    first in document order among equals (blocked[3] before blocked[7]). jsonschema's
    best_match would rank an anyOf below a plain format error elsewhere."""
    first = None
    for error in errors:
        if first is None or len(error.path) < len(first.path):
            first = error
    if first is not None and first.context and not _format_alternatives(first):
        first = best_match([first])  # descend into anyOf/oneOf to the telling branch
    return first


def _validate(plan: _Plan, data: object) -> None:
    try:
        if plan.skeleton is not None and plan.entry_ok is not None and plan.skeleton.is_valid(data):
            blocked = data.get("blocked") if isinstance(data, dict) else None
            if not isinstance(blocked, list) or all(map(plan.entry_ok, blocked)):
                return
        error = _first_error(plan.full.iter_errors(data))  # the reference, and the message
    except Unresolvable as exc:
        raise InvalidSchema(f"schema: unresolvable reference: {_short(str(exc))}") from None
    except Exception as exc:  # a checker that blew up: still never adopt the document
        raise InvalidBlocklist(f"validation failed: {type(exc).__name__}: {exc}") from None
    if error is not None:
        raise InvalidBlocklist(_describe(error))


# ------------------------------------------------------------- dates and durations

_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)
_DATETIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))", re.ASCII
)
_NUM = r"(\d+(?:[.,]\d+)?)"
_DURATION = re.compile(
    rf"([+-])?P(?!$)(?:{_NUM}Y)?(?:{_NUM}M)?(?:{_NUM}W)?(?:{_NUM}D)?(?:T(?=\d)(?:{_NUM}H)?(?:{_NUM}M)?(?:{_NUM}S)?)?",
    re.ASCII,
)
#: Seconds per designator; a year and a month have no fixed length, so 365 and 30 days.
_DURATION_UNITS = (365 * 86400, 30 * 86400, 7 * 86400, 86400, 3600, 60, 1)


def _parse_date(value: object) -> date:
    if not isinstance(value, str) or not _DATE.fullmatch(value):
        raise ValueError(f"{_short(repr(value), 80)} is not a date (YYYY-MM-DD)")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a date (YYYY-MM-DD)") from None


def _parse_datetime(value: object) -> datetime:
    m = _DATETIME.fullmatch(value) if isinstance(value, str) else None
    if m is None:
        raise ValueError(f"{_short(repr(value), 80)} is not an RFC 3339 date-time")
    year, month, day, hour, minute, second = (int(g) for g in m.group(1, 2, 3, 4, 5, 6))
    micro = int((m.group(7) or "0")[:6].ljust(6, "0"))
    if m.group(8):
        tz = UTC
    else:
        offset = timedelta(hours=int(m.group(10)), minutes=int(m.group(11)))
        tz = timezone(-offset if m.group(9) == "-" else offset)
    try:
        return datetime(year, month, day, hour, minute, min(second, 59), micro, tzinfo=tz)  # 60: leap second
    except ValueError:
        raise ValueError(f"{value!r} is not an RFC 3339 date-time") from None


def parse_duration(value: str) -> float:
    """Seconds in an ISO-8601 duration such as ``PT6H`` or ``P1DT12H`` (years count
    365 days, months 30); ``ValueError`` if it isn't one. Not bounded."""
    m = _DURATION.fullmatch(value) if isinstance(value, str) else None
    if m is None:
        raise ValueError(f"{_short(repr(value), 80)} is not an ISO-8601 duration (e.g. PT6H)")
    seconds = sum(float(g.replace(",", ".")) * unit for g, unit in zip(m.groups()[1:], _DURATION_UNITS) if g)
    return -seconds if m.group(1) == "-" else seconds


def _bounded(seconds: float) -> float:
    return min(max(seconds, MIN_REFRESH_SECONDS), MAX_REFRESH_SECONDS)


# ------------------------------------------------------------------------ hosts

#: LDH labels of at most 63 characters (the form every hostname has after IDNA).
_LDH_HOST = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)(?:\.(?!-)[a-z0-9-]{1,63}(?<!-))*", re.ASCII)
#: A label that URL parsers read as a number (WHATWG URL, "ends in a number").
_NUMERIC_LABEL = re.compile(r"[0-9]+|0[xX][0-9a-fA-F]*", re.ASCII)
#: A bare host with nothing to strip (no scheme, userinfo, port, path or brackets).
_PLAIN_HOST = re.compile(r"[^\s:/?#@\[\]]+")
_IPV4_PART = re.compile(r"0[xX](?P<hex>[0-9a-fA-F]*)|0(?P<oct>[0-7]+)|(?P<dec>0|[1-9][0-9]*)", re.ASCII)


def _ipv6(text: str) -> str | None:
    """The canonical form of an IPv6 literal (zone dropped; IPv4-mapped as IPv4)."""
    try:
        addr = ipaddress.IPv6Address(text.partition("%")[0])
    except ValueError:
        return None
    mapped = addr.ipv4_mapped
    return str(mapped) if mapped is not None else str(addr)


def _url_ipv4(host: str) -> str | None:
    """The IPv4 address a URL parser makes of ``host`` (WHATWG URL: ``127.1``,
    ``0x7f.0.0.1`` and ``2130706433`` are all 127.0.0.1), or None if it isn't one."""
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if len(parts) > 4:
        return None
    numbers = []
    for part in parts:
        m = _IPV4_PART.fullmatch(part)
        if m is None:
            return None
        if m.group("hex") is not None:
            numbers.append(int(m.group("hex") or "0", 16))
        elif m.group("oct") is not None:
            numbers.append(int(m.group("oct"), 8))
        else:
            numbers.append(int(m.group("dec")))
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        return None
    value = numbers[-1]
    for i, n in enumerate(numbers[:-1]):
        value += n << (8 * (3 - i))
    return str(ipaddress.IPv4Address(value))


@lru_cache(maxsize=4096)
def _idna(host: str) -> str:
    """Punycode/ASCII lowercase form of a non-ASCII host, label by label if the whole
    won't encode (so a bad label never hides a listed parent); never raises. Cached:
    IDNA costs ~20 us and a crawl asks about the same few hosts over and over."""
    try:
        return idna.encode(host, uts46=True, std3_rules=False, transitional=False).decode("ascii")
    except (idna.IDNAError, UnicodeError, ValueError):
        pass
    try:
        host = idna.uts46_remap(host, std3_rules=False, transitional=False)
    except (idna.IDNAError, UnicodeError, ValueError):
        return host.lower()
    labels = []
    for label in host.split("."):
        try:
            labels.append(idna.alabel(label).decode("ascii") if label else label)
        except (idna.IDNAError, UnicodeError, ValueError):
            labels.append(label.lower())
    return ".".join(labels)


def _extract_host(value: str) -> str:
    """The host part of a bare host, ``host:port``, ``[v6]:port`` or URL."""
    if _PLAIN_HOST.fullmatch(value):  # the common case: already a bare host
        return value
    text = value.strip()
    if "://" in text or text.startswith("//"):
        try:
            return urlsplit(text).hostname or ""
        except ValueError:  # e.g. an unbalanced "[" in the netloc
            text = text.split("//", 1)[1]
    for sep in "/?#":
        text = text.split(sep, 1)[0]
    text = text.rpartition("@")[2]
    if text.startswith("["):
        return text[1:].partition("]")[0]
    if text.count(":") == 1:  # host:port; two or more colons is a bare IPv6 literal
        return text.partition(":")[0]
    return text


def _canonical(host: str) -> tuple[str, bool]:
    """(canonical form, is an IP address) of an extracted host; never raises."""
    if not host:
        return "", False
    if ":" in host:
        ip = _ipv6(host)
        if ip is not None:
            return ip, True
    if not host.isascii():
        host = _idna(host)
    host = host.lower().rstrip(".")
    last = host.rpartition(".")[2]
    if last[:1].isdigit() and _NUMERIC_LABEL.fullmatch(last):  # "0x7f" starts with a digit too
        ip = _url_ipv4(host)
        if ip is not None:
            return ip, True
    return host, False


def normalise_host(host_or_url: str) -> str:
    """The canonical form of the host in ``host_or_url`` (a bare host, ``host:port``,
    ``[v6]:port`` or a URL): lowercase, IDNA A-labels (UTS 46 mapping), no trailing dot
    or port, IP addresses as :mod:`ipaddress` writes them. A host that can't be
    IDNA-encoded is lowercased label by label instead; this never raises."""
    return _canonical(_extract_host(host_or_url))[0]


def _listed(value: object) -> tuple[str, bool]:
    """The canonical form of a listed domain, strictly: a hostname (ASCII or IDN) or an
    IP literal, with no scheme, port, path or whitespace. ``ValueError`` otherwise. A
    name that URL parsers read as an IPv4 address (``127.1``, ``0x7f.0.0.1``) is that
    address, exactly as :meth:`Blocklist.match` reads a host."""
    if not isinstance(value, str):
        raise ValueError(f"{_short(repr(value), 80)} is not a string")
    if ":" in value:
        ip = _ipv6(value) if "%" not in value else None
        if ip is None:
            raise ValueError(f"{_short(repr(value), 80)} is not a hostname or IP address (no scheme or port)")
        return ip, True
    host = value[:-1] if value.endswith(".") else value
    if not host.isascii():
        try:
            host = idna.encode(host, uts46=True, std3_rules=True, transitional=False).decode("ascii")
        except (idna.IDNAError, UnicodeError, ValueError) as exc:
            raise ValueError(f"{_short(repr(value), 80)} is not a valid IDN hostname: {exc}") from None
        host = host[:-1] if host.endswith(".") else host
    host = host.lower()
    if not _LDH_HOST.fullmatch(host) or len(host) > 253:
        raise ValueError(f"{_short(repr(value), 80)} is not a hostname (no scheme, port, path or whitespace)")
    if _NUMERIC_LABEL.fullmatch(host.rpartition(".")[2]):
        ip = _url_ipv4(host)  # "127.1" is 127.0.0.1 to every URL parser, so it is that address here too
        if ip is not None:
            return ip, True
    return host, False


def canonical_domain(value: object) -> str:
    """The canonical form of a domain as a blocklist entry may write it (strictly: a
    hostname or IP literal, nothing else); ``ValueError`` says what is wrong with it.
    Editors of the list use it so an entry is written as the gate will read it."""
    return _listed(value)[0]


# -------------------------------------------------------------------- the list


class Blocklist:
    """An adopted operator blocklist, plus any local opt-outs.

    Build one with :meth:`from_document`, :meth:`empty` or :meth:`with_extra` (the
    constructor is internal). Treat it as immutable: :meth:`with_extra` returns a new
    list, so the middleware can swap lists atomically. ``len()`` counts distinct
    canonical domains; iterating yields the :class:`BlocklistEntry` objects.
    """

    __slots__ = ("_names", "_ips", "document", "updated", "refresh", "refresh_seconds", "duplicates")

    def __init__(
        self,
        names: dict[str, BlocklistEntry],
        ips: dict[str, BlocklistEntry],
        document: dict[str, Any] | None = None,
        updated: datetime | None = None,
        refresh: str | None = None,
        duplicates: int = 0,
    ):
        self._names = names
        self._ips = ips
        #: The validated document (without local opt-outs), to persist and re-adopt
        #: later with :meth:`from_document`; None for :meth:`empty`. Do not mutate it.
        self.document = document
        #: The document's ``updated``, timezone-aware.
        self.updated = updated
        #: The document's ``refresh`` as written, or None.
        self.refresh = refresh
        #: How long to cache the list: ``refresh`` bounded to [60 s, 7 days], or
        #: :data:`DEFAULT_REFRESH_SECONDS` when the document has none.
        self.refresh_seconds = DEFAULT_REFRESH_SECONDS if refresh is None else _bounded(parse_duration(refresh))
        #: Entries dropped because an earlier one had the same canonical domain.
        self.duplicates = duplicates

    @classmethod
    def empty(cls) -> Blocklist:
        """No opt-outs: what a first-ever failed fetch leaves (R3: fail open)."""
        return cls({}, {})

    @classmethod
    def from_document(cls, doc: Mapping[str, Any] | str | bytes, schema: Mapping[str, Any] | None = None) -> Blocklist:
        """Validate and adopt a walsh-research-blocklist/v1 document.

        ``doc`` is the parsed JSON or its text/bytes (at most :data:`MAX_DOCUMENT_BYTES`,
        UTF-8 with an optional BOM). ``schema`` is the published schema, or None for the
        bundled copy. Raises :class:`InvalidSchema` if the schema is unusable and
        :class:`InvalidBlocklist` if the document is; both are ``ValueError``.

        A domain listed twice (after canonicalisation, so ``bücher.example`` and
        ``xn--bcher-kva.example`` are the same) keeps the entry with the earliest
        ``added``, the first in the document on a tie; :attr:`duplicates` counts the rest.
        """
        plan = _plan(schema)
        data = _parse(doc)
        _validate(plan, data)
        return cls._build(data)

    @classmethod
    def _build(cls, data: Any) -> Blocklist:
        if not isinstance(data, Mapping):
            raise InvalidBlocklist(f"document: must be a JSON object, got {type(data).__name__}")
        contract = data.get("contract")
        if contract != CONTRACT:
            raise InvalidBlocklist(f"contract: must be {CONTRACT!r}, got {_short(repr(contract), 80)}")
        try:
            updated = _parse_datetime(data.get("updated"))
        except ValueError as exc:
            raise InvalidBlocklist(f"updated: {exc}") from None
        refresh = data.get("refresh")
        if refresh is not None:
            try:
                parse_duration(refresh)
            except ValueError as exc:
                raise InvalidBlocklist(f"refresh: {exc}") from None
        blocked = data.get("blocked")
        if not isinstance(blocked, list):
            raise InvalidBlocklist(f"blocked: must be a list, got {type(blocked).__name__}")
        names: dict[str, BlocklistEntry] = {}
        ips: dict[str, BlocklistEntry] = {}
        dates: dict[str, date] = {}  # the same few dates recur across thousands of entries
        duplicates = 0
        for i, item in enumerate(blocked):
            if not isinstance(item, Mapping):
                raise InvalidBlocklist(f"blocked[{i}]: must be an object, got {type(item).__name__}")
            listed = item.get("domain")
            try:
                domain, is_ip = _listed(listed)
            except ValueError as exc:
                raise InvalidBlocklist(f"blocked[{i}].domain: {exc}") from None
            added_text = item.get("added")
            added = dates.get(added_text) if isinstance(added_text, str) else None
            if added is None:
                try:
                    added = _parse_date(added_text)
                    if isinstance(added_text, str):
                        dates[added_text] = added
                except ValueError as exc:
                    raise InvalidBlocklist(f"blocked[{i}].added: {exc}") from None
            reason = item.get("reason")
            if not isinstance(reason, str):
                raise InvalidBlocklist(f"blocked[{i}].reason: {_short(repr(reason), 80)} is not a string")
            table = ips if is_ip else names
            kept = table.get(domain)
            if kept is not None:
                duplicates += 1
                if kept.added is not None and kept.added <= added:
                    continue
            table[domain] = BlocklistEntry(domain, added, reason, str(listed), is_ip)
        return cls(names, ips, dict(data), updated, refresh, duplicates)

    def with_extra(self, domains: Iterable[str] | str, reason: str = EXTRA_REASON) -> Blocklist:
        """This list plus local opt-outs (``WALSH_BLOCKLIST_EXTRA``): a new Blocklist.

        ``domains`` is an iterable of hostnames / IP literals, or one comma-separated
        string; blanks are skipped and surrounding whitespace, a trailing dot and
        ``[...]`` around an IPv6 literal are tolerated. Raises ``ValueError`` naming
        the first bad domain. A domain the operator already lists keeps the
        operator's entry.
        """
        if isinstance(domains, str):
            domains = domains.split(",")
        names, ips = dict(self._names), dict(self._ips)
        for item in domains:
            if not isinstance(item, str):
                raise ValueError(f"blocklist domain {item!r} is not a string")
            text = item.strip()
            if not text:
                continue
            if text.startswith("[") and text.endswith("]"):
                text = text[1:-1]
            try:
                domain, is_ip = _listed(text)
            except ValueError as exc:
                raise ValueError(f"bad blocklist domain {item!r}: {exc}") from None
            table = ips if is_ip else names
            table.setdefault(domain, BlocklistEntry(domain, None, reason, text, is_ip))
        if len(names) == len(self._names) and len(ips) == len(self._ips):
            return self
        return Blocklist(names, ips, self.document, self.updated, self.refresh, self.duplicates)

    def match(self, host_or_url: str) -> BlocklistEntry | None:
        """The entry covering the host of ``host_or_url`` (a bare host, ``host:port``,
        ``[v6]:port`` or a URL), or None. A listed name covers itself and its
        subdomains, the most specific listed name winning; an IP only itself. Costs
        one dict probe per label of the host, whatever the size of the list."""
        if not isinstance(host_or_url, str):
            raise TypeError(f"expected a host or URL string, got {type(host_or_url).__name__}")
        host, is_ip = _canonical(_extract_host(host_or_url))
        if is_ip:
            return self._ips.get(host)
        names = self._names
        if not names or not host:
            return None
        entry = names.get(host)
        dot = host.find(".")
        while entry is None and dot != -1:
            entry = names.get(host[dot + 1 :])
            dot = host.find(".", dot + 1)
        return entry

    def __contains__(self, host_or_url: object) -> bool:
        return isinstance(host_or_url, str) and self.match(host_or_url) is not None

    def __iter__(self) -> Iterator[BlocklistEntry]:
        yield from self._names.values()
        yield from self._ips.values()

    def __len__(self) -> int:
        return len(self._names) + len(self._ips)

    def __repr__(self) -> str:
        updated = self.updated.isoformat() if self.updated else None
        return f"<Blocklist {len(self)} entries, updated={updated}, refresh={self.refresh_seconds:.0f}s>"
