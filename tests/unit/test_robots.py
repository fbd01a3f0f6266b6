"""R2's pure robots.txt module: Google's compliance suite, seed 002's examples, RFC 9309 cases.

No Scrapy, no network: ``RobotsTxt`` is fed bytes and asked about URLs.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from scrapy_walsh.policy import robots
from scrapy_walsh.policy.robots import MAX_BYTES, RobotsTxt, Verdict

TOKEN = "Walsh-Research"
DATA = Path(__file__).resolve().parent.parent / "data"
CTC = [json.loads(line) for line in (DATA / "google-robotstxt-ctc.jsonl").read_text("utf-8").splitlines()]

#: The 7 STANDARD rows where the suite follows Google's parser and we follow RFC 9309
#: (tests/data/README.md has the reasons): (file, test_index, expectation_index).
RFC_OVER_SUITE = {
    ("stress/327748.textproto", 0, 5),
    ("stress/369883.textproto", 0, 5),
    ("stress/369883.textproto", 0, 9),
    ("stress/860237.textproto", 0, 9),
    ("correctness/non-ascii-paths.textproto", 1, 1),
    ("correctness/non-ascii-paths.textproto", 2, 1),
    ("correctness/non-ascii-paths.textproto", 3, 0),
}


def ctc_key(row: dict) -> tuple[str, int, int]:
    return row["file"], row["test_index"], row["expectation_index"]


def ctc_result(row: dict, body: bytes | str | None = None) -> str:
    robots = RobotsTxt.parse(base64.b64decode(row["robotstxt_b64"]) if body is None else body)
    return "ALLOWED" if robots.allowed(row["testurl"], row["useragent"]) else "DISALLOWED"


def parse(text: str) -> RobotsTxt:
    return RobotsTxt.parse(text.encode("utf-8"))


def verdict(robots_txt: str, path: str, token: str = TOKEN) -> Verdict:
    return parse(robots_txt).verdict(f"https://example.com{path}", token)


# --- Google's compliance suite -------------------------------------------------------------


def test_ctc_data_is_complete():
    assert len(CTC) == 400
    assert sum(r["test_type"] == "STANDARD" for r in CTC) == 378
    assert {ctc_key(r) for r in CTC} >= RFC_OVER_SUITE


@pytest.mark.parametrize(
    "row", [r for r in CTC if r["test_type"] == "STANDARD"], ids=lambda r: "{}:{}:{}".format(*ctc_key(r))
)
def test_ctc_standard_row(row):
    if ctc_key(row) in RFC_OVER_SUITE:
        assert ctc_result(row) != row["expected"], "this row should follow RFC 9309, not the suite"
    else:
        assert ctc_result(row) == row["expected"]


def test_ctc_standard_score():
    standard = [r for r in CTC if r["test_type"] == "STANDARD"]
    missed = {ctc_key(r) for r in standard if ctc_result(r) != r["expected"]}
    print(f"STANDARD {len(standard) - len(missed)}/{len(standard)}")
    assert missed == RFC_OVER_SUITE


def test_ctc_google_specific_score():
    """Google's own choices (22 rows): we follow every one, as docs/robots-matching.md says
    (GOOGLE_SPECIFIC 22/22). A row that starts to differ fails here, naming it, and the docs'
    table of differences gains a row or the code is fixed."""
    rows = [r for r in CTC if r["test_type"] == "GOOGLE_SPECIFIC"]
    differing = [(*ctc_key(r), r["testurl"], r["expected"]) for r in rows if ctc_result(r) != r["expected"]]
    assert len(rows) == 22
    assert differing == [], f"GOOGLE_SPECIFIC {len(rows) - len(differing)}/{len(rows)}"


def test_ctc_text_input_equals_bytes_input():
    """``robotstxt`` is the body as text (lone surrogates for the 3 non-UTF-8 bodies)."""
    for row in CTC:
        assert ctc_result(row, row["robotstxt"]) == ctc_result(row), ctc_key(row)


# --- Seed 002's worked examples ------------------------------------------------------------

# The seed's bodies have no User-agent line: RFC 9309 ignores rules outside a group (and so do
# we, see test_rules_before_first_user_agent_are_ignored), so each body is put in the * group.
SEED_002 = [
    ("Disallow: /private", "/private/a", Verdict.DISALLOWED_EXPLICIT),
    ("Disallow: /private", "/public", Verdict.ALLOWED_IMPLICIT),
    ("Disallow: /docs\nAllow: /docs/public", "/docs/public/a", Verdict.ALLOWED_EXPLICIT),
    ("Disallow: /docs\nAllow: /docs/public", "/docs/secret", Verdict.DISALLOWED_EXPLICIT),
    ("Disallow: /*.pdf$", "/file.pdf", Verdict.DISALLOWED_EXPLICIT),
    ("Disallow: /*.pdf$", "/file.pdf?x=1", Verdict.ALLOWED_IMPLICIT),
]


@pytest.mark.parametrize(("rules", "path", "expected"), SEED_002)
def test_seed_002_worked_examples(rules, path, expected):
    assert verdict(f"User-agent: *\n{rules}\n", path) is expected


# --- Group selection (RFC 9309 §2.2.1) -----------------------------------------------------

NAMED = """\
User-agent: *
Disallow: /members/
Allow: /research-off/

