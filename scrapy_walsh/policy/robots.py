"""robots.txt per RFC 9309: pure, no Scrapy, no I/O.

Group selection is here (§2.2.1); path spelling is :mod:`scrapy_walsh.policy.path_match`.
Parsing only splits lines into groups; a token's rules are spelled at its first verdict
(:class:`_RuleSet`). Compiled by mypyc when installed, plain Python where it can't be (both
decide alike): give every attribute a type here. docs/requirements/r2-robots.md lists the
choices the RFC leaves open; docs/robots-parsing.md says why it is compiled.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Final

from scrapy_walsh.policy.path_match import (
    KEPT,
    KEPT_ESCAPES,
    has_lone_percent,
    index_page_rule,
    spell_rule,
    url_path,
    url_path_as_written,
)
from scrapy_walsh.policy.vocabulary import Verdict

__all__ = ("MAX_BYTES", "GroupSpan", "RobotsExplanation", "RuleLine", "RobotsTxt", "Verdict", "product_token")

#: The parse limit, the one constant every reader of robots.txt bytes uses (the fetch bound
#: is this plus a little). RFC 9309 §2.5: "at least 500 kibibytes"; we read 4 MiB, so the
#: largest real files (about 1 MB) are read whole (docs/robots-matching.md).
MAX_BYTES = 4 * 1024 * 1024

_BOM = b"\xef\xbb\xbf"
#: The kinds of record. Final: mypyc compiles them as constants, not module lookups.
_UA: Final = 0
_ALLOW: Final = 1
_DISALLOW: Final = 2
_SITEMAP: Final = 3
_DELAY: Final = 4
_RATE: Final = 5
#: Record names, lowercased. The misspellings are those Google's parser accepts
#: (and Protego): a site that wrote one meant the record.
_KEYS: Mapping[str, int] = MappingProxyType({
    "user-agent": _UA, "useragent": _UA, "user agent": _UA,
    "allow": _ALLOW,
    "disallow": _DISALLOW, "dissallow": _DISALLOW, "dissalow": _DISALLOW,
    "disalow": _DISALLOW, "diasllow": _DISALLOW, "disallaw": _DISALLOW,
    "sitemap": _SITEMAP, "site-map": _SITEMAP,
    "crawl-delay": _DELAY, "crawl delay": _DELAY,
    "request-rate": _RATE, "request rate": _RATE,
})  # fmt: skip
_PRODUCT_TOKEN = re.compile(r"[A-Za-z_-]*").match
#: Names as written that :func:`_kind_as_written` remembers (a file repeats a few names; an HTML
#: page served as robots.txt, its CSS names), so a line pays one lookup instead of strip and lower.
_MAX_KINDS = 4096
_USAGE: Final = 6  # a usage-preference record (:func:`_usage_record`)
#: A run of the surrogates ``surrogateescape`` leaves for octets that are not UTF-8 (the
#: pattern is built at run time: a compiled module can't hold a lone surrogate literal).
_NOT_UTF8 = re.compile("[" + chr(0xDC80) + "-" + chr(0xDCFF) + "]+").sub
#: ASCII only (re.ASCII): ``\\d`` would take ``٣`` and ``１``, and IGNORECASE would read ``ſ`` as ``s``.
#: At most MAX_DIGITS digits a number: a longer one is not a rate anyone meant, and the line is ignored.
MAX_DIGITS = 15
_REQUEST_RATE = re.compile(
    rf"([0-9]{{1,{MAX_DIGITS}}})[ \t]*/[ \t]*([0-9]{{1,{MAX_DIGITS}}})[ \t]*([smhd]?)(?:[ \t].*)?",
    re.IGNORECASE | re.DOTALL | re.ASCII,
).fullmatch
_CRAWL_DELAY = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", re.ASCII).fullmatch
_UNIT_SECONDS: Mapping[str, int] = MappingProxyType({"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400})

#: RFC 9309 §2.2's WS is space and tab. The other ASCII whitespace (\v, \f) is a control
#: character a path pattern cannot hold, so it goes too, as in Google's parser; non-ASCII
#: whitespace (U+00A0, U+2002, ...) is a character of the path, kept and percent-encoded.
_WS = " \t\n\v\f\r"
_SPLIT_WS = re.compile("[ \t]+").split
#: The shortest and the longest one-word record name: "disallow /" without a colon names one.
_WORD_SIZES = (min(len(name) for name in _KEYS if " " not in name), max(len(name) for name in _KEYS if " " not in name))
#: The first character of each line with content (not whitespace, no comment), after a LF.
#: Possessive (no backtracking into the blanks) from Python 3.11; the same matches without it.
_CONTENT = re.compile(r"\n[^\S\n]*+([^\s#])" if sys.version_info >= (3, 11) else r"\n[^\S\n]*([^\s#])").findall


class _Group:
    """One group as written: its user-agent values and its records, unparsed, with the
    1-based line numbers ``explain`` reports (the matchers never read them).

    A plain slotted class: a parse makes one per group, and a dataclass's default
    factories cost three times as much."""

    __slots__ = ("agents", "rules", "delays", "rates", "first_line", "agents_end", "usage")

    def __init__(self, first_line: int = 0) -> None:
        self.agents: list[str] = []
        self.rules: list[tuple[bool, str, int]] = []  # (is_allow, pattern, line)
        self.delays: list[tuple[str, int]] = []  # (value, line)
        self.rates: list[tuple[str, int]] = []  # (value, line)
        self.first_line = first_line
        self.agents_end = 0  # the line of the last User-agent record
        #: Usage-preference records (Content-Usage, Content-Signal, License), for the usage model.
        self.usage: list[tuple[str, str, int]] = []  # (field, value, line)

    @property
    def last_line(self) -> int:
        """The group's last record that says something (blank rules and comments excluded)."""
        return max(
            [self.agents_end]
            + [r[2] for r in self.rules[-1:]]
            + [d[1] for d in self.delays[-1:]]
            + [r[1] for r in self.rates[-1:]]
        )


