"""A host the crawl is done with keeps no connection of ours open.

Scrapy's HTTP/1.1 pool keeps each host's connection for 240 s after its last answer. A crawl of
many hosts then holds one socket per host it met in the last four minutes, on both ends: at a
few hundred new hosts a second that passes a 1,024-descriptor limit in seconds, and every
server keeps a connection (a thread, in a thread-per-connection server) for nothing. Judged by
the demo server: when each connection ended, against the crawl still running on another host.
"""

from __future__ import annotations

import pytest

from demo_site.hosts import HOSTS
from scrapy_walsh.sending.handler_pool import IDLE_CONNECTION_SECONDS as IDLE
from tests.e2e.test_checkpoint_resends import AIOHTTP
from tests.helpers import run_scrapy, write_spider

#: Seconds after the idle time by which the connection is closed: aiohttp looks for idle
#: connections once per idle time, so it closes one up to twice that after its last use.
CLOSED_WITHIN = 2 * IDLE + 1
#: Pages of the second host: the crawl runs well past the first host's idle time.
LONG_PAGES = 12

SPIDER = """
import scrapy


class TwoHostsSpider(scrapy.Spider):
    name = "twohosts"

    async def start(self):
        yield scrapy.Request({one!r})
        for url in {many!r}:
            yield scrapy.Request(url)

    def parse(self, response):
        yield {{"url": response.url}}
"""


def url(site, handler: str, key: str, page: int) -> str:
    named = site.url(key, f"/page/{page}")
    return named if handler == "twisted" else named.replace(HOSTS[key].name, HOSTS[key].ip)


@pytest.mark.parametrize("handler", ["twisted", "aiohttp"])
def test_a_finished_hosts_connection_is_closed_while_the_crawl_goes_on(project, demo_site, handler):
    if handler == "aiohttp":
        pytest.importorskip("aiohttp")
        settings = project / "plainproj" / "settings.py"
        settings.write_text(settings.read_text() + f"\nWALSH_DOWNLOAD_HANDLER = {AIOHTTP!r}\n")
    # aiohttp resolves names itself, not through the demo resolver: it is sent to the addresses
    one, many = (
        url(demo_site, handler, "open", 1),
        [url(demo_site, handler, "htmlonly", i) for i in range(1, LONG_PAGES + 1)],
    )
    write_spider(project, "twohosts", SPIDER.format(one=one, many=many))
    result = run_scrapy(["crawl", "twohosts"], cwd=project)
    assert result.returncode == 0, result.stderr[-3000:]
    seen = demo_site.requests
    assert len([r for r in seen if r["path"].startswith("/page/")]) == LONG_PAGES + 1, result.stderr[-3000:]
    last_answer = max(r["mono"] for r in seen if r["host_key"] == "open")
    crawl_end = max(r["mono"] for r in seen if r["host_key"] == "htmlonly")
    closed = [c["closed"] for c in demo_site.connections if c["ip"] == HOSTS["open"].ip]
    print(
        f"open's connections closed {[round(c - last_answer, 2) for c in closed]} s after its last request; "
        f"the crawl's last request {crawl_end - last_answer:.2f} s after it"
    )
    assert crawl_end - last_answer > CLOSED_WITHIN + 2, "the crawl did not outlast the first host's idle time"
    assert closed, "the server saw no connection to the first host end"
    assert max(closed) < last_answer + CLOSED_WITHIN, "a connection to the finished host stayed open"
