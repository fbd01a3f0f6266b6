"""A numeric setting that is NaN or infinite is refused at start.

``WALSH_BACKOFF_MAX_DELAY=nan`` was accepted ("paused for nan s"), and so were
``WALSH_MIN_INTERVAL``, ``DOWNLOAD_DELAY`` and ``WALSH_REFETCH_INTERVAL`` as ``nan``: each
now stops ``scrapy crawl`` with one clean message naming the setting, before any request.
"""

from __future__ import annotations

import pytest

from tests.helpers import crawl_targets


@pytest.mark.parametrize(
    "setting",
    [
        "WALSH_BACKOFF_MAX_DELAY=nan",
        "WALSH_BACKOFF_MAX_DELAY=inf",
        "DOWNLOAD_DELAY=nan",
        "WALSH_MIN_INTERVAL=nan",
        "WALSH_REFETCH_INTERVAL=nan",
        "DOWNLOAD_TIMEOUT=inf",
    ],
)
def test_a_setting_that_is_not_a_finite_number_refuses_the_crawl(project, demo_site, setting):
    name, value = setting.split("=")
    result, items = crawl_targets(project, [demo_site.url("open", "/page/1")], "-s", setting)
    assert result.returncode != 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    refusal = [line for line in result.stderr.splitlines() if line.startswith(f"  - {name} breaks ")]
    assert len(refusal) == 1, result.stderr[-3000:]
    assert f"{value!r}" in refusal[0] and "NaN and infinity are refused" in refusal[0]
    assert result.stderr.count("scrapy_walsh refuses to start this crawl") == 1
    assert demo_site.requests == [], "no request may reach the server"
    assert items == {}