class _Parse:
    """One parse: the groups and file-wide records read so far, and the count of lines of
    content :func:`_no_record` reports when no line was a record.

    A line is a span of the text (``start``, ``end``), never a copy: most lines of a large file
    are HTML or comments, skipped after one look at their first character. Compiled, ``ord(text[i])``
    is a read of the string's memory and ``text.find`` one C call."""

    __slots__ = ("groups", "sitemaps", "licences", "group", "rules", "in_agents", "recognised", "content", "first")

    def __init__(self) -> None:
        self.groups: list[_Group] = []
        self.sitemaps: list[str] = []
        self.licences: list[tuple[str, str, int]] = []
        self.group: _Group | None = None
        self.rules: list[tuple[bool, str, int]] | None = None  # the current group's
        self.in_agents = False  # the current group still takes User-agent lines
        self.recognised = False
        #: Lines whose first character past their whitespace is not ``#``, and the first such
        #: character; -1 once a line starts with whitespace the parse does not skip (``\x1c``-``\x1f``,
        #: and past ASCII what ``str.isspace`` calls whitespace), or the text holds a NUL: then
        #: :func:`_no_record` counts them itself.
        self.content = 0
        self.first = -1

    def read(self, text: str) -> None:
        """Read each line of ``text`` (LF-ended): up to its first NUL, as Google's parser reads it
        (a C string), then its WS skipped, then up to its ``#``."""
        nuls = "\x00" in text  # else no line is searched for one
        comment = text.find("#")  # the next "#", found again only once the lines pass it; -1: none left
        if nuls:
            self.content = -1
        size, position, number = len(text), 0, 0
        while position <= size:
            number += 1
            start, end = position, text.find("\n", position)
            if end < 0:
                end = size
            position = end + 1
            if nuls and (cut := text.find("\x00", start, end)) >= 0:
                end = cut
            if start == end:
                continue
            char = ord(text[start])
            if char == 32 or char == 9 or char == 11 or char == 12:  # the WS before a name changes nothing
                start = _skip_ws(text, start + 1, end)
                if start == end:
                    continue
                char = ord(text[start])
            if char == 35:  # "#": a comment
                continue
            if self.content >= 0:
                self._count(char)
            if not _may_start_record(char):  # no record (most of an HTML page) in one test
                continue
            if comment >= 0:
                if comment < start:
                    comment = text.find("#", start)
                if 0 <= comment < end:
                    end = comment
            colon = text.find(":", start, end)
            if colon >= 0:
                kind = _usual_kind(text, start, colon) if _COMPILED else -1
                if kind < 0:
                    name = text[start:colon]
                    kind = _kind_as_written(name)
                    if kind < 0:
                        continue
                    if kind == _USAGE:
                        _usage_record(name, text[colon + 1 : end], number, self.group, self.licences)
                        continue
                value = _value(text, colon + 1, end)
            else:
                kind, value = _without_colon(text[start:end])
                if kind < 0:
                    continue
            self.recognised = True
            self._record(kind, value, number)

    def _count(self, char: int) -> None:
        """Count a line of content: ``char`` is its first character past its ASCII WS, not ``#``."""
        if 28 <= char <= 31 or (char >= 128 and chr(char).isspace()):
            self.content = -1  # the line may hold only whitespace: the regex counts
        else:
            if not self.content:
                self.first = char
            self.content += 1

    def _record(self, kind: int, value: str, number: int) -> None:
        """A record line of ``kind`` (not a usage-preference record) and its value."""
        if kind == _DISALLOW or kind == _ALLOW:
            rules = self.rules
            if rules is not None:
                self.in_agents = False  # RFC 9309 §2.1: only a rule ends the user-agent lines
                if value:  # an empty rule matches nothing (§2.2.2)
                    rules.append((kind == _ALLOW, value, number))
        elif kind == _UA:
            group = self.group
            if group is None or not self.in_agents:
                group = self.group = _Group(number)
                self.groups.append(group)
                self.rules = group.rules
                self.in_agents = True
            group.agents.append(value)
            group.agents_end = number
        elif kind == _SITEMAP:
            if value := value.strip():  # a URL, not a path: any whitespace around it goes
                self.sitemaps.append(value)
        elif self.group is not None:
            (self.group.delays if kind == _DELAY else self.group.rates).append((value, number))


