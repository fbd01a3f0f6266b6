"""The pure discovery decisions: which listed URL a route names, the lastmod rule, the settings,
and the pacing bound's time for a whole crawl."""

from __future__ import annotations

import re

import pytest

from scrapy_walsh.policy.discovery import (
    Route,
    lastmod_time,
    manifest_kinds,
    route_for,
    route_table,
    same_host,
    unchanged_since,
)
from scrapy_walsh.policy.pacing import crawl_duration

POSTS = Route("parse_post", allow=(re.compile(r"/post/\d+\.html"),), deny_extensions=frozenset({".png"}))
ANY = Route("parse")


def test_the_first_route_naming_a_url_wins_and_an_unnamed_url_is_no_target():
    assert route_for("https://b.example/post/1.html", [POSTS, ANY]) is POSTS
    assert route_for("https://b.example/about.html", [POSTS, ANY]) is ANY
    assert route_for("https://b.example/about.html", [POSTS]) is None
    assert route_for("ftp://b.example/post/1.html", [POSTS]) is None, "not http(s)"
    assert route_for("https://b.example/post/1.html.png", [POSTS]) is None, "a denied extension"


def test_domains_and_deny_follow_link_extractor_semantics():
    route = Route(
        "p",
        allow=(re.compile("/post/"),),
        deny=(re.compile("draft"),),
        allow_domains=frozenset({"blog.example"}),
        deny_domains=frozenset({"old.blog.example"}),
    )
    assert route.names("https://www.blog.example/post/1")
    assert not route.names("https://notblog.example/post/1"), "a suffix that is not a subdomain"
    assert not route.names("https://old.blog.example/post/1")
    assert not route.names("https://blog.example/post/draft-1")


def test_same_host_counts_scheme_and_port():
    assert same_host("http://a.example/x", "http://a.example/sitemap.xml")
    assert not same_host("http://a.example:8080/x", "http://a.example/sitemap.xml")
    assert not same_host("https://a.example/x", "http://a.example/sitemap.xml")
    assert not same_host("http://b.example/x", "http://a.example/sitemap.xml")


@pytest.mark.parametrize(
    "listed",
    [
        "http://a.example:80%5Cprivate%5Ca.html",
        "http://a.example:80%2Fx",
        "http://a.example:99999/x",
        "http://[a.example/x",
    ],
)
def test_a_listed_url_with_no_readable_port_or_host_is_another_hosts_not_an_error(listed):
    # one such <loc> in a sitemap raised out of discovery and ended the crawl's start
    assert not same_host(listed, "http://a.example/sitemap.xml")
    assert not same_host("http://a.example/sitemap.xml", listed)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-11-02", 1793577600.0),
        ("2026-11-02T10:00:00Z", 1793613600.0),
        ("2026-11-02T12:00:00+02:00", 1793613600.0),
        ("yesterday", None),
        ("", None),
        (None, None),
        ("9" * 100, None),
    ],
)
def test_lastmod_reads_w3c_datetimes_only(value, expected):
    assert lastmod_time(value) == expected


def test_not_newer_than_our_fetch_is_unchanged():
    fetched = lastmod_time("2026-11-02T10:00:00Z")
    assert unchanged_since("2026-11-02", fetched), "the same day, earlier"
    assert unchanged_since("2026-11-02T10:00:00Z", fetched), "not newer: equal"
    assert not unchanged_since("2026-11-02T10:00:01Z", fetched)
    assert not unchanged_since(None, fetched), "no lastmod says nothing"
    assert not unchanged_since("2026-11-02", None), "never fetched"


def test_a_date_only_lastmod_is_compared_as_a_date():
    fetched = lastmod_time("2026-11-02T10:00:00Z")
    same_day, next_day = lastmod_time("2026-11-02T23:00:00Z"), lastmod_time("2026-11-03T00:30:00Z")
    assert unchanged_since("2026-11-01", fetched, next_day), "dated before the day of our fetch"
    assert not unchanged_since("2026-11-03", fetched, next_day), "dated after it"
    assert unchanged_since("2026-11-02", fetched, same_day), "dated that day: can't be told newer that day"
    assert not unchanged_since("2026-11-02", fetched, next_day), "dated that day: picked up the next day"
    refetched = lastmod_time("2026-11-03T00:31:00Z")
    assert unchanged_since("2026-11-02", refetched, lastmod_time("2026-11-09T00:00:00Z")), "then not again"
    assert unchanged_since("2026-11-02T09:00:00Z", fetched, next_day), "a time is compared as a time"


def test_discovery_unset_differs_from_off():
    assert manifest_kinds(None) is None, "unset: the spider's rules or routes decide"
    assert manifest_kinds([]) == (), "off"
    assert route_table('{"/post/": "parse_post"}') == (("/post/", "parse_post"),), "-s takes JSON"


def test_settings_are_refused_with_a_reason():
    assert manifest_kinds(["sitemap", "feed", "sitemap"]) == ("sitemap", "feed")
    assert manifest_kinds("sitemap, llms.txt") == ("sitemap", "llms.txt")
    with pytest.raises(ValueError, match="'robots' is not a manifest kind"):
        manifest_kinds(["robots"])
    assert route_table({r"/post/\d+": "parse_post"}) == ((r"/post/\d+", "parse_post"),)
    with pytest.raises(ValueError, match="not a regular expression"):
        route_table({"(": "parse"})
    with pytest.raises(ValueError, match="not the name of a spider method"):
        route_table({"/p/": "self.parse()"})


def test_crawl_duration_plays_out_the_serial_schedule():
    assert crawl_duration([]) == 0
    assert crawl_duration([(1, 1.0)]) == 0, "one request: no interval to wait"
    assert crawl_duration([(5, 1.0)]) == 4.0
    assert crawl_duration([(5, 1.0), (5, 1.0), (3, 2.0)]) == 4.0, "hosts wait in parallel"
    assert crawl_duration([(5, 1.0)], latency=0.1) == pytest.approx(4 * 1.1 + 0.1)
    # serial per process: 100 hosts of one request each take 100 latencies
    assert crawl_duration([(1, 1.0)] * 100, latency=0.05) == pytest.approx(5.0)
