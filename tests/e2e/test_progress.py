"""Progress lines: a real crawl of a shop on loopback with ``WALSH_PROGRESS_INTERVAL = 1`` logs,
from ``scrapy_walsh.outputs.progress``, the targets done, refused and left and the time left by the
pacing bound; the ``walsh/progress/*`` stats hold the last figures; 0 switches it off."""

from __future__ import annotations

import re

from tests.helpers import stat
from tests.shop_site import allow_loopback, crawl, declare_pages

LINE = re.compile(
    r"\[scrapy_walsh\.outputs\.progress\] INFO: Targets: (\d+) done \(at \d+ targets/min\), (\d+) refused, (\d+) left; "
    r"(?:(\d+)m )?(\d+)s left at least by the pacing bound \(R4\)"
)


def test_progress_lines_count_targets_and_the_time_left(shop_project, shop):
    allow_loopback(shop_project, 'WALSH_DEDUP_KEY = "sku"\nWALSH_PROGRESS_INTERVAL = 1')
    declare_pages(shop_project, shop.base, pages=5)
    spider = shop_project / "plainproj" / "spiders" / "shop.py"
    # one target the robots.txt disallows: refused by a gate
    spider.write_text(
        spider.read_text().replace("for n in range(1, 6)]", 'for n in range(1, 6)] + ["' + shop.base + '/private/x"]')
    )
    result, items = crawl(shop_project)
    assert result.returncode == 0, result.stderr[-3000:]
    assert len(items) == 5 * 3
    lines = [tuple(int(g or 0) for g in m.groups()) for m in LINE.finditer(result.stderr)]
    assert len(lines) >= 3, result.stderr[-3000:]
    for done, refused, left, minutes, seconds in lines:
        assert done + refused + left <= 6, "five pages and the disallowed target"
        # one host, one request a second: of the targets left, one may be in the downloader and the next
        # starts at the host's next slot, so the last one starts no sooner than left - 2 s from now
        assert minutes * 60 + seconds >= left - 2 - 0.5, lines
    dones = [line[0] for line in lines]
    assert dones == sorted(dones) and dones[0] < 5, "counted as the crawl goes"
    assert stat(result.stderr, "walsh/progress/done") == 5
    assert stat(result.stderr, "walsh/progress/refused") == 1
    assert stat(result.stderr, "walsh/progress/left") == 0
    assert stat(result.stderr, "walsh/progress/seconds_left") == 0


def test_zero_switches_progress_off(shop_project, shop):
    allow_loopback(shop_project, 'WALSH_DEDUP_KEY = "sku"\nWALSH_PROGRESS_INTERVAL = 0')
    declare_pages(shop_project, shop.base, pages=2)
    result, items = crawl(shop_project)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "[scrapy_walsh.outputs.progress]" not in result.stderr
    assert stat(result.stderr, "walsh/progress/done") is None
