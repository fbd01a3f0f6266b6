"""Remote input never crashes a parser: property-based tests of every parser of remote content.

Each parser of something a server sends (Retry-After, X-Robots-Tag, markdown, llms.txt and
its links, sitemaps, URLs from any of them) must return a result, or raise the package's
own documented error, for any input. Hypothesis generates the input; the profile is
derandomised so CI runs the same examples every time.
"""

from __future__ import annotations

import gzip
import math

from hypothesis import example, given
from hypothesis import strategies as st

from scrapy_walsh.policy import llmstxt, markdown, sitemaps, xrobotstag
from scrapy_walsh.policy.addresses import PrivateAddressAllowance, classify, parse_ip, refusal
from scrapy_walsh.policy.backoff import Backoff, parse_retry_after
from scrapy_walsh.policy.canonical import canonical_url
from scrapy_walsh.policy.scope import subresource_kind
from tests.fuzz import FUZZ

#: Text that looks like what servers send: URL-ish, header-ish, markdown-ish, and anything.
url_parts = st.sampled_from(
    [
        "http://",
        "https://",
        "ftp://",
        "//",
        "[",
        "]",
        ":",
        "99999",
        "0x7f.1",
        "::1",
        "%2e",
        "%",
        "@",
        "#",
        "?",
        "/",
        "..",
        "a.example",
        "xn--",
        "\u00a0",
        "\u0663",
        "localhost",
        ";v=1",
        ".png",
        "\x00",
        " ",
    ]
)
urlish = st.lists(st.one_of(url_parts, st.text(max_size=8)), max_size=12).map("".join)
anything = st.one_of(st.text(max_size=300), urlish)


@FUZZ
@given(st.lists(st.one_of(anything, st.from_regex(r"\d{1,400}", fullmatch=True)), max_size=3), st.floats(0, 4e9))
def test_retry_after_parses_anything(values, now):
    parsed = parse_retry_after(values, now)
    assert parsed.seconds is None or (math.isfinite(parsed.seconds) and parsed.seconds >= 0)
    assert math.isfinite(parsed.floor) and parsed.floor >= 0
    decision = Backoff(base=1.0, max_delay=3600.0, max_retries=5).decide(1, values, now, 1.0)
    assert math.isfinite(decision.delay) and decision.delay >= 0


@FUZZ
@given(st.lists(st.one_of(anything, st.binary(max_size=80)), max_size=4), st.sampled_from(["Walsh-Research", "x"]))
def test_x_robots_tag_parses_anything(values, token):
    warnings = xrobotstag.usage_warnings(values, token)
    assert all(isinstance(w, str) for w in warnings)
    for warning in warnings:
        xrobotstag.directive_name(warning)


@FUZZ
@given(anything, st.one_of(st.none(), urlish))
def test_markdown_outline_of_anything(text, base):
    outline = markdown.outline(text, base)
    for link in outline.links:
        assert link.url.startswith(("http://", "https://"))


@FUZZ
@given(anything, st.one_of(st.none(), urlish))
def test_llms_txt_parses_or_refuses(text, base):
    try:
        index = llmstxt.parse(text, base)
    except llmstxt.NotLlmsTxt:
        return
    allowance = PrivateAddressAllowance.parse(False)
    for entry in index.entries():
        llmstxt.origin(entry.url)
        llmstxt.local_address_refusal(entry.url, allowance)
    for target in ("http://a.example/x", "http://a.example/"):
        llmstxt.choose_twin(target, index, allowance)


@FUZZ
@given(urlish, st.one_of(st.none(), st.just("http://a.example/dir/")))
@example("http://a.example:99999/x.md", None)
@example("http://[::1/x", None)
def test_url_helpers_take_any_url_a_request_can_be_made_of(candidate, base):
    url = markdown.http_url(candidate, base)
    if url is None:
        return
    import scrapy

    scrapy.Request(url)  # what the spider does with it: never raises for an accepted URL
    llmstxt.origin(url)
    llmstxt.twin_path(url)
    llmstxt.llms_txt_url(url)
    subresource_kind(url)
    try:
        canonical_url(url)
    except ValueError:
        pass  # w3lib's documented refusal of a URL it can't parse


@FUZZ
@given(st.one_of(urlish, st.text(max_size=40)))
def test_address_helpers_take_any_host(host):
    ip = parse_ip(host)
    if ip is not None:
        classify(ip)
    try:
        refusal(host, PrivateAddressAllowance.parse(False))
    except ValueError:
        pass  # documented: not an address


loc = st.one_of(urlish, st.just("http://a.example/p"))
entry = st.builds(
    lambda tag, value: f"<url><{tag}>{value}</{tag}></url>", st.sampled_from(["loc", "lastmod", "x"]), loc
)
document = st.one_of(
    st.binary(max_size=300),
    st.lists(entry, max_size=5).map(
        lambda es: (
            '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            + "".join(es)
            + "</urlset>"
        ).encode()
    ),
)


@FUZZ
@given(document, st.booleans())
def test_sitemaps_read_anything(body, zipped):
    reading = sitemaps.read_sitemap(gzip.compress(body) if zipped else body, max_urls=3, max_bytes=10_000)
    assert reading.verdict is None or reading.kind is None
    assert len(reading.entries) <= 3


def test_an_llms_txt_link_scrapy_cannot_request_is_not_an_entry():
    """A link with port 99999 is skipped: failing the spider on it would lose every target of the origin."""
    index = llmstxt.parse(
        "# Docs\n\n## Pages\n\n- [bad](http://a.example:99999/x.md)\n- [good](/y.md)\n", "http://a.example/"
    )
    assert [entry.url for entry in index.entries()] == ["http://a.example/y.md"]
