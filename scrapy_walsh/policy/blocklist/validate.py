"""Validating a parsed document against a plan, and the one-line reason for a refusal.

The compiled fast path answers "valid" for a good list; anything else goes to
jsonschema, with format assertions on (date-time, date, uri, duration, hostname,
idn-hostname, ipv4 and ipv6, by the ``jsonschema[format-nongpl]`` checkers), whose
first error names the rule, e.g.
``blocked[3].domain: 'http://x.com' is not a 'hostname' (nor an 'idn-hostname', an
'ipv4' or an 'ipv6')``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from scrapy_walsh.policy.blocklist.errors import InvalidBlocklist, InvalidSchema, short, where
from scrapy_walsh.policy.blocklist.formats import prepare as prepare_jsonschema

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

    from scrapy_walsh.policy.blocklist.schema import Plan


#: The schema's patterns, said in words: a bare regular expression tells an operator nothing.
PATTERN_WORDS: Mapping[str, str] = MappingProxyType(
    {
        r"^\S+(?![\s\S])": "is empty or holds white space: a domain is one word, with no spaces, tabs or line breaks",
    }
)


def pattern_words(pattern: object) -> str:
    """What a failed ``pattern`` asks for, in words when we know it."""
    return PATTERN_WORDS.get(str(pattern), f"does not match /{pattern}/")


def _a(fmt: object) -> str:
    return f"an {fmt!r}" if str(fmt)[:1] in ("a", "e", "i", "o") else f"a {fmt!r}"  # a 'uri', an 'ipv4'


def describe(error: ValidationError) -> str:
    """A one-line reason: where, and what rule, without dumping a huge instance."""
    at = where(error.absolute_path)
    instance = short(repr(error.instance), 80)
    rule = error.validator
    formats = _format_alternatives(error)
    if formats:  # "is not a 'hostname' (nor an 'idn-hostname', an 'ipv4' or an 'ipv6')"
        others = [_a(f) for f in formats[1:]]
        tail = f" (nor {', '.join(others[:-1])} or {others[-1]})" if len(others) > 1 else ""
        tail = f" (nor {others[0]})" if len(others) == 1 else tail
        return f"{at}: {instance} is not {_a(formats[0])}{tail}"
    if rule == "const":
        return f"{at}: must be {error.validator_value!r}, got {instance}"
    if rule == "type":
        return f"{at}: {instance} is not of type {error.validator_value!r}"
    if rule == "format":
        return f"{at}: {instance} is not {_a(error.validator_value)}"
    if rule == "pattern":
        return f"{at}: {instance} {pattern_words(error.validator_value)}"
    return f"{at}: {short(error.message, 200)}"


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
    prepare_jsonschema()
    from jsonschema.exceptions import best_match

    first = None
    for error in errors:
        if first is None or len(error.path) < len(first.path):
            first = error
    if first is not None and first.context and not _format_alternatives(first):
        first = best_match([first])  # descend into anyOf/oneOf to the telling branch
    return first


def validate(plan: Plan, data: object) -> None:
    """Return if ``data`` is valid under ``plan``; raise :class:`InvalidBlocklist` saying why not."""
    from referencing.exceptions import Unresolvable  # loaded with jsonschema when the plan was built

    try:
        if plan.skeleton is not None and plan.entry_ok is not None and plan.skeleton.is_valid(data):
            blocked = data.get("blocked") if isinstance(data, dict) else None
            if not isinstance(blocked, list) or all(map(plan.entry_ok, blocked)):
                return
        error = _first_error(plan.full.iter_errors(data))  # the reference, and the message
    except Unresolvable as exc:
        raise InvalidSchema(f"schema: unresolvable reference: {short(str(exc))}") from None
    except Exception as exc:  # a checker that blew up: still never adopt the document
        raise InvalidBlocklist(f"validation failed: {type(exc).__name__}: {exc}") from None
    if error is not None:
        raise InvalidBlocklist(describe(error))
