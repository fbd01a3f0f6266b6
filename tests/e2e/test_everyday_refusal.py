"""A refusal inside a script is one clean message, written as docs/existing-projects.md says.

``CrawlerProcess`` and ``CrawlerRunner`` run on Twisted: the script hands the refused crawl's
Deferred to ``scrapy_walsh.refusal_reported``, or Twisted reports it again as "Unhandled error in
Deferred" with a traceback. A script that awaits ``AsyncCrawlerRunner.crawl()`` gets the
``ConformanceError`` itself, to catch. The add-on refuses ``CONCURRENT_REQUESTS = 8`` (R4); the
user sees our reasons once, nothing else. (``scrapy crawl``, ``runspider`` and
``AsyncCrawlerProcess``: tests/e2e/test_clean_refusal.py.)
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

from scrapy_walsh import refusal_reported

process = CrawlerProcess(SETTINGS)
process.crawl(TinySpider).addErrback(refusal_reported)
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
from scrapy_walsh import refusal_reported

runner = CrawlerRunner(SETTINGS)
runner.crawl(TinySpider).addErrback(refusal_reported)
reactor.callLater(0, lambda: runner.join().addBoth(lambda _: reactor.stop()))
reactor.run()
sys.exit(1 if runner.bootstrap_failed else 0)
""",
    "AsyncCrawlerRunner": """
import asyncio

from scrapy.crawler import AsyncCrawlerRunner
from scrapy.utils.log import configure_logging
from scrapy_walsh import ConformanceError


async def main():
    configure_logging()
    try:
        await AsyncCrawlerRunner({**SETTINGS, "TWISTED_REACTOR_ENABLED": False}).crawl(TinySpider)
    except ConformanceError:
        sys.exit(1)  # said once already, as its reasons


asyncio.run(main())
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
