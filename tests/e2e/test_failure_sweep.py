"""Every failure is one clean message, no traceback, the documented exit status
(docs/commands.md, "Exit status and failures")."""

from __future__ import annotations

import pytest

from tests.helpers import add_addon_line, run_scrapy, write_spider

SPIDER = """
import scrapy


class TinySpider(scrapy.Spider):
    name = "tiny"
    start_urls = ["http://127.0.0.1:9/"]
"""

BAD_SETTINGS = {
    "WALSH_MIN_INTERVAL": "abc",
    "WALSH_STATE_URI": "redis://127.0.0.1:1/0",
    "WALSH_DOWNLOAD_HANDLER": "no.such.module.Handler",
    "WALSH_PACE_BY": "moon",
    "WALSH_BLOCKLIST_URL": "ftp://example.com/list.json",
    "WALSH_BACKOFF_MAX_RETRIES": "-1",
}


@pytest.fixture(scope="module")
def tiny_project(tmp_path_factory):
    from tests.helpers import new_project

    project = new_project(tmp_path_factory.mktemp("sweep"))
    add_addon_line(project)
    write_spider(project, "tiny", SPIDER)
    return project


@pytest.mark.parametrize(("name", "value"), BAD_SETTINGS.items(), ids=BAD_SETTINGS.keys())
def test_a_bad_setting_is_one_message_naming_it_and_exit_1(tiny_project, name, value):
    result = run_scrapy(["crawl", "tiny", "-s", f"{name}={value}"], cwd=tiny_project)
    assert result.returncode == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr and "Unhandled error" not in result.stderr, result.stderr[-3000:]
    assert name in result.stderr
    assert result.stderr.count("scrapy_walsh refuses to start this crawl") == 1, result.stderr[-3000:]


@pytest.mark.parametrize(
    "args",
    [
        ["explain", "http://[::1"],
        ["explain", "http://127.0.0.1:99999/x"],
        ["state", "forget", "http://127.0.0.1:99999/x"],
        ["state", "show", "http://[::1/x"],
    ],
)
def test_a_malformed_url_is_answered_in_one_line(tiny_project, args):
    result = run_scrapy(["walsh", *args], cwd=tiny_project)
    assert result.returncode == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and args[-1] in lines[0], result.stderr
