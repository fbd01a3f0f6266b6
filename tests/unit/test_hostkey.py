"""One key per host: spellings of one host never become two pacing, robots or R8 keys."""

import pytest

from scrapy_walsh.policy.canonical import canonical_url
from scrapy_walsh.policy.gates import origin_of
from scrapy_walsh.policy.hostkey import host_key, url_host


@pytest.mark.parametrize(
    "url",
    ["http://a.example/", "http://A.Example./x", "https://a.example:8443/", "http://user@a.example../p"],
)
def test_spellings_of_one_host_share_a_key(url: str) -> None:
    assert url_host(url) == "a.example"


def test_idna_and_ip_spellings() -> None:
    assert url_host("http://bücher.example/") == host_key("xn--bcher-kva.example") == "xn--bcher-kva.example"
    assert url_host("http://0x7f.1/") == url_host("http://127.0.0.1:8080/") == "127.0.0.1"
    assert url_host("http://[::FFFF:127.0.0.1]/") == "127.0.0.1"


def test_unparsable_urls_have_no_key_and_never_raise() -> None:
    assert url_host("http://example.com[") == ""
    assert url_host("not a url") == ""
    assert origin_of("http://example.com[") == ""


def test_trailing_dot_is_one_origin_and_one_canonical_url() -> None:
    assert origin_of("http://a.example./robots.txt") == origin_of("http://A.EXAMPLE/") == "http://a.example:80"
    assert canonical_url("http://a.example.:8080/x/") == "http://a.example:8080/x"
    assert canonical_url("http://a.example./") == canonical_url("http://a.example/")
