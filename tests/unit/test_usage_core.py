"""Usage preferences and R9, the pure parts: feeds first, the RateLimit pacing term, the robots.txt usage
records, and the WALSH_PURPOSES parser."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scrapy_walsh.config import purposes, usage_mode
from scrapy_walsh.policy.feeds import entry_metadata, feed_for, looks_like_feed, read_json_feed
from scrapy_walsh.policy.pacing import HostPace, Pacer
from scrapy_walsh.policy.preferences import usage_decision
from scrapy_walsh.policy.robots import RobotsTxt
from tests.fuzz import FUZZ

# ---------------------------------------------------------------- feeds


@pytest.mark.parametrize(
    ("url", "feed"),
    [
        ("http://h/blog/feed.xml", True),
        ("http://h/feed", True),
        ("http://h/blog/feed/", True),
        ("http://h/rss.xml", True),
        ("http://h/atom.xml", True),
        ("http://h/feed.json", True),
        ("http://h/x.rss", True),
        ("http://h/blog/post", False),
        ("http://h/sitemap.xml", False),
        ("http://h/feedback", False),
        ("http://[::1", False),
    ],
)
def test_a_feed_is_recognised_by_its_name(url, feed):
    assert looks_like_feed(url) is feed


def test_a_listed_feed_is_for_targets_of_its_directory_on_its_origin():
    listed = ["http://h/sitemap.xml", "http://other/blog/feed.xml", "http://h/blog/feed.xml"]
    assert feed_for("http://h/blog/", listed) == "http://h/blog/feed.xml"
    assert feed_for("http://h/blog/post-1", listed) == "http://h/blog/feed.xml"
    assert feed_for("http://h/", listed) == "http://h/blog/feed.xml"  # the root takes any
    assert feed_for("http://h/shop/", listed) is None
    assert feed_for("https://h/blog/", listed) is None  # another origin


def test_entry_metadata_never_carries_a_body():
    entry = {
        "title": " T ",
        "link": "/p/1",
        "published": "2026-11-01",
        "author_detail": {"name": "Ada"},
        "author": "ada@x (Ada)",
        "tags": [{"term": "a"}, "b", {"term": ""}],
        "summary": "BODY",
        "content": [{"value": "BODY"}],
    }
    meta = entry_metadata(entry, "http://h/feed.xml")
    assert meta == {
        "title": "T",
        "link": "http://h/p/1",
        "published": "2026-11-01",
        "author": "Ada",
        "categories": ["a", "b"],
    }


def test_json_feed():
    body = json.dumps(
        {
            "version": "https://jsonfeed.org/version/1.1",
            "title": "F",
            "items": [{"url": "http://h/1", "title": "One", "content_text": "BODY", "tags": ["x"]}, "junk"],
        }
    )
    feed, entries = read_json_feed(body)
    assert feed["version"] == "json1.1" and len(entries) == 1
    assert "BODY" not in json.dumps(entry_metadata(entries[0], "http://h/"))
    assert read_json_feed('{"version": "1"}') is None
    assert read_json_feed("[1]") is None and read_json_feed(b"\xff") is None


@FUZZ
@given(st.one_of(st.text(), st.binary()), st.lists(st.text(max_size=60), max_size=5))
def test_feed_helpers_take_anything(body, urls):
    found = read_json_feed(body)
    if found is not None:
        for entry in found[1]:
            entry_metadata(entry, "http://h/")
    feed_for("http://h/a/", urls)


# ---------------------------------------------------------------- RateLimit pacing term


def test_the_ratelimit_term_only_lengthens_the_interval():
    assert HostPace(crawl_delay=5.0, ratelimit=2.5).interval(1.0) == 5.0  # never under Crawl-delay
    assert HostPace(ratelimit=0.2).interval(1.0) == 1.0  # never under the R4 floor
    assert HostPace(ratelimit=2.5).interval(1.0) == 2.5


def test_follow_ratelimit_sets_the_term_from_headers_and_keeps_it_without():
    pacer = Pacer(1.0)
    assert pacer.follow_ratelimit("h", [("RateLimit-Policy", '"p";q=2;w=5')]) == 2.5
    assert pacer.pace("h").ratelimit == 2.5
    assert pacer.follow_ratelimit("h", [("Content-Type", "text/html")]) is None
    assert pacer.pace("h").ratelimit == 2.5  # a response without the fields changes nothing
    assert pacer.follow_ratelimit("h", [(b"RateLimit", b'"p";r=100;t=1')]) == 1.0  # the floor
    assert HostPace.from_json(pacer.pace("h").to_json()).ratelimit == 0.01  # persisted


# ---------------------------------------------------------------- robots.txt usage records


ROBOTS = """License: https://h/licence.xml
User-agent: *
Content-Signal: search=yes, ai-train=no
Content-Usage: /closed/ search=n
Disallow: /private/

User-agent: Walsh-Research
Content-Usage: train-ai=y
Allow: /
"""


def test_the_selected_group_s_usage_records_reach_the_model():
    robots = RobotsTxt.parse(ROBOTS)
    ours = robots.usage_lines("Walsh-Research")
    assert ours == [("Content-Usage", "train-ai=y", 8), ("License", "https://h/licence.xml", 1)]
    others = robots.usage_lines("otherbot")
    assert [f for f, _, _ in others] == ["Content-Signal", "Content-Usage", "License"]
    decision = usage_decision("/closed/x", ["search", "train-ai"], robots=others)
    assert decision.reserved == ("search", "train-ai")
    assert robots.verdict("http://h/private/x", "otherbot").value == "disallowed_explicit"  # rules unchanged


# ---------------------------------------------------------------- settings


def test_purposes_setting():
    assert purposes(None) == ("search", "train-ai", "ai-input")
    assert purposes("search, train-ai") == ("search", "train-ai")
    assert purposes(["search", "search"]) == ("search",)
    for bad in ([], "", ["train"], 3, [1]):
        with pytest.raises(ValueError):
            purposes(bad)
    assert usage_mode("respect") == "respect"
    with pytest.raises(ValueError):
        usage_mode("ignore")
