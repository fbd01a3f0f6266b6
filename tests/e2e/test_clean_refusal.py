"""A refused start is one clean message: the reasons once, no traceback, a non-zero exit.

Driven through real ``scrapy crawl`` and ``scrapy runspider`` processes, and a script using
``AsyncCrawlerProcess``: the add-on refuses ``CONCURRENT_REQUESTS = 8`` (R4) in each.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from ..helpers import add_addon_line, run_scrapy, write_spider

SPIDER = """
import scrapy


class TinySpider(scrapy.Spider):
    name = "tiny"
    start_urls = ["http://127.0.0.1:9/"]
"""

REASON = "CONCURRENT_REQUESTS breaks R4 rate limit and Crawl-delay (checklist #4)"


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
