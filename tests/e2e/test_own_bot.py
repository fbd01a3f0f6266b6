"""Your own bot, warning-free: a fresh ``scrapy startproject`` project with the three identity
settings the README gives (``WALSH_USER_AGENT``, ``WALSH_ROBOTS_TOKEN``, ``WALSH_BLOCKLIST_URL``)
and a list the crawl can reach. Real ``scrapy walsh check`` and ``scrapy crawl`` against the demo
site on loopback; running as another operator's bot is said once, at INFO, naming it.
"""

from __future__ import annotations

import re

from tests.helpers import GATES_SPIDER, add_addon_line, crawl_targets, run_scrapy, write_spider

OWN_UA = "Mozilla/5.0 (compatible; ExampleBot/1.0; +https://example.com/bot/)"

#: the one warning of these tests' own making: the demo site's hosts are loopback addresses
LOOPBACK_ALLOWANCE = "WALSH_ALLOW_PRIVATE_ADDRESSES"


def _own_bot(project, site):
    add_addon_line(
        project,
        f"\nWALSH_USER_AGENT = {OWN_UA!r}\nWALSH_ROBOTS_TOKEN = 'ExampleBot'\n",
        site=site,  # WALSH_BLOCKLIST_URL: the demo site's list, on loopback
    )
    write_spider(project, "gates", GATES_SPIDER)


def _warnings(text: str) -> list[str]:
    """The WARNING lines of a log, and the ``warn`` rows of ``check``, but the loopback allowance's."""
    return [
        line
        for line in text.splitlines()
        if (" WARNING: " in line or re.match(r"\S+\s+warn\s+\S+:", line)) and LOOPBACK_ALLOWANCE not in line
    ]


def test_check_and_a_crawl_of_your_own_bot_warn_of_nothing(plain_project, demo_site):
    _own_bot(plain_project, demo_site)
    checked = run_scrapy(["walsh", "check"], cwd=plain_project)
    assert checked.returncode == 0, checked.stdout + checked.stderr[-3000:]
    print(checked.stdout)
    assert _warnings(checked.stdout + checked.stderr) == [], checked.stdout
    assert "1 warn, 0 fail" in checked.stdout, checked.stdout  # the loopback allowance, alone
    assert "another operator's bot: 'ExampleBot'" in checked.stdout
    assert "fetched now: a valid list of 1 entries" in checked.stdout, checked.stdout
    result, items = crawl_targets(plain_project, [demo_site.url("open", "/page/1")])
    assert result.returncode == 0, result.stderr[-3000:]
    assert items[demo_site.url("open", "/page/1")]["status"] == 200
    assert _warnings(result.stderr) == [], result.stderr[-5000:]
    said = [line for line in result.stderr.splitlines() if "another operator" in line]
    assert len(said) == 1 and "INFO" in said[0] and "ExampleBot" in said[0], said
    assert {r["headers"].get("User-Agent") for r in demo_site.requests} == {OWN_UA}, "every request went as ExampleBot"


def _no_list(project, site):
    """The demo's settings with a list URL nothing answers: an ops address, a port no one listens on."""
    from demo_site.hosts import HOSTS
    from tests.redis_server import free_port

    add_addon_line(project, f"\nWALSH_BLOCKLIST_URL = 'http://{HOSTS['ops'].ip}:{free_port()}/list.json'\n", site=site)
    write_spider(project, "gates", GATES_SPIDER)


def test_check_warns_when_the_list_cannot_be_fetched(plain_project, demo_site):
    _no_list(plain_project, demo_site)
    checked = run_scrapy(["walsh", "check"], cwd=plain_project)
    assert checked.returncode == 0, checked.stdout + checked.stderr[-3000:]
    rows = [line for line in checked.stdout.splitlines() if "WALSH_BLOCKLIST_URL" in line and "now" in line]
    assert len(rows) == 1 and re.match(r"R3\s+warn\s", rows[0]), checked.stdout
    assert "can't be fetched now" in rows[0] and "EMPTY blocklist" in rows[0], rows


def test_a_crawl_without_a_list_says_so_in_one_warning_not_one_per_request(plain_project, demo_site):
    _no_list(plain_project, demo_site)
    pages = [demo_site.url(host, f"/page/{i}") for host in ("open", "gone") for i in range(1, 5)]
    result, items = crawl_targets(plain_project, pages)
    assert result.returncode == 0, result.stderr[-3000:]
    assert all(items[url]["status"] == 200 for url in pages), items
    said = [line for line in result.stderr.splitlines() if " WARNING: " in line and "blocklist" in line.lower()]
    assert len(said) == 1 and "EMPTY blocklist" in said[0], said
