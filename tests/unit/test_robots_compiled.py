"""The robots.txt parser compiled by mypyc (setup.py) decides as its Python source.

``pip install`` compiles ``scrapy_walsh/policy/robots.py`` when it can, and the suite runs
against what was installed. Here the same file, executed as Python under another name, reads
the vendored sample of 300 real-world files and generated bodies (odd octets, NULs, CRs,
comments, records without a colon, huge numbers); both must give the same groups, records,
verdicts, paces, explanations and parse errors.

CI builds the compiled module (gcc and the Python headers are on its machine): there the
tests fail if the import found the source instead, so a build that quietly fell back to pure
Python can't pass as the fast one.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from scrapy_walsh.policy import robots
from tests.fuzz import FUZZ
from tests.robots_builds import is_compiled, pure_python
from tests.robots_differences import corpus, paths_for, tokens_for

pytestmark = pytest.mark.skipif(
    not is_compiled() and not os.environ.get("CI"),
    reason="robots.py was not compiled here (no C compiler, or WALSH_MYPYC=0): nothing to compare",
)


def test_ci_runs_the_compiled_module():
    assert is_compiled(), f"scrapy_walsh.policy.robots was imported from {robots.__file__}: the mypyc build fell back"
    assert not is_compiled(pure_python()), "the reference must be the source, run as Python"


def test_each_build_knows_which_it_is():
    """The module reads characters as ordinals when compiled and with C string methods as
    plain Python (``_COMPILED``): a wrong guess would decide alike, only slower."""
    assert robots._COMPILED is True
    assert pure_python()._COMPILED is False


def _reading(parsed) -> tuple:
    """Everything a parse keeps, as plain values."""
    groups = [(g.agents, g.rules, g.delays, g.rates, g.first_line, g.agents_end, g.usage) for g in parsed._groups]
    return groups, parsed.sitemaps, parsed.parse_error, parsed.licences


def _decisions(parsed, tokens: list[str], paths: list[str]) -> list:
    seen = []
    for token in tokens:
        seen.append((token, parsed.crawl_delay(token), parsed.request_rate(token), parsed.usage_lines(token)))
        for path in paths:
            url = "https://example.com" + path
            why = parsed.explain(url, token)
            rule = why.rule and (why.rule.line, why.rule.allow, why.rule.describe())
            spans = [(s.first_line, s.last_line, s.agents, s.describe()) for s in why.groups + why.overridden]
            seen.append((parsed.verdict(url, token), why.verdict, rule, spans, why.named, why.crawl_delay_line))
    return seen


def _same(body: bytes | str, tokens: list[str] | None = None, paths: list[str] | None = None) -> None:
    compiled, source = robots.RobotsTxt.parse(body), pure_python().RobotsTxt.parse(body)
    assert _reading(compiled) == _reading(source)
    tokens = tokens_for(compiled) if tokens is None else tokens
    paths = paths_for(compiled) if paths is None else paths
    assert _decisions(compiled, tokens, paths) == _decisions(source, tokens, paths)


def test_the_vendored_sample_reads_and_decides_alike():
    files = corpus()
    assert len(files) == 300
    for name, body in files:
        try:
            _same(body)
        except AssertionError:
            pytest.fail(f"the compiled parser differs from its source on {name}")


def test_product_tokens_and_text_bodies_alike():
    for agent in ("WalshBot/1.0 (+https://wal.sh/bot/)", "Mozilla/5.0 (compatible; WalshBot/1.0)", " ", "ſ"):
        assert robots.product_token(agent) == pure_python().product_token(agent)
    _same("User-agent: *\nDisallow: /é\u2028x\nCrawl-delay: 2\n", ["walshbot"], ["/é", "/%C3%A9", "/x"])


_LINE = st.one_of(
    st.sampled_from(
        [
            "User-agent: *",
            "user-agent: WalshBot",
            "useragent:walshbot/2",
            "User-agent: * # all",
            "Disallow: /",
            "disallow /x",
            "Disallow:",
            "Allow: /a$",
            "Allow: /*.php$",
            "dissallow: /p",
            "Crawl-delay: 3",
            "Crawl-delay: 1e999",
            "Crawl-delay: ٣",
            "Request-rate: 1/10m",
            "Sitemap: https://a.example/s.xml",
            "Content-Usage: train-ai=n",
            "License: https://l.example/",
            "# comment: with a colon",
            "",
            " \t",
            "<html>",
            "Host: a.example",
            "Noindex: /x",
        ]
    ),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=40),
)
_EOL = st.sampled_from(["\n", "\r\n", "\r", "\x00\n", "\v\n"])


@FUZZ
@given(st.lists(st.tuples(_LINE, _EOL), max_size=30), st.sampled_from(["utf-8", "latin-1", "bom"]))
@example([("User-agent: walshbot\x00junk", "\n"), ("Disallow: /a", "\r")], "bom")
def test_generated_bodies_read_and_decide_alike(lines, encoding):
    text = "".join(line + eol for line, eol in lines)
    if encoding == "bom":
        body = b"\xef\xbb\xbf" + text.encode("utf-8", "surrogatepass")
    else:
        body = text.encode(encoding, "replace")
    _same(body, ["walshbot", "x"], ["/", "/a", "/x", "/é", "/p.php", "/robots.txt"])
