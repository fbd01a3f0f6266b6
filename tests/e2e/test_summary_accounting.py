"""The summary accounts for what the spider asked for, and survives ``-L WARNING``."""

from __future__ import annotations

import re

from tests.helpers import crawl_targets


def test_summary_and_first_denials_survive_warning_level_and_dns_failures_are_not_sent(project, demo_site):
    port = demo_site.url("open", "/").rsplit(":", 1)[1].split("/")[0]
    urls = [
        demo_site.url("open", "/page/1"),
        demo_site.url("open", "/private/secret"),
        f"http://nowhere.walsh-demo.test:{port}/page/1",
    ]
    result, _ = crawl_targets(project, urls, "-L", "WARNING", "-s", "RETRY_ENABLED=False")
    assert result.returncode == 0, result.stderr[-3000:]
    log = result.stderr
    assert "scrapy_walsh compliance summary" in log, "the summary is a WARNING"
    assert "robots: disallowed_explicit" in log and "the first robots/disallowed_explicit refusal" in log
    assert "`scrapy walsh explain URL` shows the line" in log
    sent = int(re.search(r"requests sent +(\d+) to", log).group(1))
    assert sent == len(demo_site.requests), "sent is what the server saw (the name that never resolved is not)"
    assert "Dumping Scrapy stats" not in log, "the run really was at WARNING"
    assert "not connected     1: nothing was sent (dns: 1)" in log
