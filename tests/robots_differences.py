"""Protego as the reference: the cases, the comparison, and the classifier of differences.

Shared by ``tests/unit/test_robots_protego_diff.py`` and ``bench/robots_oracle.py``. Every
category below is a row of docs/robots-matching.md ("Differences from Protego", each row
headed by its id in backquotes); the unit test checks that they are all there.

Cases: for each file, the product tokens it names (up to :data:`MAX_TOKENS`) plus one it does
not name (so ``*`` decides), and for each, the URLs its rules' patterns suggest
(:func:`paths_for`). Protego is used as Scrapy uses it (``decode_robotstxt``: UTF-8, BOM
skipped, bad octets dropped; ``can_fetch(url, token)``).

The classifier finds which documented rule explains one disagreement:

1. Which rules each parser applies. Protego is given our selected group's rules alone, under
   ``User-agent: *``. If it then decides as we do, the difference is in reading the file
   (group selection, group boundaries, record names, octets), else in matching.
2. Reading: the groups each selects (by product token, or by the name anywhere in the token),
   then the records and octets that Protego reads differently.
3. Matching: each rule of the group is tried alone in both parsers. The rules on which they
   disagree, and the URL, name the category (a literal ``$``, a reserved ``%XX``...). If no
   rule alone differs, the order of the rules does: specificity is counted in other octets.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from protego import Protego

from scrapy_walsh.policy.path_match import url_path
from scrapy_walsh.policy.robots import _KEYS, MAX_BYTES, RobotsTxt, _group_token

CORPUS = Path(__file__).resolve().parent / "data" / "robots_corpus" / "files"
#: A token no file names: ``*`` decides for it.
UNNAMED = "walsh-research-differential"
MAX_TOKENS = 4
MAX_PATHS = 120

#: id -> what the docs row says, in short.
CATEGORIES = {
    "group-product-token": "groups are selected by product token equality; Protego finds a name at a token boundary",
    "group-boundary": "only Allow/Disallow end a group's User-agent lines (RFC 9309 §2.2.4)",
    "record-without-colon": "Google's `disallow /x` without a colon is read (two words only)",
    "record-name": "record names are the RFC's and Google's listed misspellings only",
    "octets-not-utf8": "octets that are not UTF-8 are read as %XX, not dropped",
    "value-whitespace": "only SP/HTAB (and \\v \\f) are stripped around a value",
    "not-a-path-pattern": "a value starting with neither / nor * matches nothing",
    "literal-dollar": "only a final $ ends a pattern; $ and * in a URL compare as %24 and %2A",
    "reserved-escape": "a reserved character and its %XX stay apart",
    "percent-normalisation": "%XX of unreserved characters decoded, hex uppercased, other octets %-encoded",
    "lone-percent": "a % that starts no escape: that rule, or that URL, is compared as written (escapes kept)",
    "specificity": "the most specific rule counts the octets compared (normalised)",
}

_RESERVED = set(":/?#[]@!$&'()*+,;=")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_URI_CHARS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*")
_RECORD = re.compile(r"^[ \t]*([A-Za-z][A-Za-z -]*?)[ \t]*:", re.MULTILINE)
_NO_COLON = re.compile(r"^[ \t]*(allow|disallow|user-?agent)[ \t]+[^ \t:#]+[ \t]*(?:#.*)?$", re.I | re.MULTILINE)


def corpus(directory: Path = CORPUS) -> list[tuple[str, bytes]]:
    return [(p.name, p.read_bytes()) for p in sorted(directory.iterdir()) if p.is_file()]


def protego_text(body: bytes) -> str:
    """The body as Scrapy hands it to Protego (``scrapy.robotstxt.decode_robotstxt``)."""
    return body.decode("utf-8-sig", errors="ignore")


def tokens_for(robots: RobotsTxt) -> list[str]:
    named = []
    for group in robots._groups:
        for agent in group.agents:
            token = _group_token(agent)
            if token and token != "*" and token not in named:
                named.append(token)
    return named[:MAX_TOKENS] + [UNNAMED]


def paths_for(robots: RobotsTxt) -> list[str]:
    """URLs the file's patterns suggest: each pattern made concrete, one octet shorter, and
    followed by more, plus a few every site has."""
    paths = ["/", "/index.html", "/robots.txt", "/search?q=a", "/a%3Fb", "/%7Euser/", "/caf%C3%A9"]
    for group in robots._groups:
        for _allow, pattern, _line in group.rules:
            concrete = pattern.rstrip("$").replace("*", "x")
            if not concrete.startswith("/"):
                concrete = "/" + concrete
            paths += [concrete, concrete[:-1] or "/", concrete + "x/y?z=1"]
            if _LONE_PERCENT.search(concrete):  # the escapes its writer may have meant
                paths += [_LONE_PERCENT.sub("%41", concrete), _LONE_PERCENT.sub("%20", concrete)]
    seen: dict[str, None] = dict.fromkeys(paths)
    return list(seen)[:MAX_PATHS]


class Comparison:
    """One file under both parsers."""

    def __init__(self, name: str, body: bytes):
        self.name = name
        self.body = body[:MAX_BYTES]
        self.ours = RobotsTxt.parse(self.body)
        self.text = protego_text(self.body)
        self.protego = Protego.parse(self.text)

    def cases(self) -> Iterator[tuple[str, str, bool, bool]]:
        """(token, url, ours allows, Protego allows) for every case of this file."""
        paths = paths_for(self.ours)
        for token in tokens_for(self.ours):
            for path in paths:
                url = "https://example.com" + path
                yield token, url, self.ours.allowed(url, token), self.protego.can_fetch(url, token)

    def classify(self, token: str, url: str) -> str | None:
        """The category that explains a disagreement, or None (unexplained)."""
        rules = [(allow, pattern) for g in self.ours._select(token) for allow, pattern, _ in g.rules]
        ours = self.ours.allowed(url, token)
        if _protego_alone(tuple(rules), url) == ours:
            return self._reading(token)
        return _matching(rules, url)

    def _reading(self, token: str) -> str | None:
        chosen = self.ours._select(token)
        ours_named = any(token in {_group_token(a) for a in g.agents} for g in chosen)
        matched = self.protego._get_matching_rule_set(token)
        protego_named = matched is not None and matched.user_agent != "*"
        if ours_named != protego_named or (protego_named and matched.user_agent != token):
            return "group-product-token"
        if _bad_octets(self.body):
            return "octets-not-utf8"
        if _NO_COLON.search(self.text):
            return "record-without-colon"
        names = {m.group(1).strip().lower() for m in _RECORD.finditer(self.text)}
        if any(n not in _KEYS and n.startswith(("allow", "disallow", "user-agent", "useragent")) for n in names):
            return "record-name"
        if _group_boundary(self.text):
            return "group-boundary"
        if re.search(r"^[ \t]*(allow|disallow)[ \t]*:.*[\u00a0\u2000-\u200b\u3000\ufeff]", self.text, re.I | re.M):
            return "value-whitespace"
        return None


@lru_cache(maxsize=4096)
def _protego_alone(rules: tuple[tuple[bool, str], ...], url: str) -> bool:
    body = "User-agent: *\n" + "".join(f"{'Allow' if a else 'Disallow'}: {p}\n" for a, p in rules)
    return Protego.parse(body).can_fetch(url, "x")


def _matching(rules: list[tuple[bool, str]], url: str) -> str | None:
    path = url.split("example.com", 1)[1]
    differing = []
    for _allow, pattern in rules:
        ours = RobotsTxt.parse(f"User-agent: *\nDisallow: {pattern}\n").allowed(url, "x")
        if ours != _protego_alone(((False, pattern),), url):
            differing.append(pattern)
    if not differing:
        return "specificity"
    for pattern in differing:
        category = _pattern_category(pattern, path)
        if category is not None:
            return category
    return None


def _pattern_category(pattern: str, path: str) -> str | None:
    if pattern[:1] not in ("/", "*"):
        return "not-a-path-pattern"
    if "$" in pattern[:-1] or "$" in path or "*" in path:
        return "literal-dollar"
    if pattern != pattern.strip() or pattern != pattern.strip(" \t\v\f"):
        return "value-whitespace"
    if _LONE_PERCENT.search(pattern) or _LONE_PERCENT.search(path):
        return "lone-percent"
    for side in (pattern, path):
        if any(chr(int(h, 16)) in _RESERVED for h in _ESCAPE.findall(side)):
            return "reserved-escape"
    if any(c in _RESERVED for c in path) and _ESCAPE.search(pattern) or _ESCAPE.search(path):
        return "reserved-escape" if any(c in "?:+[]&;='" for c in pattern + path) else "percent-normalisation"
    if not pattern.isascii() or not _URI_CHARS.fullmatch(pattern.replace("*", "")) or url_path(path) != path:
        return "percent-normalisation"
    return None


def _bad_octets(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _group_boundary(text: str) -> bool:
    """A User-agent line right after a record other than Allow/Disallow (Protego starts a new
    group there; RFC 9309 §2.2.4 and Google keep adding to the same group)."""
    previous = None
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or ":" not in line:
            continue
        name = _KEYS.get(line.split(":", 1)[0].strip().lower())
        raw = line.split(":", 1)[0].strip().lower()
        if raw in ("sitemap", "host"):
            continue
        if name == 0 and previous is not None and previous not in (0, 1, 2):
            return True
        previous = name if name is not None else -1
    return False
