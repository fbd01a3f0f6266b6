"""Progress lines: a real crawl of a shop on loopback with ``WALSH_PROGRESS_INTERVAL = 1`` logs,
from ``scrapy_walsh.outputs.progress``, the targets done, refused and left and the time left by the
pacing bound; the ``walsh/progress/*`` stats hold the last figures; 0 switches it off."""

from __future__ import annotations

import re
from pathlib import Path

from tests.blog_site import Blog
from tests.helpers import add_addon_line, crawl_targets, new_project, run_scrapy, stat, write_spider
from tests.shop_site import allow_loopback, crawl, declare_pages

LINK_PROJECTS = Path(__file__).parent.parent / "data" / "link_projects"

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


#: Any progress line, whatever it says.
ANY_LINE = re.compile(r"\[scrapy_walsh\.outputs\.progress\] INFO: (Targets: .*)")


def test_a_short_crawl_gets_its_first_line_early(project, demo_site):
    """With the default interval (60 s), a crawl of about 15 s said nothing: its first line now
    comes after 10 s, counted as the crawl goes."""
    urls = [demo_site.url("open", f"/page/{n}") for n in range(1, 16)]
    result, items = crawl_targets(project, urls)
    assert result.returncode == 0, result.stderr[-3000:]
    assert len(items) == 15
    lines = [m.group(0) for m in ANY_LINE.finditer(result.stderr)]
    assert len(lines) == 1, result.stderr[-3000:]
    done = int(LINE.search(lines[0]).group(1))
    assert 0 < done < 15, lines


def test_while_manifests_are_read_the_line_says_so(tmp_path):
    """Discovery reads the blog's robots.txt and three sitemaps (one a second) before its posts:
    the line said "0 done, 0 left; 0s left" meanwhile."""
    site = Blog().start()
    try:
        project = new_project(tmp_path)
        write_spider(project, "blog", (LINK_PROJECTS / "blog_crawl.py").read_text().replace("{base}", site.base))
        add_addon_line(
            project,
            '\nWALSH_ALLOW_PRIVATE_ADDRESSES = ["127.0.0.1"]\nWALSH_DISCOVERY = ["sitemap"]\n'
            "WALSH_PROGRESS_INTERVAL = 1\n",
        )
        result = run_scrapy(["crawl", "blog"], cwd=project)
    finally:
        site.shutdown()
        site.server_close()
    assert result.returncode == 0, result.stderr[-3000:]
    lines = [m.group(1) for m in ANY_LINE.finditer(result.stderr)]
    reading = [line for line in lines if line.startswith("Targets: reading ")]
    assert reading and lines.index(reading[0]) == 0, lines
    assert re.match(r"Targets: reading (the manifests|[1-3] manifests?) of 1 site \(\d read\); \d+ done", reading[0]), (
        reading
    )
    assert any(line.startswith("Targets: reading 3 manifests of 1 site") for line in reading), reading
    assert not [line for line in lines if re.match(r"Targets: 0 done .*, 0 refused, 0 left", line)], lines