User-agent: Walsh-Research
Disallow: /research-off/
"""


def test_named_group_blocks_where_star_allows():
    assert verdict(NAMED, "/research-off/notes") is Verdict.DISALLOWED_EXPLICIT


def test_named_group_exempts_where_star_blocks():
    assert verdict(NAMED, "/members/join") is Verdict.ALLOWED_IMPLICIT
    assert verdict(NAMED, "/members/join", token="OtherBot") is Verdict.DISALLOWED_EXPLICIT


@pytest.mark.parametrize("other", ["bot", "Mozilla", "Walsh", "Walsh-Research-Extra", "wal", "Research", "*bot"])
def test_groups_of_other_tokens_do_not_apply(other):
    robots = f"User-agent: *\nAllow: /\n\nUser-agent: {other}\nDisallow: /\n"
    assert verdict(robots, "/page") is Verdict.ALLOWED_EXPLICIT


@pytest.mark.parametrize("value", ["Walsh-Research", "walsh-research", "WALSH-RESEARCH", "Walsh-Research/1.0",
                                   "Walsh-Research Extra", "Walsh-Research (+https://wal.sh/bot/)"])  # fmt: skip
def test_group_value_is_reduced_to_its_product_token_case_insensitively(value):
    robots = f"User-agent: *\nAllow: /\n\nUser-agent: {value}\nDisallow: /\n"
    assert verdict(robots, "/page") is Verdict.DISALLOWED_EXPLICIT
    assert verdict(robots, "/page", token="walsh-RESEARCH") is Verdict.DISALLOWED_EXPLICIT


def test_groups_naming_our_token_are_merged_and_star_ignored():
    robots = """\
User-agent: Walsh-Research
Disallow: /a/

User-agent: OtherBot
User-agent: walsh-research
Disallow: /b/
Allow: /b/open/

User-agent: *
Disallow: /c/
"""
    assert verdict(robots, "/a/x") is Verdict.DISALLOWED_EXPLICIT
    assert verdict(robots, "/b/x") is Verdict.DISALLOWED_EXPLICIT
    assert verdict(robots, "/b/open/x") is Verdict.ALLOWED_EXPLICIT
    assert verdict(robots, "/c/x") is Verdict.ALLOWED_IMPLICIT


def test_star_groups_are_merged():
    robots = "User-agent: *\nDisallow: /a/\n\nUser-agent: OtherBot\nDisallow: /\n\nUser-agent: *\nDisallow: /b/\n"
    assert verdict(robots, "/a/x") is Verdict.DISALLOWED_EXPLICIT
    assert verdict(robots, "/b/x") is Verdict.DISALLOWED_EXPLICIT
    assert verdict(robots, "/c/x") is Verdict.ALLOWED_IMPLICIT


def test_no_matching_group_allows_everything():
    assert verdict("User-agent: OtherBot\nDisallow: /\n", "/x") is Verdict.ALLOWED_IMPLICIT


def test_rules_before_first_user_agent_are_ignored():
    robots = "Disallow: /early/\nCrawl-delay: 9\n\nUser-agent: *\nDisallow: /late/\n"
    assert verdict(robots, "/early/x") is Verdict.ALLOWED_IMPLICIT
    assert verdict(robots, "/late/x") is Verdict.DISALLOWED_EXPLICIT
    assert parse(robots).crawl_delay(TOKEN) is None


def test_only_a_rule_ends_the_user_agent_lines_of_a_group():
    """RFC 9309 §2.2.4: other records (Crawl-delay, Sitemap, unknown ones) don't split a group."""
    robots = "User-agent: *\nCrawl-delay: 5\nSitemap: /s.xml\nFoo: bar\n\nUser-agent: Walsh-Research\nDisallow: /x\n"
    assert verdict(robots, "/x") is Verdict.DISALLOWED_EXPLICIT
    assert verdict(robots, "/x", token="OtherBot") is Verdict.DISALLOWED_EXPLICIT  # one group for * and us
    assert parse(robots).crawl_delay(TOKEN) == 5.0


