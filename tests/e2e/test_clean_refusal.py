"""A refused start is one clean message: the reasons once, no traceback, a non-zero exit.

Driven through real ``scrapy crawl`` and ``scrapy runspider`` processes, and a script using
``AsyncCrawlerProcess``: the add-on refuses ``CONCURRENT_REQUESTS = 8`` (R4) in each.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import add_addon_line, run_scrapy, write_spider

SPIDER = """
import scrapy


class TinySpider(scrapy.Spider):
    name = "tiny"
    start_urls = ["http://127.0.0.1:9/"]
"""

REASON = "CONCURRENT_REQUESTS breaks R4 rate limit and Crawl-delay"


def _assert_clean(result: subprocess.CompletedProcess) -> None:
    assert result.returncode != 0
    assert result.stderr.count(REASON) == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    assert "Task exception was never retrieved" not in result.stderr
    assert "[scrapy_walsh] CRITICAL: scrapy_walsh refuses to start this crawl" in result.stderr


@pytest.mark.parametrize("how", ["crawl", "runspider"])
def test_scrapy_commands_refuse_in_one_message(plain_project, how):
    add_addon_line(plain_project)
    write_spider(plain_project, "tiny", SPIDER)
    if how == "crawl":
        result = run_scrapy(["crawl", "tiny", "-s", "CONCURRENT_REQUESTS=8"], cwd=plain_project)
    else:
        spider = plain_project / "plainproj" / "spiders" / "tiny.py"
        result = run_scrapy(["runspider", str(spider), "-s", "CONCURRENT_REQUESTS=8"], cwd=plain_project)
    _assert_clean(result)


def test_async_crawler_process_refuses_in_one_message(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(
        SPIDER
        + """
import sys
from scrapy.crawler import AsyncCrawlerProcess

process = AsyncCrawlerProcess({"ADDONS": {"scrapy_walsh.Addon": 500}, "CONCURRENT_REQUESTS": 8})
process.crawl(TinySpider)
process.start()
sys.exit(1 if process.bootstrap_failed else 0)
"""
    )
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    _assert_clean(result)


#: A script that runs crawlers itself, as docs/existing-projects.md says: it hands a Deferred's
#: refusal to ``refusal_reported`` (or consumes it) and exits 1 on Scrapy's ``bootstrap_failed``.
RUNNERS = {
    "CrawlerProcess": """
from scrapy.crawler import CrawlerProcess
from scrapy_walsh import refusal_reported
process = CrawlerProcess(SETTINGS)
for spider in SPIDERS:
    process.crawl(spider).addErrback(refusal_reported)
process.start()
runner = process
""",
    "CrawlerRunner": """
from scrapy.utils.reactor import install_reactor
install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
from twisted.internet import defer, reactor
from scrapy.crawler import CrawlerRunner
from scrapy.utils.log import configure_logging
configure_logging()
runner = CrawlerRunner(SETTINGS)
done = defer.DeferredList([runner.crawl(spider) for spider in SPIDERS], consumeErrors=True)
done.addBoth(lambda _: reactor.callLater(0, reactor.stop))  # it may fire before run()
reactor.run()
""",
    "AsyncCrawlerRunner": """
import asyncio
from scrapy.utils.reactor import install_reactor
install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
from twisted.internet import defer, reactor
from scrapy.crawler import AsyncCrawlerRunner
from scrapy.utils.log import configure_logging
configure_logging()

runner = AsyncCrawlerRunner(SETTINGS)

async def main():
    await asyncio.gather(*(runner.crawl(spider) for spider in SPIDERS), return_exceptions=True)

defer.Deferred.fromFuture(asyncio.ensure_future(main())).addBoth(lambda _: reactor.stop())
reactor.run()
""",
}


def _script(tmp_path, runner: str, crawlers: int, setting: str) -> subprocess.CompletedProcess:
    script = tmp_path / "run.py"
    script.write_text(
        SPIDER
        + f"""
class OtherSpider(TinySpider):
    name = "other"