@dataclass(frozen=True, slots=True)
class GroupSpan:
    """A selected group, as :meth:`RobotsTxt.explain` reports it."""

    first_line: int
    last_line: int
    agents: tuple[str, ...]

    def describe(self) -> str:
        lines = (
            f"line {self.first_line}"
            if self.first_line == self.last_line
            else (f"lines {self.first_line}-{self.last_line}")
        )
        return f"group at {lines} ({', '.join('User-agent: ' + a for a in self.agents)})"


@dataclass(frozen=True, slots=True)
class RuleLine:
    """One rule as written, with its line number."""

    line: int
    allow: bool
    pattern: str

    def describe(self) -> str:
        return f"line {self.line}: {'Allow' if self.allow else 'Disallow'}: {self.pattern}"


@dataclass(frozen=True, slots=True)
class RobotsExplanation:
    """Why :meth:`RobotsTxt.verdict` says what it says about one URL."""

    verdict: Verdict
    token: str
    #: True when groups naming the token were selected; False for ``*`` (or nothing).
    named: bool
    groups: tuple[GroupSpan, ...]
    #: The rule that decided, or None (no rule matched, or /robots.txt itself).
    rule: RuleLine | None
    #: The ``*`` groups a named group overrode (empty when ``*`` itself was selected).
    overridden: tuple[GroupSpan, ...]
    crawl_delay: float | None
    crawl_delay_line: int | None
    request_rate: float | None
    request_rate_line: int | None
    parse_error: str | None


def _to_text(body: bytes | str) -> str:
    """The first :data:`MAX_BYTES` as text, BOM skipped, never raising.

    Octets that are not UTF-8 become ``%XX``: RFC 9309 §2.2.2 compares paths as
    percent-encoded octets, so a path written in Latin-1 still matches the URL
    that has those octets percent-encoded.
    """
    if isinstance(body, str):
        text = body
        if text.isascii():
            return text[:MAX_BYTES] if len(text) <= MAX_BYTES else _cut(text.encode("ascii")).decode("ascii")
        try:
            body = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            body = text.encode("utf-8", "surrogatepass")
    if body[:1] == b"\xef":  # a BOM, or what is left of one, is skipped (RFC 9309 §2.2)
        body = body[3:] if body[:3] == _BOM else body[2:] if body[:2] == _BOM[:2] else body[1:]
    if len(body) > MAX_BYTES:
        body = _cut(body)
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        # Each run of bad octets is replaced at once: str.translate would look every character
        # of the file up in a table, 0.1-0.2 µs each (3 ms for 18 KB with one bad octet).
        return _NOT_UTF8(_percent_octets, body.decode("utf-8", "surrogateescape"))


def _percent_octets(run: re.Match[str]) -> str:
    """``%XX`` for each octet of a run that is not UTF-8."""
    return "%" + run.group().encode("utf-8", "surrogateescape").hex("%").upper()


def _cut(body: bytes) -> bytes:
    """The first MAX_BYTES, without the line cut in two: a half rule (``Disallow: /``
    from ``Disallow: /private``) would say something the site did not."""
    head = body[:MAX_BYTES]
    if body[MAX_BYTES : MAX_BYTES + 1] in (b"\n", b"\r"):
        return head
    end = max(head.rfind(b"\n"), head.rfind(b"\r"))
    return head[: end + 1]


def _first_blank(line: str) -> int:
    """Where the first space or tab of ``line`` is; 0 when it has none (no first word to read)."""
    space, tab = line.find(" "), line.find("\t")
    if space < 0 or tab < 0:
        return max(space, tab, 0)
    return min(space, tab)


# The parse reads a line's characters as ordinals (``ord(line[i])``): compiled, that is a read
# of the string's memory, where ``line[i] in "..."`` makes a string and calls a search.
#: Compiled by mypyc (setup.py). A loop over a string's ordinals is then a few machine instructions
#: a character; plain Python pays a bytecode step for each, so there the name of a record, its
#: value and a URL's path are read with C string methods instead (both builds decide alike:
#: tests/unit/test_robots_compiled.py).
_COMPILED: Final = not __file__.endswith(".py")


def _is_ws(char: int) -> bool:
    """``chr(char)`` is in :data:`_WS` (SP, or one of HT LF VT FF CR)."""
    return char == 32 or 9 <= char <= 13


