"""Every request a crawl sends is signed at the checkpoint, and a site can verify it.

The demo site requires a verified Web Bot Auth signature on every host it serves: it
fetches our key directory (published on its ops host) and answers 401 to anything else.
The server's records, not the crawl's stats, say what was verified: robots.txt, the
blocklist, its schema and the targets alike.
"""

from __future__ import annotations

import pytest

from demo_site import DemoSite
from demo_site.hosts import HOSTS
from scrapy_walsh.identity import webbotauth
from tests.helpers import add_addon_line, crawl_targets, new_project, run_scrapy


@pytest.fixture
def signing_site():
    with DemoSite(require_signatures=list(HOSTS)) as site:
        yield site


@pytest.fixture
def signing_project(tmp_path, signing_site):
    key = tmp_path / "walsh-webbotauth.pem"
    assert run_scrapy(["walsh", "keys", "generate", str(key)], cwd=tmp_path).returncode == 0
    agent = signing_site.publish_directory(webbotauth.directory([webbotauth.load_private_key(key)]))
    project = new_project(tmp_path)
    add_addon_line(
        project, site=signing_site, extra=f"\nWALSH_SIGNING_KEY = {str(key)!r}\nWALSH_SIGNATURE_AGENT = {agent!r}\n"
    )
    return project


def test_the_server_verified_every_request_robots_and_blocklist_included(signing_project, signing_site):
    urls = [signing_site.url("open", "/page/1"), signing_site.url("named", "/members/join")]
    result, items = crawl_targets(signing_project, urls)
    assert result.returncode == 0, result.stderr[-3000:]
    records = signing_site.requests
    paths = {(r["host_key"], r["path"]) for r in records}
    assert ("ops", "/.well-known/walsh-research/blocklist.json") in paths
    assert ("open", "/robots.txt") in paths and ("named", "/robots.txt") in paths
    assert [r["signature"] for r in records] == ["verified"] * len(records), records
    assert all(r["status"] != 401 for r in records)
    assert {items[u]["status"] for u in urls} == {200}


def test_without_a_key_a_site_that_requires_signatures_refuses_us(tmp_path, signing_site):
    project = new_project(tmp_path)
    add_addon_line(project, site=signing_site)
    url = signing_site.url("open", "/page/1")
    result, items = crawl_targets(project, [url])
    records = signing_site.requests
    assert records and all(r["signature"] == "missing" and r["status"] == 401 for r in records)
