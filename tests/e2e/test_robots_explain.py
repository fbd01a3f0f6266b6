"""``RobotsTxt.explain``: the verdict with its reasons (groups, deciding line, pace). Pure."""

from __future__ import annotations

import base64

import pytest

from demo_site.content import robots_txt
from scrapy_walsh.policy.robots import RobotsTxt, RuleLine, Verdict
from tests.unit.test_robots import CTC

TOKEN = "Walsh-Research"


def test_named_host_of_the_demo_site_says_which_line_decided():
    robots = RobotsTxt.parse(robots_txt("named", "http://named.walsh-demo.test:8787"))
    why = robots.explain("http://named.walsh-demo.test/research-off/guide.md", TOKEN)
    assert why.verdict is Verdict.DISALLOWED_EXPLICIT
    assert why.named
    assert [g.describe() for g in why.groups] == ["group at lines 5-6 (User-agent: Walsh-Research)"]
    assert [g.describe() for g in why.overridden] == ["group at lines 2-3 (User-agent: *)"]
    assert why.rule == RuleLine(6, False, "/research-off/")
    assert why.rule.describe() == "line 6: Disallow: /research-off/"
    # /members/ is refused by *, which our named group overrides: no rule decides
    members = robots.explain("http://named.walsh-demo.test/members/a", TOKEN)
    assert members.verdict is Verdict.ALLOWED_IMPLICIT and members.rule is None


def test_longest_match_wins_and_lines_count_every_line():
    text = (
        "# comment\r\nUser-agent: *\r\nCrawl-delay: 5\r\n\r\nAllow: /a/index.html\r\nDisallow: /a$\r\n"
        "Disallow: /*.pdf\r\nAllow: /a/b\r\nRequest-rate: 1/10s\r\nCrawl-delay: 7\r\n"
    )
    robots = RobotsTxt.parse(text)
    cases = {
        "/a/": (Verdict.ALLOWED_EXPLICIT, RuleLine(5, True, "/a/index.html")),  # index.html allows its dir
        "/a": (Verdict.DISALLOWED_EXPLICIT, RuleLine(6, False, "/a$")),
        "/a/b.pdf": (Verdict.DISALLOWED_EXPLICIT, RuleLine(7, False, "/*.pdf")),
        "/a/bc": (Verdict.ALLOWED_EXPLICIT, RuleLine(8, True, "/a/b")),
        "/zzz": (Verdict.ALLOWED_IMPLICIT, None),
        "/robots.txt": (Verdict.ALLOWED_IMPLICIT, None),
    }
    for path, (verdict, rule) in cases.items():
        why = robots.explain("https://example.com" + path, TOKEN)
        assert (why.verdict, why.rule) == (verdict, rule), path
    why = robots.explain("https://example.com/", TOKEN)
    assert not why.named and why.overridden == ()
    assert [g.describe() for g in why.groups] == ["group at lines 2-10 (User-agent: *)"]
    assert (why.crawl_delay, why.crawl_delay_line) == (7.0, 10)  # the slowest of the group wins
    assert (why.request_rate, why.request_rate_line) == (10.0, 9)


def test_merged_named_groups_and_the_first_line_writing_a_rule():
    text = (
        "User-agent: walsh-research\nDisallow: /x\n\nUser-agent: *\nDisallow: /\n\n"
        "User-agent: WALSH-RESEARCH\nDisallow: /x\nAllow: /x/y\n"
    )
    why = RobotsTxt.parse(text).explain("https://e.com/x/z", TOKEN)
    assert [(g.first_line, g.last_line) for g in why.groups] == [(1, 2), (7, 9)]
    assert why.rule == RuleLine(2, False, "/x")
    assert RobotsTxt.parse(text).explain("https://e.com/x/y", TOKEN).rule == RuleLine(9, True, "/x/y")


def test_no_group_for_us():
    why = RobotsTxt.parse("User-agent: other\nDisallow: /\n").explain("https://e.com/", TOKEN)
    assert why.groups == () and why.rule is None and why.verdict is Verdict.ALLOWED_IMPLICIT


@pytest.mark.parametrize(
    "row", CTC[::1], ids=lambda r: "{}:{}:{}".format(r["file"], r["test_index"], r["expectation_index"])
)
def test_explain_agrees_with_verdict_on_the_whole_compliance_suite(row):
    """The deciding rule is the verdict's: an Allow/Disallow rule exactly when the verdict
    is explicit, and of the same kind; its line really writes that pattern."""
    body = base64.b64decode(row["robotstxt_b64"])
    robots = RobotsTxt.parse(body)
    why = robots.explain(row["testurl"], row["useragent"])
    assert why.verdict is robots.verdict(row["testurl"], row["useragent"])
    if why.verdict is Verdict.ALLOWED_IMPLICIT:
        assert why.rule is None
    else:
        assert why.rule is not None
        assert why.rule.allow == (why.verdict is Verdict.ALLOWED_EXPLICIT)
        text = body.decode("utf-8", "replace").lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
        written = text.split("\n")[why.rule.line - 1]
        assert why.rule.pattern in written
