"""No malformed line erases an opt-out (RFC 9309 §2.2: parse each line, use the parseable rules).

Each case is compared with Google's parser (robots.cc reads a line as a C string, so a NUL
ends it; a BOM or a partial one at the start is skipped; other octets are kept as they are).
"""

from __future__ import annotations

import pytest

from scrapy_walsh.policy import robots
from scrapy_walsh.policy.robots import RobotsTxt
from scrapy_walsh.policy.vocabulary import Verdict

TOKEN = "Walsh-Research"
NAMED_AFTER_JUNK = b"User-agent: *\nAllow: /ok%s\n\nUser-agent: Walsh-Research\nDisallow: /\n"


@pytest.mark.parametrize(
    "junk",
    [
        b"\x00",  # one NUL in an unrelated * line must not erase the named group
        b"\x00\x00\x00binary\xff\xfe",
        b"\xff\xfe\xfd",  # invalid UTF-8
        b"\xef\xbb\xbf",  # a BOM in the middle of the file
        b"\x1a\x89PNG",
    ],
)
def test_junk_in_another_group_leaves_the_named_group_in_force(junk):
    robots = RobotsTxt.parse(NAMED_AFTER_JUNK % junk)
    assert robots.parse_error is None
    assert robots.verdict("http://h/secret", TOKEN) is Verdict.DISALLOWED_EXPLICIT
    assert robots.verdict("http://h/secret", "other") is Verdict.ALLOWED_IMPLICIT


def test_a_nul_ends_its_line_as_in_googles_parser():
    robots = RobotsTxt.parse(b"User-agent: Walsh-Research\nDisallow: /private\x00junk\n")
    assert robots.verdict("http://h/private/x", TOKEN) is Verdict.DISALLOWED_EXPLICIT
    assert robots.verdict("http://h/privatejunk", TOKEN) is Verdict.DISALLOWED_EXPLICIT  # prefix /private


def test_a_line_of_junk_between_records_is_skipped():
    body = b"User-agent: Walsh-Research\n\x00\x01\x02\xff not a record\nDisallow: /secret\n"
    robots = RobotsTxt.parse(body)
    assert robots.parse_error is None
    assert robots.verdict("http://h/secret", TOKEN) is Verdict.DISALLOWED_EXPLICIT


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"\xef\xbb\xbfUser-agent: Walsh-Research\nDisallow: /x\n", Verdict.DISALLOWED_EXPLICIT),
        (b"\xef\xbbUser-agent: Walsh-Research\nDisallow: /x\n", Verdict.DISALLOWED_EXPLICIT),
        # a broken BOM makes the first line unparseable: the Disallow then has no group (Google: allowed)
        (b"\xef\x11\xbfUser-agent: Walsh-Research\nDisallow: /x\n", Verdict.ALLOWED_IMPLICIT),
    ],
)
def test_bom_cases_as_googles_suite(body, expected):
    assert RobotsTxt.parse(body).verdict("http://h/x", TOKEN) is expected


