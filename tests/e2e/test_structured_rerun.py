"""R9 across runs: a later run still knows an origin's llms.txt when R8 skips refetching it."""

from __future__ import annotations

import json

from demo_site import DemoSite
from tests.helpers import add_addon_line, new_project, run_scrapy, stat, write_spider

SPIDER = """
from scrapy_walsh import StructuredSourceSpider


class R9Spider(StructuredSourceSpider):
    name = "r9"

    def declared_targets(self):
        return self.urls.split(",")
"""


def test_second_run_reads_the_stored_llms_txt(tmp_path):
    with DemoSite() as site:
        project = new_project(tmp_path)
        add_addon_line(project, site=site)
        write_spider(project, "r9", SPIDER)
        runs = []
        for path in ("/page/alpha", "/page/beta"):
            out = project / f"items{len(runs)}.jsonl"
            result = run_scrapy(
                ["crawl", "r9", "-a", "urls=" + site.url("llmsonly", path), "-O", str(out)], cwd=project, timeout=120
            )
            assert result.returncode == 0, result.stderr[-3000:]
            runs.append(
                (
                    result,
                    [json.loads(line) for line in out.read_text().splitlines()],
                    [r["path"] for r in site.requests if r["host_key"] == "llmsonly"],
                )
            )
            site.reset()
    (first, [alpha], seen1), (second, [beta], seen2) = runs
    assert seen1 == ["/robots.txt", "/page/alpha", "/llms.txt"]
    assert seen2 == ["/page/beta"]  # robots.txt from the store, llms.txt not refetched (R8)
    assert alpha["source"] == "llms_txt" and alpha["name"] == "Llms Only Demo"
    # run 2: llms.txt was fetched less than a day ago (R8), so the stored copy is used
    assert beta["source"] == "llms_txt" and beta["name"] == "Llms Only Demo"
    assert beta["listed"]["title"] == "Beta" and [s["name"] for s in beta["sections"]] == ["Pages"]
    assert stat(second.stderr, "walsh/structured/llms_txt_from_store") == 1
    assert stat(second.stderr, "walsh/denied/frequency/skipped_recently_fetched") == 1
    assert stat(second.stderr, "walsh/dedup/dropped") is None