# --- Crawl-delay and Request-rate ----------------------------------------------------------

PACED = """\
User-agent: *
Crawl-delay: 30
Request-rate: 1/60
Disallow: /cgi-bin/

User-agent: Walsh-Research
Crawl-delay: 2
Request-rate: 1/5
Disallow: /x
"""


def test_crawl_delay_and_request_rate_come_from_the_selected_group_only():
    robots = parse(PACED)
    assert robots.crawl_delay(TOKEN) == 2.0
    assert robots.request_rate(TOKEN) == 5.0
    assert robots.crawl_delay("OtherBot") == 30.0
    assert robots.request_rate("OtherBot") == 60.0


def test_no_pacing_in_the_selected_group_is_none_even_if_star_has_some():
    robots = parse("User-agent: *\nCrawl-delay: 30\nDisallow: /y\n\nUser-agent: Walsh-Research\nDisallow: /x\n")
    assert robots.crawl_delay(TOKEN) is None
    assert robots.request_rate(TOKEN) is None
    assert parse("User-agent: OtherBot\nCrawl-delay: 3\n").crawl_delay(TOKEN) is None


def test_merged_groups_keep_the_largest_crawl_delay_and_request_interval():
    robots = parse(
        "User-agent: Walsh-Research\nCrawl-delay: 2\nRequest-rate: 1/5\nDisallow: /a\n\n"
        "User-agent: Walsh-Research\nCrawl-delay: 7.5\nRequest-rate: 3/1m\nDisallow: /b\n"
    )
    assert robots.crawl_delay(TOKEN) == 7.5
    assert robots.request_rate(TOKEN) == 20.0


@pytest.mark.parametrize(("value", "expected"), [("10", 10.0), ("0.5", 0.5), ("0", 0.0), ("-1", None),
                                                 ("ten", None), ("nan", None), ("inf", None), ("", None)])  # fmt: skip
def test_crawl_delay_values(value, expected):
    assert parse(f"User-agent: *\nCrawl-delay: {value}\n").crawl_delay(TOKEN) == expected


@pytest.mark.parametrize(("value", "expected"), [
    ("1/5", 5.0), ("1/5s", 5.0), ("1/10m", 600.0), ("2/1h", 1800.0), ("1/1d", 86400.0), ("3/10", 10 / 3),
    ("1/5 0600-0845", 5.0), ("0/5", None), ("1/0", None), ("fast", None), ("1/5x", None), ("", None),
])  # fmt: skip
def test_request_rate_values(value, expected):
    assert parse(f"User-agent: *\nRequest-rate: {value}\n").request_rate(TOKEN) == expected


# --- Path matching (RFC 9309 §2.2.2) -------------------------------------------------------


def test_explicit_and_implicit_verdicts():
    robots = parse("User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /a/b/c\n")
    url = "https://example.com{}".format
    assert robots.verdict(url("/a"), TOKEN) is Verdict.DISALLOWED_EXPLICIT
    assert robots.verdict(url("/a/b"), TOKEN) is Verdict.ALLOWED_EXPLICIT
    assert robots.verdict(url("/a/b/c"), TOKEN) is Verdict.DISALLOWED_EXPLICIT
    assert robots.verdict(url("/z"), TOKEN) is Verdict.ALLOWED_IMPLICIT
    assert robots.allowed(url("/a/b"), TOKEN) and robots.allowed(url("/z"), TOKEN)
    assert not robots.allowed(url("/a"), TOKEN)


