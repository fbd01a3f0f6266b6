"""The one URL model: a request is judged as it will be sent and as servers resolve it.

The spellings below are the ones a red team got past robots.txt ``Disallow: /private`` and the
same-host rule, each served by a stock nginx from /private (tests/e2e/test_url_corpus.py checks
the whole corpus against a real nginx).
"""

from __future__ import annotations

import pytest

from scrapy_walsh.policy.canonical import canonical_url
from scrapy_walsh.policy.discovery import same_host
from scrapy_walsh.policy.gates import OriginRobots, RobotsFetch, robots_outcome
from scrapy_walsh.policy.urls import UnsafeURL, path_readings, readings, remove_dot_segments, resolved, sent_url
from scrapy_walsh.policy.vocabulary import BLOCKING_VERDICTS, Verdict

ROBOTS = robots_outcome("http://s.example", RobotsFetch(200, b"User-agent: *\nDisallow: /private\n"), 0.0)

#: Each was sent by the old gates and served from /private by nginx.
SERVED_FROM_PRIVATE = [
    "http://s.example/pub/../private/a",
    "http://s.example/./private/b",
    "http://s.example/pub/%2e%2e/private/c",
    "http://s.example/pub/%2E%2E/private/d",
    "http://s.example/pub/.%2e/private/e",
    "http://s.example//private/b",
    "http://s.example/pub/..%2Fprivate/d",
    "http://s.example/pub/..%5cprivate/f",
    "http://s.example/pub/..;/private/g",
    "http://s.example/pub/%2e%2e%2fprivate/h",
]


@pytest.mark.parametrize("url", SERVED_FROM_PRIVATE)
def test_robots_judges_every_path_a_server_may_serve(url):
    assert ROBOTS.verdict(url, "walshbot") in BLOCKING_VERDICTS
    assert ROBOTS.verdict(resolved(url), "walshbot") in BLOCKING_VERDICTS


@pytest.mark.parametrize(
    "url", ["http://s.example/pub/a", "http://s.example/pub//a", "http://s.example/priv", "http://s.example/"]
)
def test_paths_outside_the_rule_stay_allowed(url):
    assert ROBOTS.verdict(url, "walshbot") is Verdict.ALLOWED_IMPLICIT


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/a/b/c/./../../g", "/a/g"),  # RFC 3986 §5.2.4's own example
        ("/mid/content=5/../6", "/mid/6"),
        ("/../../x", "/x"),  # never above the root
        ("/a/..", "/"),
        ("/a/.", "/a/"),
        ("/a/%2E%2e/b", "/b"),
        ("/a/%2e./b", "/b"),
        ("/a/...", "/a/..."),  # not a dot segment
        ("/a/..b/c", "/a/..b/c"),
        ("//a", "//a"),
    ],
)
def test_dot_segments_are_removed_as_rfc_3986_says(path, expected):
    assert remove_dot_segments(path) == expected


def test_the_sent_url_has_no_dot_segments_and_is_scrapys_form():
    assert sent_url("HTTP://S.Example/pub/../private/a") == "http://s.example/private/a"
    assert sent_url("http://s.example/a b/%2e%2e/c") == "http://s.example/c"
    assert sent_url("http://s.example/a\\b/../c") == "http://s.example/a/c"  # Scrapy reads "\" as "/"


@pytest.mark.parametrize(
    "text",
    [
        "http://O\\@S/post/b.html",  # urllib reads host S, Scrapy and browsers O
        "http://o.example\\@s.example/x",
        "mailto:someone@s.example",
        "http://",
        "http://[::1/",
        "http://s.example:99999/",
        "/relative/path",
        "http://user:pw@s.example/x",  # Twisted's agent resolves "user:pw@s.example" whole
        "http://%73.example/x",  # a WHATWG parser decodes the host, the others don't
    ],
)
def test_a_url_parsers_disagree_on_is_refused(text):
    with pytest.raises(UnsafeURL):
        sent_url(text)


def test_same_host_reads_the_request_the_url_becomes():
    assert not same_host("http://O\\@S/post/b.html", "http://s/sitemap.xml")
    assert not same_host("http://o\\@s/post/b.html", "http://o/sitemap.xml")
    assert same_host("http://s/post/../b.html", "http://S/sitemap.xml")


def test_one_target_key_for_every_spelling_of_a_path():
    assert canonical_url("http://s.example/pub/../post/") == canonical_url("http://s.example/post")
    assert canonical_url("http://s.example/%2e/post") == "http://s.example/post"


def test_a_path_without_anything_ambiguous_has_one_reading():
    assert path_readings("/pub/a.html") == ("/pub/a.html",)
    assert set(path_readings("/pub//../private")) >= {"/pub/private", "/private"}
    assert set(path_readings("/pub/private")) == {"/pub/private"}
    assert readings("http://s.example/pub/..%2Fprivate?q=1") == ("/pub/..%2Fprivate?q=1", "/private?q=1")


def test_an_unreachable_or_missing_robots_is_read_as_before():
    unreachable = robots_outcome("http://s.example", RobotsFetch(503), 0.0)
    missing = robots_outcome("http://s.example", RobotsFetch(404), 0.0)
    assert isinstance(unreachable, OriginRobots)
    assert unreachable.verdict("http://s.example//x", "walshbot") is Verdict.UNKNOWN_UNREACHABLE
    assert missing.verdict("http://s.example/pub/../private", "walshbot") is Verdict.ALLOWED_IMPLICIT