def _may_start_record(char: int) -> bool:
    """``chr(char)`` is the first letter, in either case, of a record name or of a
    usage-preference record's (:func:`_usage_record`): a line that starts with none, once
    its WS is skipped, is no record. ``| 32`` lowers an ASCII letter and makes no other
    character one."""
    low = char | 32
    return low == 100 or low == 117 or low == 97 or low == 115 or low == 99 or low == 114 or low == 108


def _usual_kind(line: str, start: int, colon: int) -> int:
    """The kind of record ``line[start:colon]`` names when it is Disallow, User-agent, Allow or
    Sitemap in any ASCII case, compared in place (no copy of the name, no hash); -1 for any
    other name, which is then looked up as written (:func:`_kind_as_written`).

    ``| 32`` lowers an ASCII letter, keeps ``-``, and turns only CR (never in a line) into it."""
    first = ord(line[start]) | 32
    if first == 100:
        name, kind = "disallow", _DISALLOW
    elif first == 117:
        name, kind = "user-agent", _UA
    elif first == 97:
        name, kind = "allow", _ALLOW
    elif first == 115:
        name, kind = "sitemap", _SITEMAP
    else:
        return -1
    if colon - start != len(name):
        return -1
    for index in range(1, len(name)):
        if ord(line[start + index]) | 32 != ord(name[index]):
            return -1
    return kind


def _skip_ws(line: str, start: int, end: int) -> int:
    """The first position of ``line`` from ``start`` that is not WS, or ``end``."""
    if not _COMPILED:
        return end - len(line[start:end].lstrip(_WS))
    while start < end and _is_ws(ord(line[start])):
        start += 1
    return start


def _value(line: str, start: int, end: int) -> str:
    """``line[start:end].strip(_WS)``, in one copy."""
    if not _COMPILED:
        return line[start:end].strip(_WS)
    while start < end and _is_ws(ord(line[start])):
        start += 1
    while end > start and _is_ws(ord(line[end - 1])):
        end -= 1
    return line[start:end]


@lru_cache(maxsize=_MAX_KINDS)  # a hostile file's made-up names can't grow it without bound
def _kind_as_written(name: str) -> int:
    """The kind of record a name as written (trailing WS kept) is (:data:`_USAGE` for a
    usage-preference record), or -1; remembered, since a file repeats its few names."""
    lowered = name.strip(_WS).lower()
    kind = _KEYS.get(lowered, _USAGE if lowered in _USAGE_RECORDS else None)
    return -1 if kind is None else kind


def _without_colon(line: str) -> tuple[int, str]:
    """Google's "disallow /": a missing colon between exactly two words (split by WS), as
    ``(kind, value)``; kind -1 when ``line`` (no WS before it) is no such record.

    The first word is looked up before the line is split: most lines without a colon are not
    records (an HTML page), and a regex split costs per character."""
    if not _WORD_SIZES[0] <= _first_blank(line) <= _WORD_SIZES[1]:
        return -1, ""  # no record name's length
    line = line.strip(_WS)
    kind = _KEYS.get(line[: _first_blank(line)].lower())
    if kind is None:
        return -1, ""
    words = _SPLIT_WS(line)
    if len(words) != 2:
        return -1, ""
    return kind, words[1]


def _group_token(value: str) -> str:
    """A User-agent value reduced to its product token (RFC 9309 §2.2.1), lowercased;
    ``*`` followed by a space or nothing is the global group."""
    if value[:1] == "*":
        return "*" if len(value) == 1 or value[1].isspace() else ""
    match = _PRODUCT_TOKEN(value)
    return match.group().lower() if match else ""


def _names(agent: str, wanted: str) -> bool:
    """``_group_token(agent) == wanted``, for a ``wanted`` product token in lower case, without
    a regex: group selection asks it of every User-agent line of the file."""
    size = len(wanted)
    head = agent[:size]
    if len(head) != size or not head.isascii() or head.lower() != wanted:
        return False
    after = agent[size : size + 1]  # the product token ends here
    return not after or not after.isascii() or not (after.isalpha() or after == "_" or after == "-")


@lru_cache(maxsize=_MAX_KINDS)  # a crawl asks with one or two tokens; every parse selects for them
def _wanted(token: str) -> str:
    """``token`` as the product token :func:`_names` compares: stripped and lowercased, or ""
    when it is no product token (no group's token can be it)."""
    wanted = token.strip().lower()
    if _PRODUCT_TOKEN(wanted).end() != len(wanted):  # type: ignore[union-attr]  # it always matches
        wanted = ""
    return wanted


def _is_any(agent: str) -> bool:
    """``_group_token(agent) == "*"``: the global group."""
    return agent[:1] == "*" and (len(agent) == 1 or agent[1].isspace())


