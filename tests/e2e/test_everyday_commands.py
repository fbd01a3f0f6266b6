"""``scrapy view URL`` and ``scrapy runspider`` with the add-on, against the demo site.

``view`` is ``fetch`` plus a browser: the URL is a declared target that passes every gate, then
Scrapy opens the page. ``BROWSER`` is a script that records what it was asked to open, so no
browser runs. ``runspider`` fetches the spider's declared target and drops its follow-up (R6).
The assertions are on what the demo server saw."""

from __future__ import annotations

import stat

from scrapy_walsh.settings import USER_AGENT as OUR_UA


def _browser(tmp_path):
    """A ``BROWSER`` command that copies the file it is given next to itself."""
    opened = tmp_path / "opened.html"
    script = tmp_path / "browser.sh"
    script.write_text(f'#!/bin/sh\ncp "${{1#file://}}" {opened}\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return f"{script} %s", opened


def _view(project, url, tmp_path):
    from tests.helpers import run_scrapy

    browser, opened = _browser(tmp_path)
    return run_scrapy(["view", url], cwd=project, env={"BROWSER": browser}, timeout=120), opened


def test_view_obeys_the_gates_then_opens_the_page(project, demo_site, tmp_path):
    refused, opened = _view(project, demo_site.url("open", "/private/secret"), tmp_path)
    assert refused.returncode == 0, refused.stderr[-3000:]
    assert "robots: disallowed_explicit" in refused.stderr, refused.stderr[-3000:]
    assert not opened.exists(), "nothing to open"

    url = demo_site.url("open", "/page/1")
    result, opened = _view(project, url, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    seen = [(r["path"], r["headers"].get("User-Agent")) for r in demo_site.requests if r["host_key"] == "open"]
    assert seen == [("/robots.txt", OUR_UA), ("/page/1", OUR_UA)], "the disallowed page was never requested"
    assert opened.exists(), "the browser was asked to open the page"
    assert "<html" in opened.read_text().lower()
    assert "R6: dropped" not in result.stderr


RUNSPIDER = """
import scrapy


class OneSpider(scrapy.Spider):
    name = "one"

    async def start(self):
        yield scrapy.Request(self.url)

    def parse(self, response):
        yield {"url": response.url, "status": response.status}
        yield response.follow("/page/2")
"""


def test_runspider_fetches_its_declared_target_only(project, demo_site, tmp_path):
    from tests.helpers import run_scrapy

    spider = tmp_path / "one.py"
    spider.write_text(RUNSPIDER)
    url = demo_site.url("open", "/page/1")
    result = run_scrapy(["runspider", str(spider), "-a", f"url={url}", "-O", str(tmp_path / "out.jsonl")], cwd=project)
    assert result.returncode == 0, result.stderr[-3000:]
    seen = [(r["path"], r["headers"].get("User-Agent")) for r in demo_site.requests if r["host_key"] == "open"]
    assert seen == [("/robots.txt", OUR_UA), ("/page/1", OUR_UA)], "the follow-up was dropped (R6)"
    assert '"status": 200' in (tmp_path / "out.jsonl").read_text()
    assert "R6: dropped" in result.stderr
