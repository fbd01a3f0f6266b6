"""The address guard in real crawls: loopback targets are refused, the sentinels see nothing.

Only 127.0.0.0/8 and ::1 are ever targeted here. The demo server binds sentinels on
127.0.0.1 and [::1] that record any contact; the crawls allow only the demo hosts' own
/32s (``demo_settings``), so every request to a sentinel must be refused before it is sent.
"""

from __future__ import annotations

import pytest

from demo_site import DemoSite
from tests.helpers import add_addon_line, crawl_targets, new_project, stat


@pytest.fixture(scope="module")
def site():
    with DemoSite(sentinels=True) as site:
        assert "127.0.0.1" in site.sentinel_ips
        yield site


@pytest.fixture(scope="module")
def guarded(site, tmp_path_factory):
    """One crawl: the sentinels by IP literal and by names resolving to them, plus a demo page."""
    project = new_project(tmp_path_factory.mktemp("guard"))
    add_addon_line(project, site=site)
    port = site.port
    targets = {
        "v4": f"http://127.0.0.1:{port}/page/v4",
        "v6": f"http://[::1]:{port}/page/v6",
        "name": f"http://loopback.walsh-demo.test:{port}/page/name",
        "name6": f"http://loopback6.walsh-demo.test:{port}/page/name6",
        "mapped": f"http://[::ffff:127.0.0.1]:{port}/page/mapped",
        "decimal": f"http://2130706433:{port}/page/decimal",
        "demo": site.url("open", "/page/allowed"),
        "redirect": site.url("open", f"/redirect?to=http://127.0.0.1:{port}/page/redirected"),
    }
    site.reset()
    result, items = crawl_targets(project, list(targets.values()))
    assert result.returncode == 0, result.stderr[-3000:]
    return targets, result.stderr, items, site.requests


def site_port(targets):
    return int(targets["v4"].split(":")[2].split("/")[0])


REFUSED = ["v4", "v6", "name", "name6", "mapped", "decimal", "redirect"]


def test_the_sentinels_saw_nothing(guarded):
    targets, log, items, seen = guarded
    assert [r for r in seen if r["host_key"] == "sentinel"] == []
    # the allowed demo host was crawled: the guard refuses what it must, nothing more
    assert sorted(r["path"] for r in seen if r["host_key"] == "open") == sorted(
        ["/robots.txt", "/page/allowed", targets["redirect"].split(str(site_port(targets)), 1)[1]]
    )
    assert items[targets["demo"]]["status"] == 200


@pytest.mark.parametrize("key", REFUSED)
def test_each_loopback_target_is_refused_with_the_address_verdict(guarded, key):
    targets, log, items, seen = guarded
    # a redirect hop is a new request: the refusal names the hop's URL
    item = items[targets[key] if key != "redirect" else targets["v4"].replace("/page/v4", "/page/redirected")]
    assert (item["denied"], item["verdict"]) == ("address", "private_address")
    assert item["details"]["address_class"] == "loopback"
    assert item["details"]["stage"] == "request"
    assert item["details"]["address"] in ("127.0.0.1", "::1", "::ffff:127.0.0.1", "::ffff:7f00:1")
    assert "WALSH_ALLOW_PRIVATE_ADDRESSES" in item["reason"]


def test_refusals_are_counted_and_never_retried(guarded):
    targets, log, items, seen = guarded
    assert stat(log, "walsh/address/refused") == len(REFUSED)
    assert stat(log, "walsh/address/refused/loopback") == len(REFUSED)
    assert stat(log, "walsh/denied/address/private_address") == len(REFUSED)
    assert stat(log, "retry/count") is None
    assert stat(log, "walsh/robots/fetched") == 1  # open's only: a refused target costs no robots.txt


@pytest.fixture(scope="module")
def rebound(site, tmp_path_factory):
    """A name that answers a permitted address when checked, loopback when connected.

    robots.txt is not consulted in this crawl (``ignore``): its fetch would be a second
    check of the name and take the loopback answer itself. The target is then checked
    once (open's 127.0.0.2) and connected once (127.0.0.1): only the connect-time guard
    stands between the crawler and the sentinel.
    """
    project = new_project(tmp_path_factory.mktemp("rebind"))
    add_addon_line(project, site=site, extra='\nWALSH_ROBOTS_MODE = "ignore"\n')
    url = f"http://rebind.walsh-demo.test:{site.port}/page/rebind"
    site.reset()
    result, items = crawl_targets(project, [url])
    assert result.returncode == 0, result.stderr[-3000:]
    return url, result.stderr, items, site.requests


def test_dns_rebinding_is_refused_at_connect_time(rebound):
    url, log, items, seen = rebound
    # only the operator blocklist (ops) was fetched: neither the sentinel, nor open (the
    # address the check saw)
    assert {r["host_key"] for r in seen} == {"ops"}
    item = items[url]
    assert (item["denied"], item["verdict"]) == ("address", "private_address")
    assert item["details"]["stage"] == "connect"
    assert item["details"]["address"] == "127.0.0.1"
    assert stat(log, "walsh/address/refused_at/connect") == 1
    # the refused connection sent nothing: only the blocklist and its schema count as sent
    assert stat(log, "walsh/requests/sent") == len(seen)
    assert stat(log, "walsh/requests/host/rebind.walsh-demo.test", 0) == 0
    assert stat(log, "retry/count") is None
    assert "refused at connect time" in log