#: ``compatible; Token/1.0`` in a browser-style User-Agent (``Mozilla/5.0 (compatible; ...)``).
_COMPATIBLE = re.compile(r"\(compatible;[ \t]*([A-Za-z_-]+)", re.IGNORECASE)


def product_token(user_agent: str) -> str:
    """The product token a crawler's User-Agent string names (RFC 9309 §2.2.1), for
    group selection: its first product's name (``WalshBot`` of ``WalshBot/1.0 (+url)``),
    or the crawler named after ``compatible;`` in a browser-style string."""
    value = user_agent.strip()
    match = _PRODUCT_TOKEN(value)
    token = match.group() if match else ""
    if token.lower() == "mozilla":
        compatible = _COMPATIBLE.search(value)
        if compatible:
            return compatible.group(1)
    return token


def _seconds_per_request(value: str) -> float | None:
    """``Request-rate: n/M[smhd]`` as seconds per request; a time window after it is ignored."""
    m = _REQUEST_RATE(value)
    if not m:
        return None
    requests, period = int(m[1]), int(m[2]) * _UNIT_SECONDS[m[3].lower()]
    return period / requests if requests > 0 and period > 0 else None


def _crawl_delay(value: str) -> float | None:
    """A decimal number of seconds in ASCII digits; anything else (``٣``, ``nan``, ``inf``,
    ``1e999``, a value past a float's range) is not read, and the line is ignored."""
    if not _CRAWL_DELAY(value):
        return None
    delay = float(value)
    return delay if math.isfinite(delay) else None


def _largest(values: list[float | None]) -> float | None:
    """Merged groups keep the slowest pace any of them asks for."""
    known = [v for v in values if v is not None]
    return max(known) if known else None


#: A rule as the parse left it: ``(is_allow, pattern as written, line)``.
_Record = tuple[bool, str, int]
#: A rule spelled for matching: the parts of its spelled pattern between ``*`` wildcards
#: (:func:`_parts`); whether it ends with ``$``; its specificity (RFC 9309 §2.2.2: the octets
#: of the spelled pattern); whether it is an Allow; whether it is matched against the path as
#: written (it holds a lone ``%``); and the record that wrote it.
_Rule = tuple[tuple[str, ...], bool, int, bool, bool, _Record]
#: The octets of a pattern that is its own spelling (path_match.KEPT).
_KEPT_OCTETS = KEPT.encode("ascii")
#: 1 at the ordinal of each character kept as written (path_match.KEPT), 0 at the others.
_KEPT_TABLE: Final = bytes([1 if chr(char) in KEPT else 0 for char in range(128)])


def _plain_url_path(url: str) -> str:
    """:func:`~scrapy_walsh.policy.path_match.url_path` of a URL that needs no spelling, the
    usual case, read in place: ``scheme://authority`` then a path and query of characters kept
    as written (no escape, no fragment); "" for any other URL, which path_match spells.

    It takes the URLs path_match's first regex takes, without a regex's call; that regex stays
    the reference (tests/unit/test_robots_matcher.py compares the two)."""
    scheme, size = url.find("://"), len(url)
    if scheme < 1 or not 97 <= ord(url[0]) | 32 <= 122:  # RFC 3986 §3.1: a letter first
        return ""
    for index in range(1, scheme):  # then letters, digits, "+", "-" and "."
        char = ord(url[index])
        if not (97 <= char | 32 <= 122 or 48 <= char <= 57 or char == 43 or char == 45 or char == 46):
            return ""
    start = scheme + 3
    while start < size and ord(url[start]) != 47 and ord(url[start]) != 63 and ord(url[start]) != 35:
        start += 1  # the authority ends at "/", "?" or "#"
    if start == size or ord(url[start]) != 47 or (start + 1 < size and ord(url[start + 1]) == 47):
        return ""  # no path, or one that starts with "//"
    for index in range(start + 1, size):
        char = ord(url[index])
        if char >= 128 or not _KEPT_TABLE[char]:
            return ""
    return url[start:]


#: A set of more plain rules than this also keeps them in one tuple: a path that starts with
#: none of them (one C call) is tried against the spelled rules alone.
_SPLIT_AT = 64


def _is_plain(pattern: str) -> bool:
    """``pattern`` is its own spelling and a plain prefix: no ``*`` or ``$``, nothing to encode,
    and each ``%`` starts an escape that stays as written (``%E0``, not ``%e0`` or ``%41``)."""
    if not pattern.isascii():
        return False
    rest = pattern.encode("ascii").translate(None, _KEPT_OCTETS)
    if not rest:
        return True
    if rest.strip(b"%"):
        return False
    escape = pattern.find("%")
    while escape >= 0:
        if pattern[escape + 1 : escape + 3] not in KEPT_ESCAPES:
            return False
        escape = pattern.find("%", escape + 3)
    return True


