"""The site owner's report after a real crawl of a host answering 429 with Retry-After: the 429 and
the pause after it are on the timeline and in the table, the axes carry values, the dashed line is
labelled, ``show --requests`` lists every request with its status, and an unsigned journal is
never styled as verified. The page is rendered by a real headless Chromium."""

from __future__ import annotations

import re

import pytest

from tests.e2e.browser import png_pixels_not_blank, render
from tests.helpers import CLOCK_TOLERANCE, crawl_targets, run_scrapy

RETRY_AFTER = 3


@pytest.fixture
def crawled(project, demo_site, tmp_path):
    journal = tmp_path / "journal"
    urls = [demo_site.url("busy", f"/status/429?times=1&retry-after={RETRY_AFTER}"), demo_site.url("busy", "/page/1")]
    result, _ = crawl_targets(project, urls, "-s", f"WALSH_JOURNAL_DIR={journal}")
    assert result.returncode == 0, result.stderr[-3000:]
    seen = [r for r in demo_site.requests if r["host_key"] == "busy" and r["path"] != "/robots.txt"]
    assert [r["status"] for r in seen][:2] == [429, 200]  # the server answered 429, then the retry
    host = seen[0]["host"].split(":")[0]
    return {"project": project, "journal": journal, "host": host, "seen": seen}


def journal(crawled, *args):
    return run_scrapy(["walsh", "journal", *map(str, args)], cwd=crawled["project"])


def test_the_report_shows_the_429_and_the_retry_after_pause(crawled, tmp_path):
    page = tmp_path / "report.html"
    result = journal(crawled, "report", "--host", crawled["host"], "--journal", crawled["journal"], "--html", page)
    assert result.returncode == 0, result.stdout + result.stderr
    text = page.read_text()
    # the 429 is marked on the timeline, with the pause after it shaded and labelled with its length
    assert 'class="pausing-answer"' in text and 'class="pause"' in text
    pause = float(re.search(r"after the 429: (\d+\.\d) s</text>", text)[1])
    assert pause >= RETRY_AFTER - CLOCK_TOLERANCE
    # the table: the 429 row, and the retry's row says it came after a pause, not "the 1 s floor"
    row = re.search(r'<tr class="after-pause">(.*?)</tr>', text)[1]
    # the writer recorded why the retry waited: the server's Retry-After
    assert "(your Retry-After)" in row and "the 1 s floor" not in text
    assert re.search(r'<tr class="pausing">.*?<td>429</td>', text)
    # both axes carry values; the dashed line says what it is, with its value
    assert len(re.findall(r'class="y-tick">[\d.]+ s<', text)) >= 3
    assert len(re.findall(r'class="x-tick">\d\d:\d\d:\d\d<', text)) == 5
    assert re.search(r'class="interval-label"[^>]*>interval applied: 1 s \(', text)
    # an unsigned journal: said so, never in the verified style
    assert 'data-verification="unverified"' in text and "NOT VERIFIED" in text


def test_show_requests_lists_every_request_with_its_status(crawled):
    result = journal(crawled, "show", "--host", crawled["host"], "--journal", crawled["journal"], "--requests")
    assert result.returncode == 0, result.stderr
    row = re.compile(r"\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\s+gap")
    listed = [line for line in result.stdout.splitlines() if row.match(line)]
    pages = [line for line in listed if "/robots.txt" not in line]
    assert [re.search(r"\s(\d{3})\s+\[", line)[1] for line in pages] == [str(r["status"]) for r in crawled["seen"]]
    assert "/status/429" in pages[0] and "the host asked us to slow down" in pages[0]
    assert "/status/429" in pages[1] and "(your Retry-After)" in pages[1]  # the retry, after Retry-After
    assert "NOT VERIFIED" in result.stdout and "verified:" not in result.stdout


def test_the_report_renders_in_a_real_browser_with_the_pause(crawled, tmp_path):
    page = tmp_path / "report.html"
    made = journal(crawled, "report", "--host", crawled["host"], "--journal", crawled["journal"], "--html", page)
    assert made.returncode == 0, made.stderr
    dom, png = render(page, tmp_path)
    assert "after the 429:" in dom and 'class="pausing-answer"' in dom
    assert png_pixels_not_blank(png)
