"""A refusal inside a script is one clean message: on the Twisted reactor, and uncaught.

``CrawlerProcess`` and ``CrawlerRunner`` run on Twisted: the refused crawl's Deferred is
dropped by the script, and Twisted reports it as "Unhandled error in Deferred" with a
traceback, straight to stderr, before Scrapy's logging sees it. The add-on refuses
``CONCURRENT_REQUESTS = 8`` (R4); the user must see our reasons once, nothing else.
A script that awaits ``AsyncCrawlerRunner.crawl()`` gets the ``ConformanceError`` itself; left
uncaught, it reaches the top level, where Python would print its traceback.
(``scrapy crawl``, ``runspider`` and ``AsyncCrawlerProcess``: tests/e2e/test_clean_refusal.py.)
"""

from __future__ import annotations

import subprocess
import sys

import pytest

SPIDER = """
import sys

import scrapy


class TinySpider(scrapy.Spider):
    name = "tiny"
    start_urls = ["http://127.0.0.1:9/"]


SETTINGS = {"ADDONS": {"scrapy_walsh.Addon": 500}, "CONCURRENT_REQUESTS": 8}
"""

SCRIPTS = {
    "CrawlerProcess": """
from scrapy.crawler import CrawlerProcess

process = CrawlerProcess(SETTINGS)
process.crawl(TinySpider)
process.start()
sys.exit(1 if process.bootstrap_failed else 0)
""",
    "CrawlerRunner": """
from scrapy.crawler import CrawlerRunner
from scrapy.utils.log import configure_logging
from scrapy.utils.reactor import install_reactor

install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
from twisted.internet import reactor

configure_logging()
runner = CrawlerRunner(SETTINGS)
runner.crawl(TinySpider)
reactor.callLater(0, lambda: runner.join().addBoth(lambda _: reactor.stop()))
reactor.run()
sys.exit(1 if runner.bootstrap_failed else 0)
""",
    "AsyncCrawlerRunner": """
import asyncio

from scrapy.crawler import AsyncCrawlerRunner
from scrapy.utils.log import configure_logging


async def main():
    configure_logging()
    await AsyncCrawlerRunner({**SETTINGS, "TWISTED_REACTOR_ENABLED": False}).crawl(TinySpider)


asyncio.run(main())  # the ConformanceError is not caught: it reaches the top level
""",
}

REASON = "CONCURRENT_REQUESTS breaks R4 rate limit and Crawl-delay"


@pytest.mark.parametrize("entry", sorted(SCRIPTS))
def test_script_entry_points_refuse_in_one_message(tmp_path, entry):
    script = tmp_path / "run.py"
    script.write_text(SPIDER + SCRIPTS[entry])
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    err = result.stderr
    assert result.returncode == 1, err[-3000:]
    assert err.count(REASON) == 1, err[-3000:]
    assert "[scrapy_walsh] CRITICAL: scrapy_walsh refuses to start this crawl" in err, err[-3000:]
    assert "Unhandled error in Deferred" not in err, err[-3000:]
    assert "Traceback" not in err, err[-3000:]