class _RuleSet:
    """The rules of a token's selected groups, as matched (RFC 9309 §2.2.2).

    Most patterns are their own spelling (``/``, letters, digits, reserved characters and escapes
    of others only), checked for the whole set at once: those records are matched as the parse
    left them, with no copy. The others are spelled by path_match, or taken as written when only
    their wildcards set them apart. Nothing is sorted or deduplicated: a verdict scans the rules
    keeping the longest match, an Allow on a tie, the first written of equals (the first match of
    the rules sorted by specificity), so building the set is one pass at most."""

    def __init__(self, records: list[_Record], all_as_written: bool) -> None:
        #: The records that are their own spelling, a plain prefix each, in the order written.
        self.plain: list[_Record] = records
        #: The others, and the directory an ``Allow: .../index.html`` also allows, spelled.
        self.spelled: list[_Rule] = []
        joined = "/".join([record[1] for record in records])  # "/": no escape runs across two
        if not _is_plain(joined):
            self.plain = []
            # Most sets are set apart by their wildcards alone: then a pattern without one is plain.
            wildcards = _is_plain(joined.replace("*", "/").replace("$", "/"))
            for record in records:
                pattern = record[1]
                if wildcards:
                    if "*" not in pattern and "$" not in pattern:
                        self.plain.append(record)
                        continue
                elif _is_plain(pattern):
                    self.plain.append(record)
                    continue
                body = pattern[:-1] if pattern[-1] == "$" else pattern
                if pattern[0] in "/*" and ("$" not in body if wildcards else _is_plain(body.replace("*", "/"))):
                    spelled: tuple[str, bool] | None = (pattern, all_as_written)  # wildcards, its own spelling
                else:
                    spelled = spell_rule(pattern, all_as_written)
                self._add(spelled, record)
                if record[0] and spelled is not None:
                    self._add(index_page_rule(spelled[0], all_as_written), record)
        if "index.html" in joined:  # Google's: also allows its directory
            for record in self.plain:
                if record[0]:
                    self._add(index_page_rule(record[1], all_as_written), record)
        #: Every plain prefix, when there are many (None: the plain rules are scanned).
        self.prefixes: tuple[str, ...] | None = None
        if len(self.plain) > _SPLIT_AT:
            self.prefixes = tuple([record[1] for record in self.plain])

    def _add(self, spelled: tuple[str, bool] | None, record: _Record) -> None:
        if spelled is not None:
            text, as_written = spelled
            parts, anchored = _parts(text)
            self.spelled.append((parts, anchored, len(text), record[0], as_written, record))

    def decide(self, path: str, written: str) -> _Record | None:
        """The record that decides: ``path`` is the URL's normalised path, ``written`` the same
        as written (the rules holding a lone ``%`` are matched against it)."""
        best: _Record | None = None
        size, allow, line = -1, False, 0
        if self.prefixes is None or path.startswith(self.prefixes):
            for record in self.plain:  # in line order: an equal one found later never wins
                length = len(record[1])
                if (length > size or (length == size and record[0] and not allow)) and path.startswith(record[1]):
                    best, size, allow, line = record, length, record[0], record[2]
        for rule in self.spelled:
            if _wins(rule[2], rule[3], rule[5][2], size, allow, line):
                if _matches(rule[0], rule[1], written if rule[4] else path):
                    best, size, allow, line = rule[5], rule[2], rule[3], rule[5][2]
        return best


def _parts(text: str) -> tuple[tuple[str, ...], bool]:
    """A spelled pattern as the parts between its ``*`` wildcards, and whether it ends with
    ``$`` (RFC 9309 §2.2.3). Trailing stars match anything, and so does a final ``*$``:
    neither narrows the match, so ``/a*`` is the plain prefix ``/a``."""
    anchored = text[-1:] == "$"
    parts = (text[:-1] if anchored else text).split("*")
    while len(parts) > 1 and not parts[-1]:
        parts.pop()
        anchored = False
    return tuple(parts), anchored


def _matches(parts: tuple[str, ...], anchored: bool, path: str) -> bool:
    """``path`` matches ``head*middle*...*last[$]``. Each part is looked for once, from where the
    previous one ended (its first occurrence is always the best), so a match takes linear time
    whatever the pattern."""
    head = parts[0]
    if not path.startswith(head):
        return False
    if len(parts) == 1:
        return not anchored or len(path) == len(head)
    position = len(head)
    last = len(parts) - 1
    for index in range(1, last):
        found = path.find(parts[index], position)
        if found < 0:
            return False
        position = found + len(parts[index])
    tail = parts[last]
    if anchored:
        return path.endswith(tail) and len(path) - len(tail) >= position
    return path.find(tail, position) >= 0


def _wins(length: int, allow: bool, line: int, size: int, best_allow: bool, best_line: int) -> bool:
    """A match of this rule would decide over the best so far: it is longer, or as long and an
    Allow over a Disallow, or equal and written first."""
    if length != size:
        return length > size
    if allow != best_allow:
        return allow
    return line < best_line


