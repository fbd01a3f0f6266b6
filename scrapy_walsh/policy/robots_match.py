"""RFC 9309 §2.2.2-2.2.3 path matching: pure, standard library only.

Both sides of a comparison, the URL's path and query and a rule's pattern, are first
spelled one way (:func:`normalise`), then compared octet by octet from the first octet
of the path. The spelling follows RFC 9309 §2.2.2, which defers to RFC 3986:

* ``%XX`` of an unreserved character (``A-Z a-z 0-9 - . _ ~``) is decoded: "If a
  percent-encoded ASCII octet is encountered in the URI, it MUST be unencoded prior to
  comparison, unless it is a reserved character" (RFC 3986 §6.2.2.2 says the same).
* ``%XX`` of anything else stays encoded, hex digits uppercased (RFC 3986 §6.2.2.1).
* A reserved character (``: / ? # [ ] @ ! $ & ' ( ) * + , ; =``) stays as written, so
  ``?`` and ``%3F`` are different octets: "URIs that differ in the replacement of a
  reserved character with its corresponding percent-encoded octet are not equivalent"
  (RFC 3986 §2.2). A raw reserved character is a delimiter, its ``%XX`` is data.
* The two special characters of RFC 9309 §2.2.3 are the exception: in a URL, ``*`` and
  ``$`` are compared as ``%2A`` and ``%24``, since a rule can only name them that way
  ("If crawlers match special characters verbatim in the URI, crawlers SHOULD use "%"
  encoding", Figure 6: ``/path/foo-%24`` matches ``https://www.example.com/path/foo-$``).
* Octets outside ASCII, and ASCII characters a URI cannot hold (space, ``"``, ``<``,
  ``>``, ``\\``, ``^``, `````, ``{``, ``|``, ``}``, controls, a ``%`` that starts no
  escape), are percent-encoded from their UTF-8 octets (RFC 9309 §2.2.2, RFC 3986 §2.1).

In a pattern, ``*`` matches any run of octets and a final ``$`` ends the pattern
(§2.2.3); a ``$`` elsewhere is a literal ``%24``. A pattern that starts with neither
``/`` nor ``*`` is not a path pattern (§2.2 ABNF: ``path-pattern = "/" ...``) and
matches nothing: ``Disallow: http://example.com/private`` is never read as a path.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from operator import methodcaller
from typing import Any, NamedTuple
from urllib.parse import urlsplit

__all__ = ["CompiledRules", "compile_rules", "no_gc", "normalise", "normalise_pattern", "url_path"]

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
#: Characters kept as written: unreserved, and reserved but for ``#`` (never in a path or
#: pattern here), ``*`` and ``$`` (RFC 9309 §2.2.3's special characters).
_KEPT = r"A-Za-z0-9\-._~:/?\[\]@!&'()+,;="
#: What must change: an escape (to decode or uppercase), or a character not kept.
_TO_NORMALISE = re.compile(rf"%[0-9A-Fa-f]{{2}}|%|[^{_KEPT}%]+")
_NORMAL = re.compile(rf"[{_KEPT}]*").fullmatch
_NORMAL_PATTERN = re.compile(rf"[{_KEPT}*]*").fullmatch  # the same, with its "*" wildcards
#: A URL whose path and query need no change: the path is the group, at once.
_PLAIN_URL = re.compile(rf"(?:[A-Za-z][A-Za-z0-9+.\-]*://[^/?#]*)?(/(?!/)[{_KEPT}]*)").fullmatch
_INDEX_PAGE = "/index.html"


def _fix(match: re.Match[str]) -> str:
    text = match.group()
    if len(text) == 3 and text[0] == "%":
        char = chr(int(text[1:], 16))
        return char if char in _UNRESERVED else text.upper()
    return "".join(f"%{octet:02X}" for octet in text.encode("utf-8", "surrogatepass"))


def normalise(text: str) -> str:
    """``text`` spelled the one way both sides are compared in (see the module's docstring)."""
    if _NORMAL(text):
        return text
    return _TO_NORMALISE.sub(_fix, text)


def normalise_pattern(pattern: str) -> str:
    """A rule's pattern spelled the way it is compared: each run between ``*`` wildcards
    normalised, and a final ``$`` kept as the end anchor (any other ``$`` is ``%24``).

    robots.txt ``Allow``/``Disallow`` rules and the usage-preference rules (``Content-Usage``,
    tdmrep.json ``location``) are both read this way, so one path pattern matches the same URLs
    wherever it is written."""
    anchored = pattern[-1:] == "$"
    body = pattern[:-1] if anchored else pattern
    text = body if _NORMAL_PATTERN(body) else "*".join(normalise(part) for part in body.split("*"))
    return text + "$" if anchored else text


def url_path(url: str) -> str:
    """The path and query of ``url``, normalised, starting with ``/``; no fragment."""
    plain = _PLAIN_URL(url)
    if plain:
        return plain[1]
    url = url.partition("#")[0]
    try:
        parts = urlsplit(url)
        path, query = parts.path, parts.query
    except ValueError:  # an authority urlsplit refuses ("http://example.com["): the path is still there
        path, _, query = _raw_path(url).partition("?")
    if "?" in url:  # a "?" with nothing after it is still part of what rules match
        path += "?" + query
    path = normalise(path)
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


class _Pattern(NamedTuple):
    """One pattern, normalised (``text``, whose length is its specificity), and how to match it."""

    text: str
    match: Callable[[str], Any]
    #: The literal prefix it is, when it matches exactly the paths starting with it.
    prefix: str | None


def _compile(pattern: str) -> _Pattern | None:
    """A rule's value as a matcher, or None when it is not a path pattern."""
    first = pattern[:1]
    if first != "/" and first != "*":
        return None
    if "*" not in pattern and pattern[-1] != "$":  # most rules: a plain prefix
        text = normalise(pattern)
        return _Pattern(text, methodcaller("startswith", text), text)
    anchored = pattern[-1] == "$"
    text = normalise_pattern(pattern)
    parts = (text[:-1] if anchored else text).split("*")
    # Trailing stars match anything, and so does a final "*$": neither narrows the match.
    while len(parts) > 1 and not parts[-1]:
        parts.pop()
        anchored = False
    head = parts[0]
    if len(parts) == 1:
        if anchored:
            return _Pattern(text, head.__eq__, None)
        return _Pattern(text, methodcaller("startswith", head), head)
    return _Pattern(text, _wildcard(head, parts[1:-1], parts[-1], anchored), None)


def _wildcard(head: str, middle: list[str], last: str, anchored: bool) -> Callable[[str], bool]:
    """``head*middle[0]*...*last[$]`` as a function. Each part is looked for once, from where
    the previous one ended (its first occurrence is always the best), so a match takes
    linear time whatever the pattern; a closure costs far less to build than a regex."""
    start = len(head)
    if not middle:
        if anchored:
            shortest = start + len(last)

            def head_end(path: str) -> bool:
                return path.startswith(head) and path.endswith(last) and len(path) >= shortest

            return head_end

        def head_then(path: str) -> bool:
            return path.startswith(head) and path.find(last, start) >= 0

        return head_then
    parts = [(part, len(part)) for part in middle]
    tail = len(last)

    def general(path: str) -> bool:
        if not path.startswith(head):
            return False
        pos = start
        for part, size in parts:
            found = path.find(part, pos)
            if found < 0:
                return False
            pos = found + size
        if anchored:
            return path.endswith(last) and len(path) - tail >= pos
        return path.find(last, pos) >= 0

    return general


_Rules = list[tuple[Callable[[str], Any], bool]]  # (match, is_allow), most specific first


@dataclass(frozen=True, slots=True)
class CompiledRules:
    """A selected group's rules, most specific first, an Allow before a Disallow on a tie
    (RFC 9309 §2.2.2): the first that matches decides."""

    #: The plain prefixes: a path starting with none of them needs only ``special``.
    prefixes: tuple[str, ...]
    rules: _Rules
    #: The rules a prefix miss cannot rule out (with ``*`` or a final ``$``).
    special: _Rules
    #: ``rules[i]`` was written by ``sources[i]``, an item given to :func:`compile_rules`.
    sources: list[Any]

    def decide(self, path: str) -> bool | None:
        """Whether an Allow (True) or a Disallow (False) decides the normalised ``path``;
        None when no rule matches."""
        for match, allow in self.rules if path.startswith(self.prefixes) else self.special:
            if match(path):
                return allow
        return None

    def deciding(self, path: str) -> Any:
        """The source of the rule that :meth:`decide` follows, or None."""
        for (match, _), source in zip(self.rules, self.sources):
            if match(path):
                return source
        return None


@contextmanager
def no_gc() -> Iterator[None]:
    """The cyclic garbage collector paused while a file's objects are built. They hold no
    cycles, but hundreds of thousands of them (a 4 MiB file) trigger collection after
    collection: two thirds of the time of compiling 170,000 rules."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def compile_rules(rules: Iterable[tuple[bool, str, Any]]) -> CompiledRules:
    """``(is_allow, pattern as written, source)`` items as :class:`CompiledRules`.

    A rule written twice (the same pattern once normalised) keeps its first source. As in
    Google's parser, ``Allow: /dir/index.html`` also allows ``/dir/`` (``/dir/$``).
    """
    with no_gc():
        return _compile_rules(rules)


def _compile_rules(rules: Iterable[tuple[bool, str, Any]]) -> CompiledRules:
    cache: dict[str, _Pattern | None] = {}
    compiled: dict[tuple[str, bool], tuple[_Pattern, Any]] = {}
    for allow, written, source in rules:
        if written not in cache:
            cache[written] = _compile(written)
        pattern = cache[written]
        if pattern is None:
            continue
        compiled.setdefault((pattern.text, allow), (pattern, source))
        if allow and pattern.text.endswith(_INDEX_PAGE):
            index = _compile(pattern.text[: -len(_INDEX_PAGE) + 1] + "$")
            assert index is not None
            compiled.setdefault((index.text, True), (index, source))
    ordered = sorted(compiled.items(), key=lambda item: (len(item[0][0]), item[0][1]), reverse=True)
    rules_: _Rules = []
    special: _Rules = []
    prefixes: list[str] = []
    sources: list[Any] = []
    for (_, allow), (pattern, source) in ordered:
        pair = (pattern.match, allow)
        rules_.append(pair)
        sources.append(source)
        if pattern.prefix is None:
            special.append(pair)
        else:
            prefixes.append(pattern.prefix)
    return CompiledRules(tuple(prefixes), rules_, special, sources)
