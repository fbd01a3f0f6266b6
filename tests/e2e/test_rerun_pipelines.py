"""A same-day re-run and the project's own item pipelines (R8 yields nothing the second time).

A project writes its items with a pipeline of its own that truncates its file when the spider
opens. Run twice the same day, the second run fetches nothing (R8), so that file is emptied: the
crawl warns at start (before the spider opens) naming the pipeline, and ``scrapy walsh check`` says
it on row 8. Without an overwriting feed or a pipeline of its own, nothing is emptied: nothing is
said at start (the crawl's end says no target was fetched). Real crawls on the demo site.
"""

from __future__ import annotations

from tests.e2e.test_one_line_projects import OWN_PIPELINE, SITEMAP_SPIDER, check, findings, pages_fetched
from tests.helpers import add_addon_line, run_scrapy, write_spider

PAGES = ["/page/1", "/page/2"]
STATIC = """
import scrapy


class SiteSpider(scrapy.Spider):
    name = "site"
    start_urls = {urls!r}

    def parse(self, response):
        yield {{"url": response.url, "title": response.css("h1::text").get()}}
"""
#: The project's own pipeline, as such projects have it: its file is written afresh each run.
WRITER = OWN_PIPELINE.replace('open("own.jsonl", "a")', 'open("written.jsonl", "w")').replace(
    "JsonLinesPipeline", "JsonWriterPipeline"
)
PIPELINE = "plainproj.pipelines.JsonWriterPipeline"
SAID = "a re-run within a day yields nothing"


def row8(project) -> list[tuple[str, str | None, str]]:
    return findings(check(project, "--json")[1], "8")


def said_at_start(log: str) -> list[str]:
    """The crawl's lines that say a re-run yields nothing, each checked to come before the spider opens."""
    lines = log.splitlines()
    found = [i for i, line in enumerate(lines) if SAID in line]
    for at in found:
        assert "Spider opened" in "\n".join(lines[at:]), "said before the spider opens (and its pipelines)"
    return [lines[i] for i in found]


def own_pipeline_project(plain_project, site):
    add_addon_line(plain_project, f'\nITEM_PIPELINES = {{"{PIPELINE}": 300}}\n', site=site)
    assert 'open("written.jsonl", "w")' in WRITER and "class JsonWriterPipeline" in WRITER
    (plain_project / "plainproj" / "pipelines.py").write_text(WRITER)
    return plain_project


def test_a_re_run_warns_when_the_projects_own_pipeline_gets_no_items(plain_project, demo_site):
    project = own_pipeline_project(plain_project, demo_site)
    write_spider(project, "site", STATIC.format(urls=[demo_site.url("open", p) for p in PAGES]))
    first = run_scrapy(["crawl", "site"], cwd=project)
    assert first.returncode == 0, first.stderr[-4000:]
    assert pages_fetched(demo_site) == PAGES
    assert len((project / "written.jsonl").read_text().splitlines()) == 2
    assert said_at_start(first.stderr) == [], "nothing fetched before: nothing to say"

    words = f"{SAID}; item pipelines {PIPELINE} get no items this run"
    found = row8(project)
    assert [(s, setting) for s, setting, m in found if words in m] == [("warn", "ITEM_PIPELINES")], found
    demo_site.reset()
    again = run_scrapy(["crawl", "site"], cwd=project)
    assert again.returncode == 0, again.stderr[-4000:]
    (line,) = said_at_start(again.stderr)
    assert "WARNING" in line and words in line and "every target of its last run (2)" in line, line
    assert "state forget --spider site" in line
    assert pages_fetched(demo_site) == [], "R8: nothing fetched again"
    assert (project / "written.jsonl").read_text() == "", "what the warning said: its file is emptied"


def test_a_discovering_spider_warns_for_its_own_pipeline_too(plain_project, demo_site):
    project = own_pipeline_project(plain_project, demo_site)
    write_spider(project, "site", SITEMAP_SPIDER.format(base=demo_site.base("open")))
    first = run_scrapy(["crawl", "site"], cwd=project)
    assert first.returncode == 0, first.stderr[-4000:]
    assert pages_fetched(demo_site) == ["/page/1", "/page/2", "/page/3"]
    demo_site.reset()
    again = run_scrapy(["crawl", "site"], cwd=project)
    (line,) = said_at_start(again.stderr)
    assert "WARNING" in line and f"item pipelines {PIPELINE} get no items this run" in line, line
    assert "every target of its last run (3)" in line and "unless the site's manifests list new" in line
    assert pages_fetched(demo_site) == []


def test_with_nothing_to_empty_the_start_says_nothing_and_the_end_says_why(plain_project, demo_site):
    """An appending feed (-o) and no pipeline of the project's: nothing is emptied, so the start
    neither warns nor reads the store for it; the crawl's end says that nothing was fetched and why."""
    add_addon_line(plain_project, site=demo_site)
    write_spider(plain_project, "site", STATIC.format(urls=[demo_site.url("open", p) for p in PAGES]))
    first = run_scrapy(["crawl", "site", "-o", "items.jsonl"], cwd=plain_project)
    assert first.returncode == 0, first.stderr[-4000:]
    assert [m for _, _, m in row8(plain_project) if SAID in m] == [], "check: nothing to warn about"
    demo_site.reset()
    again = run_scrapy(["crawl", "site", "-o", "items.jsonl"], cwd=plain_project)
    assert again.returncode == 0, again.stderr[-4000:]
    assert said_at_start(again.stderr) == []
    assert "no declared target was fetched" in again.stderr and "state forget --spider site" in again.stderr
    assert len((plain_project / "items.jsonl").read_text().splitlines()) == 2, "appended to: nothing lost"
    assert pages_fetched(demo_site) == []
