"""R4 "serial per process", whatever runs in the process.

Scrapy documents running several spiders in one ``CrawlerProcess``; each crawler has its own
checkpoint. Two spiders in one script, against the demo site answering every request after
0.3 s, must still put at most one request on the network at a time (the server's own
``in_flight`` count, taken as each request arrives), and keep each host's 1 s spacing.
The script runs as a subprocess, as a user runs it, under ``CrawlerProcess`` and under
``CrawlerRunner``.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from demo_site import DemoSite
from tests.helpers import CLOCK_TOLERANCE, demo_settings, gaps_by_host

PAGES = 3
SPIDERS = {"first": ("open", "gone"), "second": ("htmlonly", "llmsonly")}

HEAD = """
import sys

import scrapy

{settings}

class PagesSpider(scrapy.Spider):
    async def start(self):
        for page in range(1, {pages} + 1):
            for base in self.bases:
                yield scrapy.Request(f"{{base}}/page/{{page}}", dont_filter=True)

    def parse(self, response):
        yield {{"url": response.url}}


def spider(name, bases):
    return type(name, (PagesSpider,), {{"name": name, "bases": bases}})


SPIDERS = [spider(name, bases) for name, bases in {spiders!r}.items()]
SETTINGS = {{
    "ADDONS": {{"scrapy_walsh.Addon": 500}},
    "WALSH_STATE_URI": {state!r},
    "LOG_LEVEL": "INFO",
    **{{k: v for k, v in globals().items() if k.isupper() and k.startswith(("WALSH_", "TWISTED_", "DNS_"))}},
}}
"""

RUNNERS = {
    "CrawlerProcess": """
from scrapy.crawler import CrawlerProcess

process = CrawlerProcess(SETTINGS)
for cls in SPIDERS:
    process.crawl(cls)
process.start()
""",
    "CrawlerRunner": """
from scrapy.crawler import CrawlerRunner
from scrapy.utils.log import configure_logging
from scrapy.utils.reactor import install_reactor

install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
from twisted.internet import reactor

configure_logging()
runner = CrawlerRunner(SETTINGS)
for cls in SPIDERS:
    runner.crawl(cls)
reactor.callLater(0, lambda: runner.join().addBoth(lambda _: reactor.stop()))
reactor.run()
""",
}


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_two_spiders_in_one_process_send_one_request_at_a_time(tmp_path, runner):
    with DemoSite(latency=0.3) as site:
        # by address: a CrawlerRunner script installs no resolver, so the demo names don't resolve
        spiders = {name: [site.url(key, by_ip=True).rstrip("/") for key in keys] for name, keys in SPIDERS.items()}
        script = tmp_path / "two_spiders.py"
        script.write_text(
            HEAD.format(
                settings=demo_settings(site),
                pages=PAGES,
                spiders=spiders,
                state=f"sqlite:///{tmp_path / 'state.sqlite3'}",
            )
            + RUNNERS[runner]
        )
        result = subprocess.run(
            [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=240
        )
        seen = site.requests
    assert result.returncode == 0, result.stderr[-3000:]
    pages = [r for r in seen if r["path"].startswith("/page/")]
    # every page of both spiders was fetched: both crawls ran, side by side
    assert len(pages) == PAGES * sum(len(keys) for keys in SPIDERS.values()), [r["path"] for r in seen]
    assert max(r["in_flight"] for r in seen) == 1, [(r["host_key"], r["path"], r["in_flight"]) for r in seen]
    # and the server saw no overlap: each request's reply had begun before the next one arrived
    # (a serial client can't send sooner; "end", after the handler's own flush, can come later
    # than the next arrival on a loaded machine without any concurrency)
    ordered = sorted(seen, key=lambda r: r["mono"])
    overlaps = [(a["path"], b["path"]) for a, b in zip(ordered, ordered[1:]) if b["mono"] < (a["replied"] or a["end"])]
    assert not overlaps, overlaps
    for host, gaps in gaps_by_host(seen).items():
        assert all(gap >= 1.0 - CLOCK_TOLERANCE for gap in gaps), (host, gaps)
