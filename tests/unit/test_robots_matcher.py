"""RFC 9309 path matching (scrapy_walsh.policy.path_match): each behaviour with the clause that decides it.

Pure: a robots.txt body and URLs in, verdicts out.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from functools import cache

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from protego import Protego

from scrapy_walsh.policy import robots
from scrapy_walsh.policy.path_match import KEPT, normalise, spell_as_written, url_path, url_path_as_written
from scrapy_walsh.policy.robots import RobotsTxt, RuleLine, Verdict
from tests.fuzz import FUZZ

TOKEN = "Walsh-Research"
ALLOWED, IMPLICIT, DISALLOWED = Verdict.ALLOWED_EXPLICIT, Verdict.ALLOWED_IMPLICIT, Verdict.DISALLOWED_EXPLICIT


def verdict(rules: str, path: str) -> Verdict:
    body = f"User-agent: *\n{rules}\n".encode()
    return RobotsTxt.parse(body).verdict(f"https://example.com{path}", TOKEN)


def deciding(rules: list[tuple[bool, str]], path: str) -> RuleLine | None:
    """The rule that decides ``path``, of ``rules`` written one a line after ``User-agent: *``
    (the first on line 2), as ``explain`` reports it."""
    body = "User-agent: *\n" + "".join(f"{'Allow' if allow else 'Disallow'}: {pattern}\n" for allow, pattern in rules)
    robots = RobotsTxt.parse(body)
    why = robots.explain(f"https://example.com{path}", TOKEN)
    assert why.verdict is robots.verdict(f"https://example.com{path}", TOKEN)
    return why.rule


# --- "$" ends the pattern; it is never also a literal ------------------------------------------


def test_dollar_ends_the_pattern_and_is_not_also_a_literal():
    """RFC 9309 §2.2.3: "$ | Designates the end of the match pattern." A literal "$" is
    written "%24" ("If crawlers match special characters verbatim in the URI, crawlers
    SHOULD use "%" encoding"), so ``/cart$`` matches only the path ``/cart``."""
    assert verdict("Disallow: /cart$", "/cart") is DISALLOWED
    assert verdict("Disallow: /cart$", "/cart$") is IMPLICIT  # Protego's extra literal rule blocked it
    assert verdict("Disallow: /cart$", "/cart%24") is IMPLICIT
    assert verdict("Disallow: /cart$", "/cart/") is IMPLICIT
    assert verdict("Disallow: /*.pdf$", "/a.pdf$") is IMPLICIT


def test_percent_encoded_special_characters_match_them_verbatim():
    """RFC 9309 §2.2.3, Figure 6: the pattern ``/path/file-with-a-%2A.html`` matches
    ``https://www.example.com/path/file-with-a-*.html`` and ``/path/foo-%24`` matches
    ``https://www.example.com/path/foo-$``."""
    assert verdict("Disallow: /path/file-with-a-%2A.html", "/path/file-with-a-*.html") is DISALLOWED
    assert verdict("Disallow: /path/file-with-a-%2A.html", "/path/file-with-a-x.html") is IMPLICIT
    assert verdict("Disallow: /path/foo-%24", "/path/foo-$") is DISALLOWED
    assert verdict("Disallow: /path/foo-%24", "/path/foo-%24") is DISALLOWED
    assert verdict("Disallow: /path/foo-%24", "/path/foo-") is IMPLICIT
    assert verdict("Disallow: /a$b", "/a$b") is DISALLOWED  # a "$" that does not end the pattern is "%24"


# --- A rule written as a full URL is never rewritten into a path ------------------------------


@pytest.mark.parametrize("rule", ["http://example.com/private", "https://example.com/private", "private/"])
def test_a_rule_that_is_not_a_path_pattern_matches_nothing(rule):
    """RFC 9309 §2.2.2: "The matching MUST start with the first octet of the path", and the
    grammar (§2.2) has ``path-pattern = "/" *UTF8-char-noctl``. A value that is not a path
    matches no path; it never becomes another one (Protego read ``/http://example.com/private``)."""
    for path in ("/private", "/private/x", f"/{rule}", "/http:/example.com/private", "/"):
        assert verdict(f"Disallow: {rule}", path) is IMPLICIT, path
    assert RobotsTxt.parse(f"User-agent: *\nDisallow: {rule}\n").explain("https://e.com/private", TOKEN).rule is None


def test_rfc_example_pattern_starting_with_a_star_still_matches():
    """RFC 9309 §5.1's own example writes ``Disallow: *.gif$``: "*" matches from the first octet."""
    assert verdict("Disallow: *.gif$", "/a/b.gif") is DISALLOWED
    assert verdict("Disallow: *.gif$", "/a/b.gif?x") is IMPLICIT


# --- Only space and tab are whitespace around a value -----------------------------------------


@pytest.mark.parametrize("space", ["\u00a0", "\u2002", "\u3000", "\u2009"])
def test_non_ascii_whitespace_is_part_of_the_path(space):
    """RFC 9309 §2.2: ``WS = %x20 / %x09``, and ``UTF8-char-noctl`` (a path pattern's
    characters) includes every non-ASCII character. So a trailing U+00A0 is part of the
    path, matched percent-encoded ("Octets in the URI and robots.txt paths outside the range
    of the ASCII coded character set [...] MUST be percent-encoded", §2.2.2)."""
    encoded = "".join(f"%{b:02X}" for b in space.encode())
    for rules in (f"Disallow: /members{space}", f"Disallow: /members{space}  \t", f"Disallow /members{space}"):
        assert verdict(rules, "/members") is IMPLICIT, rules
        assert verdict(rules, "/members/a") is IMPLICIT, rules
        assert verdict(rules, f"/members{encoded}") is DISALLOWED, rules
        assert verdict(rules, f"/members{space}x") is DISALLOWED, rules
    assert verdict(f"Disallow:{space}/members", "/members") is IMPLICIT  # not a path pattern: starts with U+...
    assert verdict(f"Disallow{space}/members", "/members") is IMPLICIT  # not two words split by WS


def test_space_and_tab_are_whitespace():
    """RFC 9309 §2.2: ``rule = *WS ("allow" / "disallow") *WS ":" *WS (path-pattern / empty-pattern) EOL``."""
    for rules in ("Disallow: /m", " \tDisallow \t: \t/m \t", "Disallow\t/m", "Disallow /m\t ", "Disallow: /m\x0b\x0c"):
        assert verdict(rules, "/m") is DISALLOWED, repr(rules)
        assert verdict(rules, "/x") is IMPLICIT, repr(rules)


# --- Reserved characters: raw and %XX are different octets ------------------------------------

RESERVED = ":/?[]@!&'()+,;="


@pytest.mark.parametrize("char", list(RESERVED))
def test_a_reserved_character_and_its_percent_encoding_do_not_match_each_other(char):
    """RFC 9309 §2.2.2: "If a percent-encoded ASCII octet is encountered in the URI, it MUST
    be unencoded prior to comparison, unless it is a reserved character in the URI as
    defined by [RFC3986]". RFC 3986 §2.2: "URIs that differ in the replacement of a reserved
    character with its corresponding percent-encoded octet are not equivalent"."""
    encoded = f"%{ord(char):02X}"
    assert verdict(f"Disallow: /a{char}b", f"/a{char}b") is DISALLOWED
    assert verdict(f"Disallow: /a{encoded}b", f"/a{encoded}b") is DISALLOWED
    assert verdict(f"Disallow: /a{encoded.lower()}b", f"/a{encoded}b") is DISALLOWED  # RFC 3986 §6.2.2.1
    assert verdict(f"Disallow: /a{char}b", f"/a{encoded}b") is IMPLICIT
    assert verdict(f"Disallow: /a{encoded}b", f"/a{char}b") is IMPLICIT


def test_unreserved_characters_match_their_percent_encoding_both_ways():
    """RFC 9309 §2.2.2, Figure 4: the path ``/foo/bar/%62%61%7A`` is matched as ``/foo/bar/baz``
    (RFC 3986 §6.2.2.2: unreserved characters are decoded)."""
    assert verdict("Disallow: /foo/bar/%62%61%7A", "/foo/bar/baz") is DISALLOWED
    assert verdict("Disallow: /foo/bar/baz", "/foo/bar/%62%61%7a") is DISALLOWED
    assert verdict("Disallow: /%7Euser/", "/~user/x") is DISALLOWED
    assert verdict("Disallow: /~user/", "/%7euser/x") is DISALLOWED


def test_figure_4_examples():
    """RFC 9309 §2.2.2, Figure 4: raw "ツ" and ``%E3%83%84`` are the same path; a query is
    compared as written."""
    assert verdict("Disallow: /foo/bar?baz=quz", "/foo/bar?baz=quz") is DISALLOWED
    assert verdict("Disallow: /foo/bar?baz=https://foo.bar", "/foo/bar?baz=https://foo.bar") is DISALLOWED
    assert verdict("Disallow: /foo/bar?baz=https%3A%2F%2Ffoo.bar", "/foo/bar?baz=https%3A%2F%2Ffoo.bar") is DISALLOWED
    assert verdict("Disallow: /foo/bar/\u30c4", "/foo/bar/%E3%83%84") is DISALLOWED
    assert verdict("Disallow: /foo/bar/%E3%83%84", "/foo/bar/\u30c4") is DISALLOWED
    assert verdict("Disallow: /foo/bar/%e3%83%84", "/foo/bar/%E3%83%84") is DISALLOWED


def test_characters_a_uri_cannot_hold_are_percent_encoded():
    """RFC 3986 §2.1: a character outside the URI's set (space, ``"``, ``<``, ``|`` ...) is
    only ever carried as ``%XX``."""
    assert verdict("Disallow: /a b", "/a%20b") is DISALLOWED
    assert verdict("Disallow: /a%20b", "/a b") is DISALLOWED
    assert verdict('Disallow: /a"<>|{}^`\\', "/a%22%3C%3E%7C%7B%7D%5E%60%5C") is DISALLOWED


# --- A "%" that starts no escape: both sides compared as written -------------------------------

#: (rules, path, our verdict, Google's parser allows, Protego allows). Google's column was read
#: from upstream google/robotstxt (commit 22b355f, bench/robots_oracle.py's build); Protego's is
#: asked again below.
LONE_PERCENT = [
    ("Disallow: /%", "/%20abc", DISALLOWED, False, False),
    ("Disallow: /%", "/%41b", DISALLOWED, False, True),
    ("Disallow: /%", "/%zz", DISALLOWED, False, False),
    ("Disallow: /%", "/%", DISALLOWED, False, False),
    ("Disallow: /%", "/a", IMPLICIT, True, True),
    ("Disallow: /g/*/%*", "/g/x/%41b", DISALLOWED, False, True),
    ("Disallow: /g/*/%*", "/g/x/%20", DISALLOWED, False, False),
    ("Disallow: /g/*/%*", "/g/x/%", DISALLOWED, False, False),
    ("Disallow: /g/*/%*", "/g/x/Ab", IMPLICIT, True, True),
    ("Disallow: /*cached40%$", "/x/cached40%", DISALLOWED, False, False),
    ("Disallow: /*cached40%$", "/x/cached40%25", IMPLICIT, True, True),
    ("Disallow: /*cached40%$", "/x/cached40", IMPLICIT, True, True),
    ("Disallow: /100%", "/100%", DISALLOWED, False, False),
    ("Disallow: /100%", "/100%25", DISALLOWED, False, False),
    ("Disallow: /100%", "/100%2541", DISALLOWED, False, False),
    ("Disallow: /100%", "/100", IMPLICIT, True, True),
    ("Disallow: /100%zz", "/100%zz", DISALLOWED, False, False),
    ("Disallow: /100%zz", "/100%25zz", IMPLICIT, True, True),
    ("Disallow: /a%2", "/a%2", DISALLOWED, False, False),
    ("Disallow: /a%2", "/a%2F", DISALLOWED, False, False),
    ("Disallow: /a%2", "/a%2f", DISALLOWED, False, False),
    ("Disallow: /\nAllow: /a%25", "/a%25", ALLOWED, True, True),
    ("Disallow: /\nAllow: /a%25", "/a%", DISALLOWED, False, False),
    ("Disallow: /\nAllow: /a%25", "/a%2", DISALLOWED, False, False),
    ("Disallow: /\nAllow: /%", "/%41", ALLOWED, True, False),
    ("Disallow: /\nAllow: /%", "/A", DISALLOWED, False, False),
    ("Disallow: /a%25", "/a%", IMPLICIT, True, True),
    ("Disallow: /~user/", "/%7Euser/%", IMPLICIT, True, False),
]


@pytest.mark.parametrize(("rules", "path", "expected", "google", "protego"), LONE_PERCENT)
def test_a_percent_that_starts_no_escape_is_compared_as_written_on_both_sides(rules, path, expected, google, protego):
    """A rule or a URL holding a ``%`` not followed by two hex digits is not a URI (RFC 3986 §2.1,
    §2.4): both sides are then compared as written, escapes kept, as Google's parser compares
    every rule. ``Disallow: /%`` (a real site's file) blocks every path starting with an escape,
    and no URL is allowed that Google's parser and Protego both disallow."""
    assert verdict(rules, path) is expected
    body = f"User-agent: *\n{rules}\n"
    assert Protego.parse(body).can_fetch(f"https://example.com{path}", "t") is protego
    if not google and not protego:
        assert expected is DISALLOWED


@pytest.mark.parametrize(
    ("text", "expected"),
    [("/%", "/%"), ("/%4", "/%4"), ("/%7e%41", "/%7E%41"), ("/a b%\u00e9", "/a%20b%%C3%A9"), ("/*$", "/%2A%24")],
)
def test_spell_as_written(text, expected):
    assert spell_as_written(text) == expected
    assert spell_as_written(expected) == expected


def test_url_path_as_written():
    assert url_path_as_written("https://e.com/%7euser/%?q=%41#x") == "/%7Euser/%?q=%41"
    assert url_path_as_written("https://e.com/plain/path") == url_path("https://e.com/plain/path")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/a/b?c=d&e", "/a/b?c=d&e"),
        ("/%7e%2f%3a%41", "/~%2F%3AA"),
        ("/caf\u00e9 x", "/caf%C3%A9%20x"),
        ("/*$", "/%2A%24"),
        ("/%", "/%25"),
        ("/%4", "/%254"),
        ("/\u00e9%41", "/%C3%A9A"),
    ],
)
def test_normalise(text, expected):
    assert normalise(text) == expected
    assert normalise(expected) == expected  # once is enough


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.com", "/"),
        ("https://example.com/", "/"),
        ("https://example.com/a?b=c#frag", "/a?b=c"),
        ("https://example.com/a?", "/a?"),
        ("https://example.com?x=1", "/?x=1"),
        ("http://foo.bar//folder/any.php", "//folder/any.php"),
        ("https://user@example.com:8080/a%7Eb/caf\u00e9", "/a~b/caf%C3%A9"),
        ("", "/"),
    ],
)
def test_url_path(url, expected):
    assert url_path(url) == expected


