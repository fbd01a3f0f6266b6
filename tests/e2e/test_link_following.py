"""Link-following projects made compliant through settings: discovery from the site's manifests.

Each project is one of tests/data/link_projects as a user has it, with the add-on line and the
edits of :data:`EDITS` in settings.py (the docs count them). Crawls are real ``scrapy crawl``
runs against the blog on loopback; assertions are on what the blog's server saw.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.blog_site import Blog
from tests.helpers import add_addon_line, new_project, run_scrapy, stat, summary_value, write_spider

PROJECTS = Path(__file__).parent.parent / "data" / "link_projects"
#: Settings lines a test needs on loopback (not an edit a user makes on the open web).
LOOPBACK = '\nWALSH_ALLOW_PRIVATE_ADDRESSES = ["127.0.0.1"]\n'
#: The edits, after the ADDONS line, that make each kind a compliant crawl: all in settings.py.
EDITS = {
    "blog_crawl": [],
    "blog_follow": ['WALSH_DISCOVERY_ROUTES = {r"/post/\\d+\\.html$": "parse_post"}'],
    "blog_sitemap": [],
}
POSTS = ["/post/1.html", "/post/2.html", "/post/3.html", "/post/4.html"]


@pytest.fixture
def blog():
    site = Blog().start()
    yield site
    site.shutdown()
    site.server_close()


def make_project(root: Path, kind: str, base: str, *extra: str) -> Path:
    project = new_project(root)
    write_spider(project, "blog", (PROJECTS / f"{kind}.py").read_text().replace("{base}", base))
    add_addon_line(project, LOOPBACK + "".join(f"{line}\n" for line in (*EDITS[kind], *extra)))
    return project


def crawl(project: Path, *args: str, env: dict[str, str] | None = None):
    out = project / "items.jsonl"
    out.unlink(missing_ok=True)
    result = run_scrapy(["crawl", "blog", "-O", str(out), *args], cwd=project, env=env)
    items = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return result, items


def titles(items) -> list[str]:
    return sorted(str(i.get("title")) for i in items)


@pytest.mark.parametrize("kind", ["blog_crawl", "blog_follow", "blog_sitemap"])
def test_each_kind_fetches_its_routed_targets_and_nothing_else(tmp_path, blog, kind):
    project = make_project(tmp_path, kind, blog.base)
    result, items = crawl(project)
    assert result.returncode == 0, result.stderr[-4000:]
    assert titles(items) == ["Post 1", "Post 2", "Post 3", "Post 4"], result.stderr[-4000:]
    fetched = blog.fetched()
    # every post once; no listing page, no image, no page no route names, not the disallowed post
    assert sorted(fetched) == POSTS, fetched
    manifests = [p for p in blog.paths() if p.startswith("/sitemap")]
    assert sorted(manifests) == ["/sitemap-pages.xml", "/sitemap-posts.xml", "/sitemap_index.xml"], manifests
    assert stat(result.stderr, "walsh/discovery/targets") == 5, "the disallowed post is a target robots.txt refuses"
    assert stat(result.stderr, "walsh/robots/verdict/disallowed_explicit") == 1
    hosts = {headers.get("Host") for _, _, headers in blog.log}
    assert hosts == {blog.base.removeprefix("http://")}, "the index's child on another host is not read"
    assert "R6: dropped" not in result.stderr, "nothing was followed, so nothing was dropped"
    assert "at most 1 in flight" in summary_value(result.stderr, "requests sent"), "manifests, then targets"
    # the manifests' entries reach neither the feed nor the pipelines
    assert all(set(i) - {"walsh"} == {"url", "title"} for i in items), items[0]


def test_second_run_and_lastmod(tmp_path, blog):
    project = make_project(tmp_path, "blog_crawl", blog.base, "WALSH_REFETCH_INTERVAL = 1")
    first, items = crawl(project)
    assert first.returncode == 0 and len(items) == 4, first.stderr[-4000:]
    blog.log.clear()
    # the refetch interval is over, but the sitemap says the posts did not change since
    second, items = crawl(project)
    assert second.returncode == 0, second.stderr[-4000:]
    assert items == [] and blog.fetched() == [], blog.fetched()
    assert stat(second.stderr, "walsh/discovery/lastmod_unchanged") == 4
    assert "lastmod" in second.stderr.split("Compliance summary")[-1], "the summary counts it"
    # a newer lastmod: fetched again (the edit-and-run loop works once the site changed)
    blog.lastmod = "2999-01-01"
    blog.log.clear()
    third, items = crawl(project)
    assert third.returncode == 0, third.stderr[-4000:]
    assert sorted(blog.fetched()) == POSTS, "fetched again"
    assert len(items) == 4 and all(i["walsh"]["update"] is True for i in items), "delivered, as updates"


def test_with_discovery_off_a_crawl_spider_is_told_what_it_turns_off(tmp_path, blog):
    project = make_project(tmp_path, "blog_crawl", blog.base, "WALSH_DISCOVERY = []")
    result, items = crawl(project)
    assert items == [] and blog.fetched() == ["/"], blog.fetched()
    assert "WALSH_DISCOVERY = []" in result.stderr
    report = json.loads(run_scrapy(["walsh", "check", "blog", "--json"], cwd=project).stdout)
    (row6,) = [r for r in report["rows"] if r["row"] == "6"]
    (rules,) = [f for f in row6["findings"] if f["setting"] == "spider blog.rules"]
    assert rules["status"] == "fail" and "remove that line" in rules["message"], rules


@pytest.mark.parametrize("hostile", ["gzip_bomb", "not_xml", "entities", "many", "loop"])
def test_a_hostile_sitemap_is_read_within_bounds(tmp_path, blog, hostile):
    blog.hostile = hostile
    project = make_project(tmp_path, "blog_sitemap", blog.base)
    result, items = crawl(project)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "Traceback" not in result.stderr, result.stderr[-4000:]
    assert [p for p in blog.fetched() if p.startswith("/junk/")] == [], "a URL no route names is never fetched"
    assert len([p for p in blog.paths() if p.startswith("/sitemap")]) <= 50 + 3


def test_plan_lists_targets_and_skips_and_sends_no_target(tmp_path, blog):
    project = make_project(tmp_path, "blog_crawl", blog.base)
    made = run_scrapy(["walsh", "plan", "blog", "--json"], cwd=project)
    assert made.returncode == 0, made.stderr[-4000:]
    assert blog.fetched() == [], "only robots.txt and the manifests were asked for"
    plan = json.loads(made.stdout)
    assert sorted(urlsplit(e["url"]).path for e in plan["fetch"]) == POSTS
    assert {e["callback"] for e in plan["fetch"]} == {"parse_post"}
    skips = {urlsplit(e["url"]).path: e["reason"] for e in plan["skip"]}
    assert skips == {
        "/post/5.html": "robots.txt",
        "/images/cover.png": "scope",
        "/page/2.html": "scope",
        "/about.html": "scope",
        "/": "scope",
    }
    # one host: its 3 manifests and 4 targets, one a second at the floor
    assert plan["hosts"] == {"127.0.0.1": {"requests": 7, "interval": 1.0}}
    # 6 intervals after the first request, and each of the 7 requests' time on the wire (the dry run's answers)
    assert plan["seconds"] == pytest.approx(6.0 + 7 * plan["per_request_seconds"], abs=0.06)
    assert 0.01 <= plan["per_request_seconds"] < 1.0
    text = run_scrapy(["walsh", "plan", "blog"], cwd=project).stdout
    assert "4 to fetch, 5 skipped (robots.txt 1, scope 4)" in text
    assert "time by the pacing bound: " in text

    # after a crawl, the same plan says R8
    result, items = crawl(project)
    assert len(items) == 4, result.stderr[-4000:]
    blog.log.clear()
    plan = json.loads(run_scrapy(["walsh", "plan", "blog", "--json"], cwd=project).stdout)
    assert plan["fetch"] == [] and blog.fetched() == []
    assert plan["skipped_by_reason"] == {"lastmod": 4, "robots.txt": 1, "scope": 4}, (
        "the sitemap says they did not change"
    )


def test_declared_targets_that_cannot_be_read_stop_with_one_message(tmp_path, blog):
    project = new_project(tmp_path)
    write_spider(
        project,
        "blog",
        "import scrapy\n\n\nclass BlogSpider(scrapy.Spider):\n    name = 'blog'\n\n"
        "    async def start(self):\n"
        "        with open('urls.txt') as listed:\n"
        "            for line in listed:\n"
        "                yield scrapy.Request(line.strip())\n",
    )
    add_addon_line(project, LOOPBACK)
    result, items = crawl(project)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr, result.stderr[-4000:]
    errors = [line for line in result.stderr.splitlines() if "declared targets could not be read" in line]
    assert len(errors) == 1 and "FileNotFoundError" in errors[0] and "urls.txt" in errors[0], result.stderr[-4000:]


def test_a_crawl_that_fetched_nothing_because_of_a_rule_says_so_once(tmp_path, blog):
    project = make_project(tmp_path, "blog_crawl", blog.base)
    first, items = crawl(project)
    assert len(items) == 4
    second, items = crawl(project)
    assert second.returncode == 0 and items == []
    warned = [line for line in second.stderr.splitlines() if "no declared target was fetched" in line]
    assert len(warned) == 1 and "WARNING" in warned[0], second.stderr[-4000:]
    assert "scrapy walsh plan blog" in warned[0] and "lastmod unchanged 4" in warned[0]


def test_check_reports_navigation_rules_as_not_needed_and_points_to_plan(tmp_path, blog):
    project = make_project(tmp_path, "blog_crawl", blog.base)
    report = json.loads(run_scrapy(["walsh", "check", "blog", "--json"], cwd=project).stdout)
    (row6,) = [r for r in report["rows"] if r["row"] == "6"]
    found = [(f["status"], f["setting"], f["message"]) for f in row6["findings"] if f["setting"].startswith("spider")]
    assert [f[:2] for f in found] == [("pass", "spider blog"), ("pass", "spider blog.rules")], found
    assert "scrapy walsh plan blog" in found[0][2] and "-> parse_post" in found[0][2]
    assert found[1][2].startswith("rule 1 (/page/\\d+\\.html): navigation without a callback, not needed under R6")


def test_the_edit_and_run_loop_with_forget(tmp_path, blog):
    project = make_project(tmp_path, "blog_crawl", blog.base, "WALSH_REFETCH_INTERVAL = 1")
    first, items = crawl(project)
    assert len(items) == 4, first.stderr[-4000:]
    # the spider is edited; forget what it fetched and emitted, and run it again
    forgot = run_scrapy(["walsh", "state", "forget", "--spider", "blog"], cwd=project)
    assert forgot.returncode == 0, forgot.stderr
    # one line per page, and a total: not a line per record (five a page)
    lines = forgot.stdout.splitlines()[1:]  # after the store's line
    assert [line.split()[1] for line in lines[:-1]] == [f"{blog.base}{post}" for post in POSTS], forgot.stdout
    assert lines[-1].startswith("forgot 4 pages: "), forgot.stdout
    blog.log.clear()
    second, items = crawl(project)
    assert second.returncode == 0, second.stderr[-4000:]
    assert sorted(blog.fetched()) == POSTS, "the lastmod record is forgotten with the rest"
    assert titles(items) == ["Post 1", "Post 2", "Post 3", "Post 4"]


@pytest.mark.parametrize(("kind", "manifest"), [("feed", "/feed.xml"), ("llms.txt", "/llms.txt")])
def test_a_feed_or_an_llms_txt_declares_the_routed_targets(tmp_path, blog, kind, manifest):
    project = new_project(tmp_path)
    write_spider(project, "blog", (PROJECTS / "blog_follow.py").read_text().replace("{base}", blog.base))
    routes = EDITS["blog_follow"][0]
    add_addon_line(project, LOOPBACK + f"WALSH_DISCOVERY = [{kind!r}]\n{routes}\n")
    result, items = crawl(project)
    assert result.returncode == 0, result.stderr[-4000:]
    assert sorted(p for p in blog.fetched() if p != manifest) == POSTS, blog.fetched()
    assert blog.paths().count(manifest) == 1 and not [p for p in blog.paths() if p.startswith("/sitemap")]
    assert titles(items) == ["Post 1", "Post 2", "Post 3", "Post 4"]