@pytest.mark.parametrize(
    "body",
    [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", b"\x00" * 64, b"\xff\xd8\xff\xe0\x00\x10JFIF\x00"],
)
def test_only_a_file_with_no_record_at_all_is_a_parse_error(body):
    robots = RobotsTxt.parse(body)
    assert robots.parse_error is not None


def test_a_binary_file_with_one_record_line_applies_it():
    robots = RobotsTxt.parse(b"\x89PNG\x00\x00\nUser-agent: *\nDisallow: /x\n\x00\xff\n")
    assert robots.parse_error is None
    assert robots.verdict("http://h/x", TOKEN) is Verdict.DISALLOWED_EXPLICIT


@pytest.mark.parametrize("other_break", ["\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_only_cr_and_lf_end_a_line(eol, other_break):
    """RFC 9309 §2.2: EOL is CR, LF or CRLF. The other breaks ``str.splitlines`` knows are
    characters of the line, also in a CRLF or CR file (the parse splits those with
    ``splitlines`` when none of the other breaks is present: one pass, twice as fast on CRLF files)."""
    body = f"User-agent: *{eol}Disallow: /a{other_break}Disallow: /b{eol}{eol}Allow: /c{eol}"
    robots = RobotsTxt.parse(body.encode())
    rules = [rule for group in robots._groups for rule in group.rules]
    assert rules == [(False, f"/a{other_break}Disallow: /b", 2), (True, "/c", 4)]


def test_crlf_and_lone_cr_lines_are_numbered_alike():
    robots = RobotsTxt.parse(b"User-agent: *\r\n\rDisallow: /x\r\n\nAllow: /y\rDisallow: /z")
    assert [rule for group in robots._groups for rule in group.rules] == [
        (False, "/x", 3),
        (True, "/y", 5),
        (False, "/z", 6),
    ]


@pytest.mark.parametrize("lead", ["", " ", "\t", "\v", "\f", " \t\v\f "])
def test_whitespace_before_a_record_name_changes_nothing(lead):
    """The parse skips a line by its first character once its WS is stripped: a record after any
    WS is still read, in any case, with or without a colon, usage-preference records too."""
    body = f"{lead}USER-agent: *\n{lead}disallow /a\n{lead}aLLow:/a/b # c\n{lead}Content-Usage: train-ai=n\n"
    robots = RobotsTxt.parse(f"{body}{lead}sitemap: https://example.com/s.xml\n{lead}<p>Disallow: /\n")
    assert [(g.agents, g.rules) for g in robots._groups] == [(["*"], [(False, "/a", 2), (True, "/a/b", 3)])]
    assert robots.usage_lines(TOKEN) == [("Content-Usage", "train-ai=n", 4)]
    assert robots.sitemaps == ["https://example.com/s.xml"]


def test_the_lines_of_content_of_a_file_without_a_record_are_counted_across_every_eol():
    body = b"<html>\r\n  <p>a</p>\r# a comment\n\n \x00 \r\n\t\rplain text: no record # here\n"
    assert RobotsTxt.parse(body).parse_error == "no robots.txt record in 4 lines of content (HTML?)"
    assert RobotsTxt.parse(b"\xff\x00\rtext").parse_error == "no robots.txt record in 2 lines of content (binary?)"
    assert RobotsTxt.parse(b" \r\n# x\n\t").parse_error is None


def test_a_line_of_whitespace_beyond_ascii_is_no_line_of_content():
    """The parse counts the lines of content itself, past the WS a record may start with; a line
    that starts with other whitespace (``str.isspace``, as the regex's ``\\s``) is counted by the regex."""
    body = "\n  \t<html>\n\xa0\u3000\n\x1c\n\xa0<p>\n \x1f text\n# \n"
    assert RobotsTxt.parse(body).parse_error == "no robots.txt record in 3 lines of content (HTML?)"
    assert RobotsTxt.parse("\x85\n\u2028\n").parse_error is None


def test_every_record_name_starts_with_a_character_the_parse_looks_at():
    """The parse skips a line by its first character: a record name added later must not be skipped,
    and no other character may be taken for a first letter."""
    names = [*robots._KEYS, *robots._USAGE_RECORDS]
    firsts = {name[0] for name in names} | {name[0].upper() for name in names}
    assert {chr(char) for char in range(0x110000) if robots._may_start_record(char)} == firsts


@pytest.mark.parametrize("spelling", [str.lower, str.upper, str.title, str.swapcase, lambda name: name.capitalize()])
def test_a_record_name_compared_in_place_is_read_in_any_case_and_only_whole(spelling):
    """Disallow, User-agent, Allow and Sitemap are compared in place, letter by letter: any ASCII case
    is the record, a name longer, shorter or one character off is not (a name with WS before its
    colon is looked up as written)."""
    body = "".join(
        f"{spelling(name)}: {value}\n"
        for name, value in [
            ("user-agent", "*"),
            ("disallow", "/d"),
            ("allow", "/a"),
            ("sitemap", "https://h/s.xml"),
            ("disallow ", "/space"),
            ("disallo", "/short"),
            ("disallowx", "/long"),
            ("disal-ow", "/dash"),
            ("allov", "/v"),
            ("user_agent", "x"),
            ("sitemaps", "https://h/x.xml"),
        ]
    )
    robots = RobotsTxt.parse(body)
    assert [(g.agents, [rule[1] for rule in g.rules]) for g in robots._groups] == [(["*"], ["/d", "/a", "/space"])]
    assert robots.sitemaps == ["https://h/s.xml"]