# --- The matcher itself -----------------------------------------------------------------------


def reference_match(pattern: str, path: str) -> bool:
    """RFC 9309 §2.2.2-2.2.3 read literally, on normalised strings: from the first octet of
    the path, "*" any run of octets, a final "$" the end of the path."""
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern

    @cache
    def match(i: int, j: int) -> bool:
        if i == len(body):
            return j == len(path) if anchored else True
        if body[i] == "*":
            return match(i + 1, j) or (j < len(path) and match(i, j + 1))
        return j < len(path) and path[j] == body[i] and match(i + 1, j + 1)

    return match(0, 0)


def test_matcher_agrees_with_the_rfc_read_literally():
    """Random patterns over a small alphabet (so that parts repeat and overlap), every one
    checked against paths built from the same alphabet."""
    rnd = random.Random(19)
    for _ in range(1000):
        pattern = "/" + "".join(rnd.choice("ab/**") for _ in range(rnd.randint(0, 7))) + rnd.choice(["", "", "$"])
        for _ in range(8):
            path = "/" + "".join(rnd.choice("aab/") for _ in range(rnd.randint(0, 10)))
            expected = reference_match(pattern, path)
            assert (deciding([(False, pattern)], path) == RuleLine(2, False, pattern)) is expected, (pattern, path)


