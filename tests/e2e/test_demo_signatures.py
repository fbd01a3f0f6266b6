"""The demo site verifies Web Bot Auth signatures as a site would.

It fetches the key directory that a request's ``Signature-Agent`` names from a demo host,
checks the signature, records the outcome and, on a host that requires it, answers 401 to
a missing or bad signature. Requests here are sent with the standard library, so the test
checks the site's side on its own; tests/e2e/test_signing_crawl.py checks a real crawl.
"""

from __future__ import annotations

import http.client
from urllib.parse import urlsplit

import pytest

from demo_site import DemoSite
from demo_site.hosts import HOSTS
from scrapy_walsh.identity import webbotauth


def send(site: DemoSite, url: str, headers: dict[str, str]) -> int:
    parts = urlsplit(url)
    host = HOSTS[parts.hostname.split(".")[0]]
    conn = http.client.HTTPConnection(host.ip, site.port, timeout=10)
    try:
        conn.request("GET", parts.path, headers={"Host": parts.netloc, **headers})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


@pytest.fixture
def signed_site():
    with DemoSite(hosts=["open", "ops"], require_signatures=["open"]) as site:
        key = webbotauth.generate_key()
        agent = site.publish_directory(webbotauth.directory([key]))
        yield site, key, agent


def test_a_signed_request_is_verified_and_served(signed_site):
    site, key, agent = signed_site
    url = site.url("open", "/page/1")
    headers = webbotauth.sign_request(key, "GET", url, {}, agent).as_dict()
    assert send(site, url, headers) == 200
    (record,) = site.requests  # the site's own directory fetch is not in the log
    assert record["signature"] == "verified" and record["path"] == "/page/1"


def test_missing_wrong_key_and_replayed_signatures_get_401(signed_site):
    site, key, agent = signed_site
    url = site.url("open", "/page/1")
    other = webbotauth.sign_request(webbotauth.generate_key(), "GET", url, {}, agent).as_dict()
    replayed = webbotauth.sign_request(key, "GET", site.url("open", "/page/2"), {}, agent).as_dict()
    assert send(site, url, {}) == 401
    assert send(site, url, other) == 401
    assert send(site, url, replayed) == 401  # signed for another path
    outcomes = [r["signature"] for r in site.requests]
    assert outcomes[0] == "missing"
    assert all(o.startswith("invalid: ") for o in outcomes[1:]), outcomes


def test_hosts_that_do_not_require_signatures_still_record_them(signed_site):
    site, key, agent = signed_site
    url = site.url("ops", "/.well-known/walsh-research/blocklist.json")
    assert send(site, url, {}) == 200
    assert send(site, url, webbotauth.sign_request(key, "GET", url, {}, agent).as_dict()) == 200
    assert [r["signature"] for r in site.requests] == ["missing", "verified"]