#: The verdicts, read once: an Enum member read from its class costs about 0.2 µs.
_IMPLICIT: Final = Verdict.ALLOWED_IMPLICIT
_ALLOWED: Final = Verdict.ALLOWED_EXPLICIT
_DISALLOWED: Final = Verdict.DISALLOWED_EXPLICIT


def _verdict(rule: _Record | None) -> Verdict:
    if rule is None:
        return _IMPLICIT
    return _ALLOWED if rule[0] else _DISALLOWED


class RobotsTxt:
    """A parsed robots.txt, queried per URL and product token."""

    def __init__(
        self,
        groups: list[_Group],
        sitemaps: list[str],
        parse_error: str | None = None,
        licences: list[tuple[str, str, int]] | None = None,
    ) -> None:
        self._groups = groups
        #: ``Sitemap:`` URLs, wherever they appear (they belong to no group).
        self.sitemaps = sitemaps
        #: Why a body is not a robots.txt at all, or None. Its rules still evaluate.
        self.parse_error = parse_error
        self._selected: dict[str, list[_Group]] = {}
        self._rule_sets: dict[str, _RuleSet] = {}
        #: The same rules all spelled as written, for a URL holding a lone "%" (path_match).
        self._written_rule_sets: dict[str, _RuleSet] = {}
        self._group_tokens: list[set[str]] | None = None
        #: RSL ``License:`` records, wherever they appear (like Sitemap, they belong to no group).
        self.licences: list[tuple[str, str, int]] = [] if licences is None else licences

    @classmethod
    def parse(cls, body: bytes | str) -> RobotsTxt:
        """Split ``body`` (bytes as received, or text) into groups; rules are compiled later, per token."""
        text = _to_text(body)
        if "\r" in text:  # RFC 9309 §2.2's EOL is CR, LF or CRLF: each is read as one LF
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        read = _Parse()
        read.read(text)
        error = None if read.recognised else _no_record(text, read.content, read.first)
        return RobotsTxt(read.groups, read.sitemaps, error, read.licences)  # compiled: a native call, cls a generic one

    def _select(self, token: str) -> list[_Group]:
        """RFC 9309 §2.2.1: every group naming ``token`` (case-insensitively, by product
        token), else every ``*`` group, else none."""
        wanted = _wanted(token)
        named = [g for g in self._groups if wanted and any(_names(agent, wanted) for agent in g.agents)]
        chosen = self._selected[token] = named or [g for g in self._groups if any(_is_any(a) for a in g.agents)]
        return chosen

    def _rule_set(self, token: str, as_written: bool = False) -> _RuleSet:
        """The selected groups' rules, spelled once per token (and once more all spelled as
        written, for the URLs holding a lone ``%``)."""
        found = (self._written_rule_sets if as_written else self._rule_sets).get(token)
        if found is not None:
            return found
        groups = self._selected.get(token)
        if groups is None:
            groups = self._select(token)
        rule_set = _RuleSet(groups[0].rules if len(groups) == 1 else [r for g in groups for r in g.rules], as_written)
        (self._written_rule_sets if as_written else self._rule_sets)[token] = rule_set
        return rule_set

    def _deciding(self, url: str, token: str) -> _Record | None:
        """The rule that decides ``url`` for ``token``, or None (no rule matches, or /robots.txt).

        The path is the URL's normalised one; a rule holding a lone ``%`` is matched against the
        path as written, and a URL holding one is matched as written against rules all spelled
        as written (path_match's docstring)."""
        rule_set = self._rule_sets.get(token)
        if rule_set is None:
            rule_set = self._rule_set(token)
        if not rule_set.plain and not rule_set.spelled:
            return None
        path = (_plain_url_path(url) if _COMPILED else "") or url_path(url)
        if path == "/robots.txt":
            return None  # RFC 9309 §2.2.2
        if "%" not in url:  # the path as written is the normalised one
            return rule_set.decide(path, path)
        written = url_path_as_written(url)
        if has_lone_percent(written):
            return self._rule_set(token, True).decide(written, written)
        return rule_set.decide(path, written)

    def verdict(self, url: str, token: str) -> Verdict:
        """Which rule of ``token``'s group decides ``url``: an Allow, a Disallow, or none."""
        return _verdict(self._deciding(url, token))

    def allowed(self, url: str, token: str) -> bool:
        """No Disallow decides ``url`` for ``token`` (:meth:`verdict` is not DISALLOWED_EXPLICIT)."""
        rule = self._deciding(url, token)
        return rule is None or rule[0]

    def crawl_delay(self, token: str) -> float | None:
        """Seconds between requests asked of ``token``'s group; the largest when groups merge."""
        groups = self._selected.get(token)
        if groups is None:
            groups = self._select(token)
        return _largest([_crawl_delay(v) for g in groups for v, _ in g.delays])

    def request_rate(self, token: str) -> float | None:
        """Seconds per request from ``token``'s group's Request-rate; the largest when groups merge."""
        groups = self._selected.get(token)
        if groups is None:
            groups = self._select(token)
        return _largest([_seconds_per_request(v) for g in groups for v, _ in g.rates])

    def usage_lines(self, token: str) -> list[tuple[str, str, int]]:
        """``(field, value, line)`` of the usage-preference records of ``token``'s
        selected groups, plus every ``License:`` line, for :mod:`.preferences.robots`."""
        groups = self._selected.get(token)
        if groups is None:
            groups = self._select(token)
        in_groups = [line for g in groups for line in g.usage]
        return in_groups + [line for line in self.licences if line not in in_groups]

    # ------------------------------------------------------------------ explain

    def explain(self, url: str, token: str) -> RobotsExplanation:
        """:meth:`verdict` with its reasons: the selected groups and their lines, the rule
        that decided (line and pattern as written), and the pace the groups ask for.

        The deciding rule is the one :meth:`verdict` follows (the longest pattern, an Allow
        on a tie, the first line written of equals); a test checks that both always agree.
        """
        groups = self._selected.get(token)
        if groups is None:
            groups = self._select(token)
        if self._group_tokens is None:
            self._group_tokens = [{_group_token(a) for a in g.agents} for g in self._groups]
        chosen = {id(g) for g in groups}  # identity: two groups may be written alike
        wanted = token.strip().lower()
        named = bool(wanted) and any(
            wanted in tokens for g, tokens in zip(self._groups, self._group_tokens) if id(g) in chosen
        )
        overridden = [
            g for g, tokens in zip(self._groups, self._group_tokens) if named and "*" in tokens and id(g) not in chosen
        ]
        deciding = self._deciding(url, token)
        rule = None if deciding is None else RuleLine(deciding[2], deciding[0], deciding[1])
        delay, delay_line = _slowest([d for g in groups for d in g.delays], _crawl_delay)
        rate, rate_line = _slowest([r for g in groups for r in g.rates], _seconds_per_request)
        return RobotsExplanation(
            verdict=_verdict(deciding),
            token=token,
            named=named,
            groups=tuple(_span(g) for g in groups),
            rule=rule,
            overridden=tuple(_span(g) for g in overridden),
            crawl_delay=delay,
            crawl_delay_line=delay_line,
            request_rate=rate,
            request_rate_line=rate_line,
            parse_error=self.parse_error,
        )


