"""Protego as the reference the suite compares against.

Our matcher and Protego (as Scrapy uses it) decide every case of a vendored sample of 300
real-world robots.txt files (tests/data/robots_corpus/, from Protego's test data, BSD
licence). Each disagreement must be one of the documented differences of
docs/robots-matching.md ("Differences from Protego"), as tests/robots_differences.py's
classifier names it; an unclassified one fails the test, which prints it.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from scrapy_walsh.middlewares.robots_parser import RobotParser
from scrapy_walsh.policy.gates import AVAILABLE, OriginRobots
from scrapy_walsh.policy.robots import RobotsTxt
from scrapy_walsh.policy.vocabulary import BLOCKING_VERDICTS
from tests.robots_differences import CATEGORIES, Comparison, corpus

DOCS = Path(__file__).resolve().parents[2] / "docs" / "robots-matching.md"


@pytest.fixture(scope="module")
def sample():
    files = corpus()
    assert len(files) == 300
    return files


def test_every_disagreement_with_protego_is_a_documented_difference(sample):
    counts: Counter[str] = Counter()
    unclassified = []
    cases = 0
    for name, body in sample:
        comparison = Comparison(name, body)
        for token, url, ours, protego in comparison.cases():
            cases += 1
            if ours == protego:
                continue
            category = comparison.classify(token, url)
            counts[category or "UNCLASSIFIED"] += 1
            if category is None:
                unclassified.append(f"{name}: token {token!r} {url} ours={ours} protego={protego}")
    print(
        f"\n{cases} cases, {sum(counts.values())} disagreements: "
        + ", ".join(f"{k} {v}" for k, v in counts.most_common())
    )
    assert not unclassified, "unclassified disagreements with Protego:\n" + "\n".join(unclassified[:50])
    assert cases > 40_000
    # the sample does exercise the differences (a classifier that is never asked proves nothing)
    assert counts["group-product-token"] > 0 and counts["group-boundary"] > 0


def test_every_category_is_a_documented_row():
    text = DOCS.read_text()
    missing = [c for c in CATEGORIES if f"`{c}`" not in text]
    assert not missing, f"not in docs/robots-matching.md: {missing}"


@pytest.mark.parametrize(
    ("category", "body", "token", "path"),
    [
        ("group-product-token", "User-agent: *\nDisallow: /\n\nUser-agent: WalshBot/1.0\nAllow: /\n", "walshbot", "/a"),
        ("group-boundary", "User-agent: a\nCrawl-delay: 1\nUser-agent: b\nDisallow: /x\n", "a", "/x"),
        ("not-a-path-pattern", "User-agent: *\nDisallow: http://example.com/x\n", "t", "/http://example.com/x"),
        ("literal-dollar", "User-agent: *\nDisallow: /cart$\n", "t", "/cart$"),
        ("reserved-escape", "User-agent: *\nDisallow: /a?b\n", "t", "/a%3Fb"),
        ("lone-percent", "User-agent: *\nDisallow: /g/*/%*\n", "t", "/g/x/%41b"),
        ("lone-percent", "User-agent: *\nDisallow: /\nAllow: /%\n", "t", "/%41"),
        ("value-whitespace", "User-agent: *\nDisallow: /x\u00a0\n", "t", "/x"),
    ],
)
def test_the_classifier_names_the_rule(category, body, token, path):
    """One made-up disagreement per category: the parsers do disagree, and the classifier
    names the documented rule that explains it."""
    comparison = Comparison("made-up", body.encode())
    url = "https://example.com" + path
    assert comparison.ours.allowed(url, token) != comparison.protego.can_fetch(url, token)
    assert comparison.classify(token, url) == category


def test_an_unexplained_disagreement_is_not_classified():
    """A rule no category covers (here: Protego's own matching is given a file ours reads
    the same way, and the URL differs in nothing documented): the classifier says None."""
    comparison = Comparison("made-up", b"User-agent: *\nDisallow: /private\n")
    assert comparison.classify("t", "https://example.com/public") is None


def test_the_gate_and_the_drop_in_parser_share_one_engine(sample):
    """The add-on's gate (OriginRobots) and scrapy_walsh.RobotParser decide alike on every case."""
    for name, body in sample[::10]:
        parser = RobotParser.from_crawler(None, body)
        gate = OriginRobots("https://example.com:443", AVAILABLE, time.time(), 200, "", RobotsTxt.parse(body))
        comparison = Comparison(name, body)
        for token, url, _, _ in comparison.cases():
            blocked = gate.verdict(url, token) in BLOCKING_VERDICTS
            if gate.robots is not None and gate.robots.parse_error:
                continue  # the gate allows a non-robots.txt body with a warning
            assert parser.allowed(url, f"{token}/1.0 (+https://example.com/bot)") is not blocked, (name, token, url)
