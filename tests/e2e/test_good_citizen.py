"""A refused crawl in a user's script: one message and exit 1 through Scrapy's own
``bootstrap_failed``, while the script keeps its process (its exit handlers run, its
``sys.excepthook`` stays). Real scripts in real interpreters; the scan of the package is
tests/unit/test_no_process_takeover.py. ``CrawlerProcess`` and ``CrawlerRunner`` hand the refused
crawl's Deferred to ``scrapy_walsh.refusal_reported`` (or Twisted reports it again as "Unhandled
error in Deferred"); a script that awaits ``AsyncCrawlerRunner.crawl()`` catches the
``ConformanceError``. (``scrapy crawl``, ``runspider``: tests/e2e/test_clean_refusal.py.)
"""

from __future__ import annotations

import subprocess
import sys

import pytest

REASON = "CONCURRENT_REQUESTS breaks R4 rate limit and Crawl-delay"

HEAD = """
import atexit, sys
hook = sys.excepthook
import scrapy
from scrapy.crawler import CrawlerProcess, AsyncCrawlerRunner
import scrapy_walsh
from scrapy_walsh import ConformanceError, refusal_reported
from scrapy_walsh.addon import Addon
print("hook kept after the import:", sys.excepthook is hook)
atexit.register(lambda: print("the script's own exit handler ran", flush=True))


class TinySpider(scrapy.Spider):
    name = "tiny"
    start_urls = ["http://127.0.0.1:9/"]


SETTINGS = {"ADDONS": {"scrapy_walsh.Addon": 500}, "CONCURRENT_REQUESTS": 8}
"""

#: what docs/existing-projects.md tells a script to write, for each way of running crawlers
SCRIPTS = {
    "CrawlerProcess": """
process = CrawlerProcess(SETTINGS)
process.crawl(TinySpider).addErrback(refusal_reported)
process.start()
print("hook kept after the crawl:", sys.excepthook is hook)
sys.exit(1 if process.bootstrap_failed else 0)
""",
    "AsyncCrawlerRunner": """
import asyncio
from scrapy.utils.reactor import install_reactor
install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
from twisted.internet import defer, reactor
from scrapy.utils.log import configure_logging
configure_logging()
caught = []

async def main():
    try:
        await AsyncCrawlerRunner(SETTINGS).crawl(TinySpider)
    except ConformanceError as refusal:
        caught.append(refusal)

defer.Deferred.fromFuture(asyncio.ensure_future(main())).addBoth(lambda _: reactor.stop())
reactor.run()
print("hook kept after the crawl:", sys.excepthook is hook)
sys.exit(1 if caught else 0)
""",
    "CrawlerRunner": """
from scrapy.crawler import CrawlerRunner
from scrapy.utils.log import configure_logging
from scrapy.utils.reactor import install_reactor
install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
from twisted.internet import reactor
configure_logging()
runner = CrawlerRunner(SETTINGS)
runner.crawl(TinySpider).addErrback(refusal_reported)
reactor.callLater(0, lambda: runner.join().addBoth(lambda _: reactor.stop()))
reactor.run()
print("hook kept after the crawl:", sys.excepthook is hook)
sys.exit(1 if runner.bootstrap_failed else 0)
""",
    "AsyncCrawlerRunner without Twisted": """
import asyncio
from scrapy.utils.log import configure_logging

async def main():
    configure_logging()
    try:
        await AsyncCrawlerRunner({**SETTINGS, "TWISTED_REACTOR_ENABLED": False}).crawl(TinySpider)
    except ConformanceError:
        return 1  # said once already, as its reasons
    return 0

code = asyncio.run(main())
print("hook kept after the crawl:", sys.excepthook is hook)
sys.exit(code)
""",
}


def _run(tmp_path, body: str) -> subprocess.CompletedProcess:
    script = tmp_path / "run.py"
    script.write_text(HEAD + body)
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("runner", SCRIPTS)
def test_a_refused_crawl_in_a_script_is_one_message_and_exit_1_and_the_process_stays_the_scripts(tmp_path, runner):
    result = _run(tmp_path, SCRIPTS[runner])
    assert result.returncode == 1, result.stderr[-3000:]
    assert result.stderr.count(REASON) == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr and "Unhandled error" not in result.stderr, result.stderr[-3000:]
    assert "[scrapy_walsh] CRITICAL: scrapy_walsh refuses to start this crawl" in result.stderr
    assert "hook kept after the import: True" in result.stdout, result.stdout
    assert "hook kept after the crawl: True" in result.stdout, result.stdout
    assert result.stdout.rstrip().endswith("the script's own exit handler ran"), result.stdout


def test_a_script_that_only_checks_bootstrap_failed_still_exits_1_and_runs_its_exit_handlers(tmp_path):
    """Without the errback, Twisted reports the crawl's failure its own way; the exit status and
    the script's own exit handlers are the script's, as with any crawl that fails to start."""
    result = _run(
        tmp_path,
        """
process = CrawlerProcess(SETTINGS)
process.crawl(TinySpider)
process.start()
print("hook kept after the crawl:", sys.excepthook is hook)
sys.exit(1 if process.bootstrap_failed else 0)
""",
    )
    assert result.returncode == 1, result.stderr[-3000:]
    assert "[scrapy_walsh] CRITICAL: scrapy_walsh refuses to start this crawl" in result.stderr
    assert "hook kept after the crawl: True" in result.stdout, result.stdout
    assert "the script's own exit handler ran" in result.stdout, result.stdout


def test_a_script_that_handles_the_refusal_exits_as_it_chooses(tmp_path):
    result = _run(
        tmp_path,
        """
process = CrawlerProcess(SETTINGS)
process.crawl(TinySpider).addErrback(refusal_reported)
process.start()
assert process.bootstrap_failed
print("handled")
""",
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "handled" in result.stdout and result.stderr.count(REASON) == 1, result.stderr[-3000:]