def test_longest_match_wins_and_allow_wins_a_tie():
    assert verdict("User-agent: *\nAllow: /p\nDisallow: /p\n", "/page") is Verdict.ALLOWED_EXPLICIT
    assert verdict("User-agent: *\nDisallow: /p\nAllow: /p\n", "/page") is Verdict.ALLOWED_EXPLICIT
    assert verdict("User-agent: *\nAllow: /p\nDisallow: /pa\n", "/page") is Verdict.DISALLOWED_EXPLICIT
    assert verdict("User-agent: *\nAllow: /*.html$\nDisallow: /\n", "/a.html") is Verdict.ALLOWED_EXPLICIT


def test_empty_disallow_matches_nothing():
    assert verdict("User-agent: *\nDisallow:\n", "/x") is Verdict.ALLOWED_IMPLICIT


def test_robots_txt_is_always_allowed():
    robots = "User-agent: *\nDisallow: /\n"
    assert verdict(robots, "/robots.txt") is Verdict.ALLOWED_IMPLICIT
    assert verdict(robots, "/robots.txt?x=1") is Verdict.DISALLOWED_EXPLICIT  # another URI
    assert verdict(robots, "/robots.txt.bak") is Verdict.DISALLOWED_EXPLICIT
    assert verdict(robots, "/a/robots.txt") is Verdict.DISALLOWED_EXPLICIT


def test_percent_encoding_is_normalised():
    robots = "User-agent: *\nDisallow: /caf\u00e9\nDisallow: /%7Euser/\n"
    assert verdict(robots, "/caf%C3%A9") is Verdict.DISALLOWED_EXPLICIT
    assert verdict(robots, "/caf\u00e9/menu") is Verdict.DISALLOWED_EXPLICIT
    assert verdict(robots, "/~user/x") is Verdict.DISALLOWED_EXPLICIT


# --- Bytes as received ---------------------------------------------------------------------


def test_bom_is_skipped():
    body = b"\xef\xbb\xbfUser-agent: *\nDisallow: /x\n"
    assert RobotsTxt.parse(body).verdict("https://example.com/x", TOKEN) is Verdict.DISALLOWED_EXPLICIT
    assert RobotsTxt.parse(body.decode("utf-8")).verdict("https://example.com/x", TOKEN) is Verdict.DISALLOWED_EXPLICIT


