"""Pure R6/R7 helpers: what a sub-resource is, and the canonical URL."""

import pytest

from scrapy_walsh.policy.canonical import canonical_url
from scrapy_walsh.policy.scope import subresource_kind


@pytest.mark.parametrize(
    ("url", "resource_type", "dest", "kind"),
    [
        ("https://a.example/logo.PNG", None, None, "image"),
        ("https://a.example/app.js?v=3", None, None, "script"),
        ("https://a.example/s/site.css#x", None, None, "stylesheet"),
        ("https://a.example/f.woff2", None, None, "font"),
        ("https://a.example/clip.mp4", None, None, "media"),
        ("https://a.example/page/1", "image", None, "image"),
        ("https://a.example/page/1", None, "script", "script"),
        ("https://a.example/page/1", None, "document", None),
        ("https://a.example/page/1", None, None, None),
        ("https://a.example/report.pdf", None, None, None),
        ("https://a.example/notes.md", None, None, None),
        ("https://a.example/css/", None, None, None),
        ("https://a.example/v1.2/page", None, None, None),
    ],
)
def test_subresource_kind(url, resource_type, dest, kind):
    assert subresource_kind(url, resource_type, dest) == kind


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("https://A.example/docs/#intro", "https://a.example/docs"),
        ("https://a.example/docs", "https://a.example/docs"),
        ("https://a.example", "https://a.example/"),
        ("https://a.example/", "https://a.example/"),
        ("https://a.example/p?b=2&a=1", "https://a.example/p?b=2&a=1"),
        ("https://a.example/%7Euser/", "https://a.example/~user"),
        ("HTTPS://A.Example:443/%7euser/", "https://a.example/~user"),
        ("http://a.example:8080/x/", "http://a.example:8080/x"),
        ("http://a.example/k?x=%2f", "http://a.example/k?x=%2F"),
        ("http://a.example/w?a=1 2", "http://a.example/w?a=1%202"),
        ("http://bücher.example./ä", "http://xn--bcher-kva.example/%C3%A4"),
        ("http://[::1]:8080/x/", "http://[::1]:8080/x"),
    ],
)
def test_canonical_url(url, canonical):
    assert canonical_url(url) == canonical


def test_distinct_uris_stay_distinct():
    """Two URLs a server may answer differently get two keys: RFC 3986 §6.2.2.2 (``%2F`` is not
    ``/``), ``+`` is not ``%20``, query order is the site's."""
    pairs = [("/k?x=%2F", "/k?x=/"), ("/p?a=1&b=2", "/p?b=2&a=1"), ("/w?a=1+2", "/w?a=1%202")]
    keys = {canonical_url("http://a.example" + path) for pair in pairs for path in pair}
    assert len(keys) == 6


def test_an_earlier_versions_key_is_read_too():
    from scrapy_walsh.policy.canonical import record_keys

    assert record_keys("http://a.example/p?b=2&a=1") == ("http://a.example/p?b=2&a=1", "http://a.example/p?a=1&b=2")
    assert record_keys("http://a.example/docs/") == ("http://a.example/docs",), "one read when the keys agree"
