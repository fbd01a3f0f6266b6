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
        ("https://a.example/p?b=2&a=1", "https://a.example/p?a=1&b=2"),
        ("https://a.example/%7Euser/", "https://a.example/~user"),
    ],
)
def test_canonical_url(url, canonical):
    assert canonical_url(url) == canonical