def test_only_the_first_500_kib_are_parsed():
    head = "User-agent: *\nDisallow: /early\n"
    filler = "# padding\n" * ((MAX_BYTES - len(head) - 100) // 10)
    near_end = "Disallow: /near-end\n"
    body = head + filler + near_end
    body += "#" * (MAX_BYTES - len(body) - 5) + "\n"  # the limit falls inside the next line
    straddling = "Disallow: /\n"
    body += straddling + "Disallow: /late\n"
    assert len(body.encode()) > MAX_BYTES > len(body.encode()) - len(straddling) - len("Disallow: /late\n")
    for given in (body, body.encode()):
        robots = RobotsTxt.parse(given)
        assert not robots.allowed("https://example.com/early", TOKEN)
        assert not robots.allowed("https://example.com/near-end", TOKEN)
        assert robots.allowed("https://example.com/late", TOKEN)  # after the limit
        assert robots.allowed("https://example.com/other", TOKEN)  # "Disallow: /" was cut in two: dropped


def test_non_utf8_bytes_do_not_raise_and_match_percent_encoded():
    robots = RobotsTxt.parse(b"User-agent: *\nDisallow: /caf\xe9\n# \xff\xfe comment\nDisallow: /\x80\x81/\n")
    assert robots.parse_error is None
    assert robots.verdict("https://example.com/caf%E9", TOKEN) is Verdict.DISALLOWED_EXPLICIT
    assert robots.verdict("https://example.com/caf%C3%A9", TOKEN) is Verdict.ALLOWED_IMPLICIT
    assert robots.verdict("https://example.com/other", TOKEN) is Verdict.ALLOWED_IMPLICIT


def test_line_endings():
    for eol in ("\n", "\r\n", "\r"):
        body = eol.join(["User-agent: *", "Disallow: /x", "Sitemap: https://example.com/s.xml", ""])
        robots = RobotsTxt.parse(body.encode())
        assert not robots.allowed("https://example.com/x", TOKEN)
        assert robots.sitemaps == ["https://example.com/s.xml"]


def test_str_input_equals_bytes_input():
    text = "\ufeffUser-agent: walsh-research\nDisallow: /ü/\nAllow: /ü/ok\nCrawl-delay: 4\nSitemap: https://e.com/s\n"
    from_text, from_bytes = RobotsTxt.parse(text), RobotsTxt.parse(text.encode("utf-8"))
    for path in ("/ü/x", "/%C3%BC/ok", "/x", "/robots.txt"):
        url = f"https://example.com{path}"
        assert from_text.verdict(url, TOKEN) is from_bytes.verdict(url, TOKEN)
    assert from_text.crawl_delay(TOKEN) == from_bytes.crawl_delay(TOKEN) == 4.0
    assert from_text.sitemaps == from_bytes.sitemaps


# --- Sitemaps and parse errors -------------------------------------------------------------


def test_sitemaps_are_global_in_any_position():
    robots = parse(
        "Sitemap: https://example.com/a.xml\nUser-agent: OtherBot\nSitemap: https://example.com/b.xml\n"
        "Disallow: /\nsitemap:https://example.com/c.xml # comment\nSitemap:\n"
    )
    assert robots.sitemaps == ["https://example.com/a.xml", "https://example.com/b.xml", "https://example.com/c.xml"]


HTML = """<!DOCTYPE html>
<html><head><title>Page not found</title></head>
<body><h1>404: this page does not exist</h1>
<p>Go back to the <a href="/">home page</a>: it has everything.</p></body></html>
"""


def test_parse_error_on_an_html_page():
    robots = parse(HTML)
    assert robots.parse_error and "HTML" in robots.parse_error
    assert robots.verdict("https://example.com/x", TOKEN) is Verdict.ALLOWED_IMPLICIT


def test_parse_error_on_binary_content():
    assert RobotsTxt.parse(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR").parse_error
    # a NUL ends its line (as in Google's parser); the records around it still apply
    assert RobotsTxt.parse(b"User-agent: *\nDisallow: /\x00\n").parse_error is None


@pytest.mark.parametrize("body", ["", "\n\n", "# nothing here\n\n# at all\n", "   \n#x\n"])
def test_no_parse_error_on_empty_or_comments_only(body):
    robots = parse(body)
    assert robots.parse_error is None
    assert robots.verdict("https://example.com/x", TOKEN) is Verdict.ALLOWED_IMPLICIT


def test_no_parse_error_with_junk_around_records():
    assert parse("<br />\nUser-agent: *\n<br />\nDisallow: /x\n").parse_error is None


def test_a_first_verdict_spells_only_the_rules_that_are_not_their_own_spelling(monkeypatch):
    """Cost by count: a rule of letters, reserved characters and escapes that stay as written
    (most of a real file) is matched as the parse left it; only the others are spelled."""
    spelled = []
    real = robots.spell_rule

    def counting(pattern, all_as_written=False):
        spelled.append(pattern)
        return real(pattern, all_as_written)

    monkeypatch.setattr(robots, "spell_rule", counting)
    rules = "".join(f"Disallow: /p{i}/%E0%B8%81?q=1\n" for i in range(500))
    body = f"User-agent: *\n{rules}Disallow: /a b\nAllow: /*.css$\nAllow: /p7/%e0\n"
    parsed = RobotsTxt.parse(body)
    assert parsed.verdict("https://example.com/p7/%E0%B8%81?q=1", TOKEN) is Verdict.DISALLOWED_EXPLICIT
    assert parsed.verdict("https://example.com/p7/%E0x", TOKEN) is Verdict.ALLOWED_EXPLICIT
    assert parsed.verdict("https://example.com/p7/x.css", TOKEN) is Verdict.ALLOWED_EXPLICIT
    assert parsed.verdict("https://example.com/a%20b", TOKEN) is Verdict.DISALLOWED_EXPLICIT
    assert spelled == ["/a b", "/p7/%e0"]  # a space to encode, a lowercase escape; "*.css$" is its own
