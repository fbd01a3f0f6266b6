"""``scrapy walsh plan`` refused at start by the one-ledger rule: the rule's one message, exit 1.

The plan is a dry run of the crawl, so what refuses a crawl at start refuses the plan too. While a
crawl of the identity runs through the default store, a plan of a project whose store is another
one is refused by the machine's registry (a second store of one identity). Before, the plan then
died with a ``RuntimeError`` traceback (the crawl it reads had never started)."""

from __future__ import annotations

from demo_site import DemoSite
from tests.e2e.test_fleet import start_worker
from tests.helpers import GATES_SPIDER, add_addon_line, new_project, run_scrapy, wait_for_pages, write_spider

TARGETS = """
import scrapy


class GatesSpider(scrapy.Spider):
    name = "gates"
    start_urls = {urls!r}
"""


def test_plan_refused_by_a_second_store_of_the_identity_is_one_message_and_exit_1(tmp_path):
    with DemoSite(hosts=["open", "ops"]) as site:
        (tmp_path / "a").mkdir()
        first = new_project(tmp_path / "a")
        add_addon_line(first, site=site)
        write_spider(first, "gates", GATES_SPIDER)
        running = start_worker(first, [site.url("open", f"/page/{i}") for i in range(1, 31)], 0, tmp_path / "a.jsonl")
        wait_for_pages(site, 1, running)
        (tmp_path / "b").mkdir()
        second = new_project(tmp_path / "b")
        add_addon_line(second, f"WALSH_STATE_URI = 'sqlite:///{tmp_path / 'b.sqlite3'}'\n", site=site)
        write_spider(second, "gates", TARGETS.format(urls=[site.url("open", "/page/100")]))
        before = len(site.requests)
        planned = run_scrapy(["walsh", "plan", "gates"], cwd=second)
        assert running.poll() is None, "the first crawl ended before the plan: nothing was tried"
        sent = site.requests[before:]
        running.terminate()
        running.communicate(timeout=240)
    assert planned.returncode == 1, planned.stdout + planned.stderr[-3000:]
    assert "Traceback" not in planned.stderr and "RuntimeError" not in planned.stderr, planned.stderr[-3000:]
    said = [line for line in planned.stderr.splitlines() if "already paces its requests through" in line]
    assert len(said) == 1 and "WALSH_SEPARATE_BOT" in said[0], planned.stderr[-3000:]
    assert planned.stdout == "", planned.stdout
    assert [r["path"] for r in sent if r["host_key"] == "open" and r["path"] == "/page/100"] == []


UNREADABLE = """
import scrapy


class ListedSpider(scrapy.Spider):
    name = "listed"

    async def start(self):
        for line in open("targets.txt"):
            yield scrapy.Request(line.strip())
"""


def test_plan_of_a_spider_whose_targets_cannot_be_read_is_one_message_and_exit_1(project):
    """The start guard stops a crawl whose start() raises; the plan printed "0 to fetch" and exited 0."""
    write_spider(project, "listed", UNREADABLE)
    planned = run_scrapy(["walsh", "plan", "listed"], cwd=project)
    assert planned.returncode == 1, planned.stdout + planned.stderr[-3000:]
    assert "Traceback" not in planned.stderr, planned.stderr[-3000:]
    said = [line for line in planned.stderr.splitlines() if "declared targets could not be read" in line]
    assert len(said) == 1 and "FileNotFoundError" in said[0], planned.stderr[-3000:]
    assert planned.stdout == "", planned.stdout