def test_longest_pattern_decides_and_allow_wins_a_tie():
    """RFC 9309 §2.2.2: "The most specific match found MUST be used. The most specific match
    is the match that has the most octets. [...] If an "allow" rule and a "disallow" rule are
    equivalent, then the "allow" rule SHOULD be used.\""""
    rules = [(False, "/a"), (True, "/a/b"), (False, "/a/b*"), (True, "/a/b*")]
    assert deciding(rules, "/a/c") == RuleLine(2, False, "/a")
    assert deciding(rules, "/a/bc") == RuleLine(5, True, "/a/b*")  # "/a/b*" has 5 octets
    assert deciding(rules, "/z") is None
    # the same, written in the other order: the order written does not decide
    assert deciding(rules[::-1], "/a/bc") == RuleLine(2, True, "/a/b*")
    assert deciding(rules[::-1], "/a/c") == RuleLine(5, False, "/a")


def test_a_rule_written_twice_keeps_its_first_source():
    rules = [(False, "/%7Ex"), (False, "/~x"), (True, "/~x")]
    assert deciding(rules, "/~x") == RuleLine(4, True, "/~x")  # Allow first on a tie
    assert deciding(rules[:2], "/~xy") == RuleLine(2, False, "/%7Ex")
    assert deciding(rules[:2][::-1], "/~xy") == RuleLine(2, False, "/~x")


