"""A discovery route that names a callback the spider lacks, or one it can't call, is refused at start.

Before, the route was dropped without a word: the crawl read the manifests, fetched none of the
targets that route names, and exited 0. Now ``scrapy crawl`` refuses in one message naming the route
and the callback, exit 1, before any request (the blog's server sees nothing), and ``scrapy walsh
check`` reports it as a failure. Real crawls of the projects in tests/data/link_projects."""

from __future__ import annotations

import json

import pytest

from tests.e2e.test_link_following import blog, make_project  # noqa: F401 - the blog fixture
from tests.helpers import run_scrapy

#: (project, how its source is edited, settings lines, what the refusal names)
BROKEN = {
    "setting-names-a-missing-method": (
        "blog_follow",
        {},
        ['WALSH_DISCOVERY_ROUTES = {r"/post/\\d+\\.html$": "parse_postt"}'],
        ("WALSH_DISCOVERY_ROUTES", "/post/", "'parse_postt'"),
    ),
    "rule-names-a-missing-method": (
        "blog_crawl",
        {'callback="parse_post"': 'callback="parse_itme"'},
        [],
        ("rules", "rule 2", "'parse_itme'"),
    ),
    # (a name the SitemapSpider lacks altogether fails in Scrapy's own SitemapSpider.__init__, before the add-on)
    "sitemap-rule-names-an-attribute-not-callable": (
        "blog_sitemap",
        {'"parse_post")]': '"parse_article")]', '    name = "blog"': '    name = "blog"\n    parse_article = "text"'},
        [],
        ("sitemap_rules", "/post/", "'parse_article'", "not callable"),
    ),
    "setting-names-an-attribute-not-callable": (
        "blog_follow",
        {'    name = "blog"': '    name = "blog"\n    parse_listing = "not a method"'},
        ['WALSH_DISCOVERY_ROUTES = {r"/post/\\d+\\.html$": "parse_listing"}'],
        ("WALSH_DISCOVERY_ROUTES", "'parse_listing'", "not callable"),
    ),
}


def broken_project(root, base, kind, edits, lines):
    project = make_project(root, kind, base, *lines)
    spider = project / "plainproj" / "spiders" / "blog.py"
    source = spider.read_text()
    for old, new in edits.items():
        assert old in source, old
        source = source.replace(old, new)
    spider.write_text(source)  # the settings line in ``lines`` comes last: it replaces the project's route
    return project


@pytest.mark.parametrize("case", BROKEN, ids=BROKEN)
def test_a_route_to_a_callback_the_spider_cannot_call_is_refused_at_start(tmp_path, blog, case):  # noqa: F811
    kind, edits, lines, named = BROKEN[case]
    project = broken_project(tmp_path, blog.base, kind, edits, lines)
    result = run_scrapy(["crawl", "blog"], cwd=project)
    assert result.returncode == 1, result.stderr[-4000:]
    assert "Traceback" not in result.stderr, result.stderr[-4000:]
    assert result.stderr.count("scrapy_walsh refuses to start this crawl") == 1, result.stderr[-4000:]
    (line,) = [line for line in result.stderr.splitlines() if "names callback" in line]
    assert all(word in line for word in named), line
    assert blog.paths() == [], "a refused crawl sent a request"
    report = json.loads(run_scrapy(["walsh", "check", "blog", "--json"], cwd=project).stdout)
    (row6,) = [r for r in report["rows"] if r["row"] == "6"]
    failed = [f["message"] for f in row6["findings"] if f["status"] == "fail"]
    assert len(failed) == 1 and all(word in failed[0] for word in named[1:]), row6["findings"]


@pytest.mark.parametrize("kind", ["blog_crawl", "blog_follow"])
def test_explain_in_a_discovery_project_decides_the_url_typed(tmp_path, blog, kind):  # noqa: F811
    """``explain``'s own spider has none of the project's callbacks: discovery took its URL for a page
    no route names and the dry run "ended without reaching a decision"; a route check would refuse it.
    Discovery never applies to a command's own spider."""
    project = make_project(tmp_path, kind, blog.base)
    explained = run_scrapy(["walsh", "explain", f"{blog.base}/post/1.html"], cwd=project)
    assert explained.returncode == 0, explained.stdout + explained.stderr[-4000:]
    assert "decision     FETCH" in explained.stdout, explained.stdout
    assert not [p for p in blog.paths() if p.startswith("/sitemap")], "explain read the manifests"
