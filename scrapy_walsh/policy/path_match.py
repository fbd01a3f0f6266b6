"""RFC 9309 §2.2.2-2.2.3 path matching: pure, standard library only.

Both sides of a comparison, the URL's path and query and a rule's pattern, are first spelled
one way (:func:`normalise`; a ``%`` that starts no escape makes both sides compared as written,
:func:`spell_as_written`), then compared octet by octet. Matching a spelled pattern, and which
rule decides, are in :mod:`scrapy_walsh.policy.robots`, the module compiled by mypyc.
docs/robots-matching.md ("How both sides are spelled") says why.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from scrapy_walsh.policy.urls import split

__all__ = (
    "KEPT",
    "KEPT_ESCAPES",
    "index_page_rule",
    "normalise",
    "normalise_pattern",
    "has_lone_percent",
    "spell_as_written",
    "spell_rule",
    "url_path",
    "url_path_as_written",
)

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
#: Characters kept as written, so a pattern of these alone is its own spelling: unreserved, and
#: reserved but for ``#`` (never in a path or pattern here), ``*`` and ``$`` (RFC 9309 §2.2.3's
#: special characters).
KEPT = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?[]@!&'()+,;="
_KEPT = re.escape(KEPT)
#: The hex digits of the escapes :func:`normalise` keeps as written: uppercase, and not of an
#: unreserved character (those are decoded).
KEPT_ESCAPES = frozenset(f"{octet:02X}" for octet in range(256) if chr(octet) not in _UNRESERVED)
#: What must change: an escape (to decode or uppercase), or a character not kept.
_TO_NORMALISE = re.compile(rf"%[0-9A-Fa-f]{{2}}|%|[^{_KEPT}%]+")
_NORMAL = re.compile(rf"[{_KEPT}]*").fullmatch
_NORMAL_PATTERN = re.compile(rf"[{_KEPT}*]*").fullmatch  # the same, with its "*" wildcards
#: A URL whose path and query need no change: the path is the group, at once.
_PLAIN_URL = re.compile(rf"(?:[A-Za-z][A-Za-z0-9+.\-]*://[^/?#]*)?(/(?!/)[{_KEPT}]*)").fullmatch
#: A ``%`` that starts no escape.
_LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})").search
_INDEX_PAGE = "/index.html"


def _encode(text: str) -> str:
    return "".join(f"%{octet:02X}" for octet in text.encode("utf-8", "surrogatepass"))


def _fix(match: re.Match[str]) -> str:
    text = match.group()
    if len(text) == 3 and text[0] == "%":
        char = chr(int(text[1:], 16))
        return char if char in _UNRESERVED else text.upper()
    return _encode(text)


def _fix_as_written(match: re.Match[str]) -> str:
    text = match.group()
    if text[0] == "%":
        return text.upper()  # an escape stays one, a lone "%" stays itself
    return _encode(text)


def normalise(text: str) -> str:
    """``text`` spelled the one way both sides are compared in (see the module's docstring)."""
    if _NORMAL(text):
        return text
    return _TO_NORMALISE.sub(_fix, text)


def spell_as_written(text: str) -> str:
    """``text`` as written, for a rule holding a lone ``%`` and the URLs it is compared with:
    no escape decoded (hex digits uppercased), a lone ``%`` kept, anything else that
    :func:`normalise` encodes encoded alike."""
    if _NORMAL(text):
        return text
    return _TO_NORMALISE.sub(_fix_as_written, text)


def normalise_pattern(pattern: str, spell: Callable[[str], str] = normalise) -> str:
    """A rule's pattern spelled the way it is compared: each run between ``*`` wildcards
    normalised (or ``spell``-ed), and a final ``$`` kept as the end anchor (any other ``$`` is
    ``%24``).

    robots.txt ``Allow``/``Disallow`` rules and the usage-preference rules (``Content-Usage``,
    tdmrep.json ``location``) are both read this way, so one path pattern matches the same URLs
    wherever it is written."""
    anchored = pattern[-1:] == "$"
    body = pattern[:-1] if anchored else pattern
    text = body if _NORMAL_PATTERN(body) else "*".join(spell(part) for part in body.split("*"))
    return text + "$" if anchored else text


def url_path(url: str) -> str:
    """The path and query of ``url``, normalised, starting with ``/``; no fragment."""
    plain = _PLAIN_URL(url)
    if plain:
        return plain[1]
    return _spelled_path(url, normalise)


def has_lone_percent(text: str) -> bool:
    """``text`` holds a ``%`` that starts no escape."""
    return "%" in text and _LONE_PERCENT(text) is not None


def url_path_as_written(url: str) -> str:
    """The path and query of ``url`` as written (:func:`spell_as_written`), starting with ``/``:
    what a rule holding a lone ``%`` is compared with."""
    plain = _PLAIN_URL(url)
    if plain:
        return plain[1]
    return _spelled_path(url, spell_as_written)


def _spelled_path(url: str, spell: Callable[[str], str]) -> str:
    url = url.partition("#")[0]
    try:
        parts = split(url)
        path, query = parts.path, parts.query
    except ValueError:  # an authority urlsplit refuses ("http://example.com["): the path is still there
        path, _, query = _raw_path(url).partition("?")
    if "?" in url:  # a "?" with nothing after it is still part of what rules match
        path += "?" + query
    path = spell(path)
    return path if path[:1] == "/" else "/" + path


def _raw_path(url: str) -> str:
    """The path and query of a URL whose authority ``urlsplit`` refuses, split by hand
    (RFC 3986 §3: the authority after ``//`` ends at the first ``/`` or ``?``)."""
    scheme = re.match(r"[A-Za-z][A-Za-z0-9+.\-]*:", url)
    rest = url[scheme.end() :] if scheme else url
    if rest[:2] == "//":
        end = re.search(r"[/?]", rest[2:])
        rest = rest[2 + end.start() :] if end else ""
    return rest


def spell_rule(pattern: str, all_as_written: bool = False) -> tuple[str, bool] | None:
    """A rule's value spelled the way it is compared, and whether it is matched against the
    path as written (it holds a lone ``%``); None when it is not a path pattern. Its length is
    the rule's specificity (RFC 9309 §2.2.2: the octets of the normalised pattern)."""
    first = pattern[:1]
    if first != "/" and first != "*":
        return None
    as_written = all_as_written or has_lone_percent(pattern)
    spell = spell_as_written if as_written else normalise
    if "*" not in pattern and pattern[-1] != "$":  # most rules: a plain prefix
        return spell(pattern), as_written
    return normalise_pattern(pattern, spell), as_written


def index_page_rule(text: str, all_as_written: bool = False) -> tuple[str, bool] | None:
    """As in Google's parser, ``Allow: /dir/index.html`` also allows ``/dir/`` (``/dir/$``):
    the extra rule a spelled Allow ``text`` brings, or None."""
    if not text.endswith(_INDEX_PAGE):
        return None
    return spell_rule(text[: -len(_INDEX_PAGE) + 1] + "$", all_as_written)
