"""Remote content and numeric settings, the pure parts: remote numbers and URLs never crash a parser,
and every numeric setting is finite.

The crawls that show each failure end to end are tests/e2e/test_hardening_*.py.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scrapy_walsh import config
from scrapy_walsh.policy.backoff import MAX_SECONDS, Backoff, parse_retry_after
from scrapy_walsh.policy.blocklist import Blocklist, InvalidBlocklist
from scrapy_walsh.policy.path_match import url_path
from scrapy_walsh.policy.robots import RobotsTxt
from tests.fuzz import FUZZ
from tests.unit.test_remote_input_fuzz import anything, urlish

#: The same profile, fewer examples, for properties of our own output (not remote input).
FEWER = settings(FUZZ, max_examples=100)


@pytest.mark.parametrize(
    "value",
    ["1/٣", "１/5", "1/" + "9" * 5000, "9" * 5000 + "/1", "1/" + "9" * 400, "1/5ſ", "1/5K", "٣/5s", "1/5\u00a0m"],
)
def test_a_request_rate_that_is_not_ascii_digits_is_ignored(value):
    robots = RobotsTxt.parse(f"User-agent: *\nRequest-rate: {value}\nDisallow: /private\n")
    assert robots.request_rate("Walsh-Research") is None
    assert robots.explain("http://a.example/x", "Walsh-Research").request_rate is None
    assert robots.allowed("http://a.example/x", "Walsh-Research")


@pytest.mark.parametrize("value, seconds", [("1/5", 5.0), ("3/1m", 20.0), ("1/5S", 5.0), ("2/1h 0800-1300", 1800.0)])
def test_a_request_rate_in_ascii_digits_still_reads(value, seconds):
    assert RobotsTxt.parse(f"User-agent: *\nRequest-rate: {value}\n").request_rate("x") == seconds


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999", "9" * 400, "٣", "1_0", "-1", "0x10", "1e3"])
def test_a_crawl_delay_that_is_not_a_finite_decimal_is_ignored(value):
    assert RobotsTxt.parse(f"User-agent: *\nCrawl-delay: {value}\n").crawl_delay("x") is None


@pytest.mark.parametrize("value, seconds", [("5", 5.0), ("2.5", 2.5), (".5", 0.5), ("9" * 300, float("9" * 300))])
def test_a_finite_crawl_delay_reads_as_written(value, seconds):
    assert RobotsTxt.parse(f"User-agent: *\nCrawl-delay: {value}\n").crawl_delay("x") == seconds


@pytest.mark.parametrize(
    "url, path",
    [
        ("http://example.com[", "/"),
        ("http://example.com[/private/x?q", "/private/x?q"),
        ("http://[::1/private", "/private"),
        ("//a[/private", "/private"),
        ("http://a.example:99999/private", "/private"),
    ],
)
def test_verdict_of_a_url_whose_authority_does_not_parse(url, path):
    assert url_path(url) == path
    robots = RobotsTxt.parse("User-agent: *\nDisallow: /private\n")
    assert robots.allowed(url, "x") is (path == "/")
    robots.explain(url, "x")


robots_line = st.builds(
    lambda key, value: f"{key}: {value}",
    st.sampled_from(["User-agent", "Allow", "Disallow", "Crawl-delay", "Request-rate", "Sitemap", "crawl delay"]),
    st.one_of(
        anything,
        st.from_regex(r"[0-9\u0660-\u0669\uff10-\uff19]{1,40}(/[0-9\u0663]{1,40}[smhdſK]?)?", fullmatch=True),
        st.text("0123456789./eE-+naif ", max_size=30),
    ),
)
robots_body = st.one_of(
    st.lists(st.one_of(robots_line, st.just("User-agent: *"), anything), max_size=12).map("\n".join),
    st.binary(max_size=300),
)


@FUZZ
@given(robots_body, st.one_of(urlish, st.just("http://example.com[")), st.sampled_from(["Walsh-Research", "*", ""]))
@example("User-agent: *\nRequest-rate: 1/" + "9" * 5000, "http://a.example/", "Walsh-Research")
@example("User-agent: *\nRequest-rate: 1/5ſ", "http://a.example/", "Walsh-Research")
def test_robots_txt_reads_anything_and_answers_any_url(body, url, token):
    robots = RobotsTxt.parse(body)
    robots.verdict(url, token)
    for value in (robots.crawl_delay(token), robots.request_rate(token)):
        assert value is None or (math.isfinite(value) and value >= 0)
    why = robots.explain(url, token)
    assert why.verdict is robots.verdict(url, token)


blocklist_doc = st.one_of(
    anything,
    st.binary(max_size=200),
    st.builds(
        lambda blocked, refresh: json.dumps(
            {
                "contract": "walsh-research-blocklist/v1",
                "updated": "2026-01-01T00:00:00Z",
                "operator": "o",
                "contact": "c",
                "policy": "https://wal.sh/bot/",
                "refresh": refresh,
                "blocked": blocked,
            }
        ),
        st.lists(st.fixed_dictionaries({"domain": urlish, "added": st.just("2026-01-01"), "reason": anything})),
        st.one_of(st.just("PT6H"), anything),
    ),
)


@FUZZ
@given(blocklist_doc)
@example("9" * 5000)
@example('{"contract": "walsh-research-blocklist/v1", "blocked": [' + "[" * 5000 + "]")
def test_a_blocklist_document_is_adopted_or_refused_with_the_packages_error(doc):
    try:
        blocklist = Blocklist.from_document(doc)
    except InvalidBlocklist:
        return
    blocklist.match("a.example")
    assert 0 < blocklist.refresh_seconds and math.isfinite(blocklist.refresh_seconds)


@pytest.mark.parametrize("value", ["9" * 400, "9" * 5000, "1e999"])
def test_a_huge_retry_after_is_a_finite_give_up(value):
    parsed = parse_retry_after([value], 0.0)
    assert max(parsed.seconds or 0.0, parsed.floor) == MAX_SECONDS
    decision = Backoff(max_delay=3600.0).decide(0, [value], 0.0, 1.0)
    assert not decision.retry and decision.delay == MAX_SECONDS


@pytest.mark.parametrize("value", ["-5", "٣", "１０", "nan", "inf", "5 s"])
def test_a_retry_after_that_is_not_delta_seconds_falls_back_to_the_computed_delay(value):
    parsed = parse_retry_after([value], 0.0)
    assert parsed.seconds is None and parsed.problem
    assert math.isfinite(Backoff().decide(0, [value], 0.0, 1.0).delay)


NUMERIC = [
    ("WALSH_MIN_INTERVAL", config.min_interval),
    ("WALSH_ROBOTS_CACHE_SECONDS", config.robots_cache_seconds),
    ("WALSH_BACKOFF_BASE", config.backoff_base),
    ("WALSH_REFETCH_INTERVAL", config.refetch_interval),
    ("WALSH_MAX_CRAWL_DELAY", lambda v: config.max_crawl_delay(v, 1.0)),
    ("WALSH_BACKOFF_MAX_DELAY", lambda v: config.backoff_max_delay(v, 1.0)),
]


@pytest.mark.parametrize("name, parse", NUMERIC, ids=[n for n, _ in NUMERIC])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", float("nan"), float("inf"), "1e999"])
def test_every_numeric_walsh_setting_refuses_nan_and_infinity(name, parse, value):
    with pytest.raises(ValueError, match="NaN and infinity are refused"):
        parse(value)


@pytest.mark.parametrize("value", ["٣", "１０", "1e3", "-1", True])
def test_a_whole_number_is_ascii_digits(value):
    assert config.whole_number(value) is None


json_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), anything),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(anything, inner, max_size=4)),
    max_leaves=30,
)
schema_keyword = st.sampled_from(["type", "pattern", "format", "$ref", "items", "required", "maxLength", "anyOf"])


@FUZZ
@given(st.one_of(json_value, st.dictionaries(schema_keyword, json_value, max_size=5), anything, st.binary(max_size=80)))
@example({"pattern": "(["})
@example({"$ref": "#/nowhere"})
@example("[" * 5000)
def test_a_published_schema_is_loaded_or_refused_with_the_packages_error(candidate):
    from scrapy_walsh.policy.blocklist import InvalidSchema, load_schema

    try:
        schema = load_schema(candidate)
    except InvalidSchema:
        return
    try:
        Blocklist.from_document(json.dumps({"contract": "walsh-research-blocklist/v1", "blocked": []}), schema=schema)
    except InvalidBlocklist:
        pass


def test_a_deeply_nested_schema_is_refused():
    from scrapy_walsh.policy.blocklist import InvalidSchema, load_schema

    for depth in (300, 900, 3000):
        nested: dict = {}
        for _ in range(depth):
            nested = {"items": nested}
        with pytest.raises(InvalidSchema):
            load_schema(nested)


@FUZZ
@given(st.one_of(st.none(), anything, st.binary(max_size=60)))
@example(b"IMAGE/PNG; x=1")
def test_a_content_type_names_a_kind_or_none(value):
    from scrapy_walsh.policy.scope import KINDS, subresource_type

    assert subresource_type(value) in (None, *KINDS)


@FEWER
@given(st.lists(st.tuples(anything, urlish), max_size=60), st.integers(0, 5000))
def test_an_outline_or_llms_txt_item_fits_its_budget(links, budget):
    from scrapy_walsh.pipelines.metadata import _chars
    from scrapy_walsh.policy.llmstxt import Entry, LlmsTxt, Section
    from scrapy_walsh.policy.markdown import Heading, Link, Outline

    outline = Outline("t", tuple(Heading(2, t) for t, _ in links), tuple(Link(t, u) for t, u in links))
    fields = outline.as_fields(budget)
    assert _chars({k: v for k, v in fields.items() if k != "omitted"}) <= max(budget, 1) + len("titleheadingslinks")
    index = LlmsTxt("n", None, (Section("s", tuple(Entry(t, u, "") for t, u in links)),))
    fields = index.item_fields(budget)
    kept = sum(len(s["links"]) for s in fields["sections"])
    assert kept + fields.get("omitted_links", 0) == len(links)


@pytest.mark.parametrize(
    "url, kind",
    [
        ("http://a.example/static/logo.png;v=1", "image"),
        ("http://a.example/static/logo%2Epng", "image"),
        ("http://a.example/static/logo%2epng", "image"),
        ("http://a.example/static/logo%252Epng", "image"),
        ("http://a.example/static/LOGO.PNG", "image"),
        ("http://a.example/static/logo.png.", "image"),
        ("http://a.example/static/logo.png%20", "image"),
        ("http://a.example/static/logo.png/", "image"),
        ("http://a.example/static%2Fapp.js", "script"),
        ("http://a.example/site.CSS;x=1?v=2", "stylesheet"),
        ("http://a.example[/font.woff2", "font"),
        ("http://a.example/page/1", None),
        ("http://a.example/docs/guide.md;v=1", None),
        ("http://a.example/", None),
        ("http://a.example/logo.png.html", None),
    ],
)
def test_a_sub_resource_is_known_by_its_normalised_name(url, kind):
    from scrapy_walsh.policy.scope import subresource_kind

    assert subresource_kind(url) == kind


@pytest.mark.parametrize(
    "content_type, kind",
    [
        ("image/png", "image"),
        ("IMAGE/SVG+XML; charset=utf-8", "image"),
        ("font/woff2", "font"),
        ("application/vnd.ms-fontobject", "font"),
        ("text/css", "stylesheet"),
        (b"text/javascript; charset=utf-8", "script"),
        ("application/wasm", "script"),
        ("video/mp4", "media"),
        ("audio/mpeg", "media"),
        ("text/html; charset=utf-8", None),
        ("text/markdown", None),
        ("application/json", None),
        ("application/xml", None),
        ("application/pdf", None),
        ("application/octet-stream", None),
        ("image", None),
        (None, None),
    ],
)
def test_a_sub_resource_is_known_by_its_content_type(content_type, kind):
    from scrapy_walsh.policy.scope import subresource_type

    assert subresource_type(content_type) == kind