import sys
SETTINGS = {{"ADDONS": {{"scrapy_walsh.Addon": 500}}, {setting}}}
SPIDERS = [TinySpider, OtherSpider][:{crawlers}]
"""
        + RUNNERS[runner]
        + "\nprint('the script ends normally')\nsys.exit(1 if runner.bootstrap_failed else 0)\n"
    )
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("crawlers", [1, 2])
@pytest.mark.parametrize("runner", RUNNERS)
def test_a_refusal_exits_non_zero_in_every_runner(tmp_path, runner, crawlers):
    result = _script(tmp_path, runner, crawlers, '"CONCURRENT_REQUESTS": 8')
    assert "the script ends normally" in result.stdout, result.stderr[-3000:]
    assert result.returncode == 1, result.stderr[-3000:]
    assert 1 <= result.stderr.count(REASON) <= crawlers, result.stderr[-3000:]  # one per distinct refusal
    assert "Traceback" not in result.stderr, result.stderr[-3000:]


@pytest.mark.parametrize(
    ("uri", "why"),
    [("redis://127.0.0.1:1/0", "127.0.0.1:1"), ("sqlite:////proc/walsh-nowhere/x.sqlite3", "walsh-nowhere")],
)
def test_a_store_that_cannot_be_opened_is_one_message_and_a_non_zero_exit(tmp_path, uri, why):
    result = _script(tmp_path, "CrawlerProcess", 2, f'"WALSH_STATE_URI": {uri!r}')
    assert result.returncode == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr and "Unhandled error" not in result.stderr, result.stderr[-3000:]
    message = f"WALSH_STATE_URI: the state store {uri} can't be opened"
    assert result.stderr.count(message) == 2, result.stderr[-3000:]  # one per crawler
    assert why in result.stderr


# --- Output paths Scrapy would trip on once started: refused at start, by name ---------------


@pytest.mark.parametrize(
    ("args", "setting", "why"),
    [
        (["-s", "JOBDIR=123"], "JOBDIR='123'", "it is a file, not a directory"),
        (["-s", "JOBDIR=123/state"], "JOBDIR='123/state'", "'123' is a file, so the directory can't be made"),
        (["-s", "JOBDIR=/proc/walsh-jobdir"], "JOBDIR='/proc/walsh-jobdir'", "nothing can be written in '/proc'"),
        (["-o", "123/items.jsonl"], "FEEDS output '123/items.jsonl'", "'123' is a file"),
        (["-O", "/sys/walsh/%(name)s.jsonl"], "FEEDS output '/sys/walsh/%(name)s.jsonl'", "nothing can be written"),
        (["-o", "out:jsonl"], "FEEDS output 'out'", "it is a directory, not a file"),
    ],
)
def test_an_output_path_scrapy_would_trip_on_is_refused_at_start(plain_project, args, setting, why):
    """``JOBDIR=123`` where ``123`` is a file gave stock Scrapy's traceback and exit 0; a feed
    that can't be written lost its items. Now: one message naming the setting, exit 1, no
    traceback, nothing sent."""
    add_addon_line(plain_project)
    write_spider(plain_project, "tiny", SPIDER)
    (plain_project / "123").write_text("a file")
    (plain_project / "out").mkdir()
    result = run_scrapy(["crawl", "tiny", *args], cwd=plain_project)
    assert result.returncode == 1, result.stderr[-3000:]
    assert result.stderr.count(setting) == 1 and f"): {why}" in result.stderr, result.stderr[-3000:]
    assert "Traceback" not in result.stderr and "Unhandled error" not in result.stderr, result.stderr[-3000:]
    assert "[scrapy_walsh] CRITICAL: scrapy_walsh refuses to start this crawl" in result.stderr


def test_a_writable_jobdir_and_feed_are_not_refused(plain_project):
    add_addon_line(plain_project)
    write_spider(plain_project, "tiny", SPIDER)
    result = run_scrapy(
        [
            "walsh",
            "check",
            "-s",
            "JOBDIR=state/job",
            "-s",
            'FEEDS={"new/dir/items-%(name)s.jsonl": {"format": "jsonlines"}}',
        ],
        cwd=plain_project,
    )
    assert "JOBDIR" not in result.stdout + result.stderr and "FEEDS" not in result.stdout + result.stderr, result.stdout
    assert not (plain_project / "state").exists() and not (plain_project / "new").exists()  # nothing made