def _no_record(text: str, content: int, first: int) -> str | None:
    """``parse_error`` for a (LF-ended) text without one record: how many lines have content
    (before a ``#``, not only whitespace), and whether it looks like HTML or a binary file; None
    when empty. ``content`` and ``first`` (the first such line's first character) are the
    parse's count, or -1 when it could not tell: then one regex scan counts."""
    if content < 0:
        firsts = _CONTENT("\n" + text)  # a LF before every line, the first too
        content, first = len(firsts), ord(firsts[0]) if firsts else -1
    if not content:
        return None
    html = " (HTML?)" if first == 60 else " (binary?)" if "\x00" in text else ""  # 60: "<"
    count = f"{content} line" + ("s" if content > 1 else "")
    return f"no robots.txt record in {count} of content{html}"


def _slowest(values: list[tuple[str, int]], parse: Callable[[str], float | None]) -> tuple[float | None, int | None]:
    """The largest parsed value (what :meth:`RobotsTxt.crawl_delay` and
    :meth:`RobotsTxt.request_rate` return) and the line that wrote it."""
    best: tuple[float | None, int | None] = (None, None)
    for value, line in values:
        seconds = parse(value)
        if seconds is not None and (best[0] is None or seconds > best[0]):
            best = (seconds, line)
    return best


def _span(group: _Group) -> GroupSpan:
    return GroupSpan(group.first_line, group.last_line, tuple(group.agents))


#: Records kept for the usage-preference model (lower-cased names).
_USAGE_RECORDS = frozenset({"content-usage", "content-signal", "license"})
#: A hostile file can't make every URL pay for thousands of them.
_MAX_USAGE_RECORDS = 100


def _usage_record(
    name: str, value: str, number: int, group: _Group | None, licences: list[tuple[str, str, int]]
) -> None:
    """Keep a usage-preference record in its group (``License`` file-wide too)."""
    field_name = name.strip(_WS)
    lowered = field_name.lower()
    if lowered not in _USAGE_RECORDS:
        return
    record = (field_name, value.strip(_WS), number)
    if lowered == "license" and len(licences) < _MAX_USAGE_RECORDS:
        licences.append(record)
    if group is not None and len(group.usage) < _MAX_USAGE_RECORDS:
        group.usage.append(record)