def test_many_stars_on_a_long_path_take_linear_steps():
    """Each part after a "*" is looked for once, from where the previous one ended: a pattern
    that a backtracking matcher takes exponential time on is answered at once (the suite's
    timeout fails this test otherwise)."""
    path = "/" + "a" * 20_000
    for pattern in ("/*a*a*a*a*a*a*a*a*a*a*a*a*b", "/*a*a*a*a*a*a*a*a*a*a*a*a*a$b", "/*a*a*a*a*a*a*a*a*ab$"):
        assert verdict(f"Disallow: {pattern}", path) is IMPLICIT


def test_the_policy_core_no_longer_needs_protego():
    """Matching is ours: importing the robots module loads no Protego (it stays the bench's baseline)."""
    probe = "import sys, scrapy_walsh.policy.robots; print(sorted(m for m in sys.modules if 'protego' in m))"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout == "[]\n"


_URL_PIECE = st.text(alphabet=KEPT + '%*$# \\|^"<>{}`\x00\x7féż\u2028', max_size=12)


@FUZZ
@given(
    st.sampled_from(["https", "http", "h+t.t-p9", "", "9http", "ht_tp", "htt p", "HTTPS", "é"]),
    st.sampled_from(["://", ":/", ":", "", "://", ":///"]),
    _URL_PIECE,
    st.lists(_URL_PIECE, max_size=3),
)
@example("https", "://", "example.com", ["/", "a/b?c=d"])
@example("https", "://", "a", ["//x"])
@example("https", "://", "", ["/x"])
@example("https", "://", "h", ["?x", "/y"])
@example("h+t.t-p9", "://", "x", ["/y"])
def test_a_url_read_in_place_has_the_path_path_match_gives_it(scheme, separator, authority, rest):
    """The compiled parse reads a URL that needs no spelling in place (``_plain_url_path``) and
    hands any other to path_match: whenever it answers, it answers as path_match's url_path."""
    url = scheme + separator + authority + "/".join(rest)
    path = robots._plain_url_path(url)
    if path:
        assert path == url_path(url)
    tail = "/".join(rest)
    if (
        re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme)
        and separator == "://"
        and not set(authority) & set("/?#")
        and re.fullmatch(f"/(?!/)[{re.escape(KEPT)}]*", tail)
    ):
        assert path == tail, url  # the usual URL is read in place
