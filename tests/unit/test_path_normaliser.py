"""One RFC 9309 path normaliser: a robots.txt ``Disallow`` and a usage-preference
rule (a robots.txt ``Content-Usage`` line, a tdmrep.json ``location``) with the same path match the
same URLs.

The characters below are the ones the two normalisers once disagreed on: ASCII a URI cannot hold
raw (RFC 3986 §2.1, §2.4). RFC 9309 §2.2.2 compares paths "percent-encoded as defined by
[RFC3986]", so ``"`` and ``%22`` are one octet sequence on both sides (docs/robots-parsing.md).
"""

from __future__ import annotations

import json

import pytest

from scrapy_walsh.policy.path_match import normalise
from scrapy_walsh.policy.preferences import Preference, RobotsPreferences, TdmRep
from scrapy_walsh.policy.robots import RobotsTxt, Verdict

TOKEN = "Walsh-Research"
#: ASCII characters that must be percent-encoded in a URI (RFC 3986 §2.1 and §2.4).
UNSAFE = '"<>\\^`{|}'


def _both_spellings(char: str) -> tuple[str, str]:
    return char, f"%{ord(char):02X}"


def robots_blocks(rule_path: str, path: str) -> bool:
    body = f"User-agent: *\nDisallow: {rule_path}\n".encode()
    return RobotsTxt.parse(body).verdict(f"https://example.com{path}", TOKEN) is Verdict.DISALLOWED_EXPLICIT


def content_usage_reserves(rule_path: str, path: str) -> bool:
    group = RobotsPreferences.from_lines([("Content-Usage", f"{rule_path} train-ai=n")])
    return any(s.preferences.get("train-ai") is Preference.RESERVED for s in group.statements(path))


def tdmrep_reserves(rule_path: str, path: str) -> bool:
    document = json.dumps([{"location": rule_path, "tdm-reservation": 1}]).encode()
    return TdmRep.parse(document).statement(path) is not None


@pytest.mark.parametrize("char", UNSAFE)
@pytest.mark.parametrize(("rule_form", "url_form"), [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_a_disallow_and_a_usage_rule_with_one_path_match_the_same_urls(char, rule_form, url_form):
    """Raw or ``%XX``, in the rule or in the URL: both spellings are the same octets, for
    robots.txt rules and for preference rules alike."""
    rule_path = f"/a{_both_spellings(char)[rule_form]}b"
    path = f"/a{_both_spellings(char)[url_form]}b/page"
    assert robots_blocks(rule_path, path)
    assert content_usage_reserves(rule_path, path)
    assert tdmrep_reserves(rule_path, path)


@pytest.mark.parametrize("char", UNSAFE)
def test_each_unsafe_character_is_compared_percent_encoded(char):
    assert normalise(f"/a{char}b") == normalise(f"/a%{ord(char):02x}b") == f"/a%{ord(char):02X}b"


@pytest.mark.parametrize(
    ("rule_path", "path", "matches"),
    [
        ("/a$b", "/a$b", True),  # a "$" inside a pattern is a literal "%24" (RFC 9309 §2.2.3)
        ("/a%24b", "/a$b", True),
        ("/a$", "/a", True),  # a final "$" ends the pattern
        ("/a$", "/a$", False),
        ("/a%b", "/a%25b", False),  # a "%" that starts no escape: compared as written, the "%" of an escape
        ("/a%b", "/a%b", True),
        ("/a%", "/a%41", True),
        ("/a%zz", "/a%25zz", False),
        ("/a%25", "/a%", False),  # a URL holding one is compared as written too
        ("/%7Ea", "/~a%", False),
        ("/*.pdf$", "/x/y.pdf", True),
    ],
)
def test_the_special_characters_are_read_the_same_way_by_both(rule_path, path, matches):
    assert robots_blocks(rule_path, path) is matches
    assert content_usage_reserves(rule_path, path) is matches
    assert tdmrep_reserves(rule_path, path) is matches
