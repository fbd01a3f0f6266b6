"""R5 on the manifests discovery reads: a sitemap answered 429/503 is asked again after its
Retry-After, with a page's bounded retries, and nothing else goes to its host meanwhile; one
that stays busy is given up with a WARNING, counted in the summary and said by ``plan``.
Times are the blog server's own clock.
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.test_link_following import POSTS, blog, crawl, make_project, titles  # noqa: F401 - blog is a fixture
from tests.helpers import CLOCK_TOLERANCE, run_scrapy, stat

INDEX = "/sitemap_index.xml"


@pytest.mark.parametrize(("status", "kind"), [(503, "blog_sitemap"), (429, "blog_crawl")])
def test_a_busy_sitemap_is_asked_again_after_its_retry_after(tmp_path, blog, status, kind):  # noqa: F811
    blog.busy = {INDEX: (status, "2", 1)}
    project = make_project(tmp_path, kind, blog.base)
    result, items = crawl(project)
    assert result.returncode == 0, result.stderr[-4000:]
    asked = blog.asked(INDEX)
    assert len(asked) == 2, blog.paths()
    assert asked[1] - asked[0] >= 2.0 - CLOCK_TOLERANCE, asked
    # R5: the whole host rested, nothing else was sent to it before the retry
    assert [p for t, p, _ in blog.log if asked[0] < t < asked[1]] == [], blog.paths()
    assert titles(items) == ["Post 1", "Post 2", "Post 3", "Post 4"], result.stderr[-4000:]
    assert sorted(blog.fetched()) == POSTS, blog.fetched()
    assert stat(result.stderr, f"walsh/backoff/status/{status}") == 1
    assert stat(result.stderr, "walsh/discovery/manifests_given_up") is None


def test_a_sitemap_that_stays_busy_is_given_up_and_said(tmp_path, blog):  # noqa: F811
    blog.busy = {INDEX: (503, "1", None)}
    project = make_project(tmp_path, "blog_sitemap", blog.base, "WALSH_BACKOFF_MAX_RETRIES = 2")
    url = blog.base + INDEX
    result, items = crawl(project)
    assert result.returncode == 0, result.stderr[-4000:]
    assert len(blog.asked(INDEX)) == 3, "one attempt and 2 retries, then stop"
    assert items == [] and blog.fetched() == [], blog.fetched()
    warned = [line for line in result.stderr.splitlines() if "discovery:" in line and url in line]
    assert len(warned) == 1 and "WARNING" in warned[0], result.stderr[-4000:]
    assert "given up" in warned[0] and "503 after 3 attempts" in warned[0], warned
    assert stat(result.stderr, "walsh/discovery/manifests_given_up") == 1
    summary = result.stderr.split("compliance summary")[-1]
    assert "manifests given up 1" in " ".join(summary.split()), summary

    blog.log.clear()
    made = run_scrapy(["walsh", "plan", "blog"], cwd=project)
    assert made.returncode == 0, made.stderr[-4000:]
    assert f"1 manifest given up: {url} (503 after 3 attempts)" in made.stdout, made.stdout
    assert len(blog.asked(INDEX)) == 3, "the plan reads the manifests as the crawl does"
    blog.log.clear()
    plan = json.loads(run_scrapy(["walsh", "plan", "blog", "--json"], cwd=project).stdout)
    assert plan["manifests_given_up"] == [{"url": url, "why": "503 after 3 attempts"}]


@pytest.mark.parametrize(("failure", "attempts"), [(0, 3), (-1, 1)], ids=["dropped", "timeout"])
def test_a_sitemap_with_no_answer_is_retried_as_a_page_then_given_up(tmp_path, blog, failure, attempts):  # noqa: F811
    """A dropped connection gets Scrapy's retries (RETRY_TIMES, 2), as a page does; a timeout is not
    asked again in the run (its host rests WALSH_RECHECK_INTERVAL, as after a page's timeout)."""
    blog.busy = {INDEX: (failure, None, None)}
    project = make_project(tmp_path, "blog_sitemap", blog.base, "DOWNLOAD_TIMEOUT = 5")
    url = blog.base + INDEX
    result, items = crawl(project)
    assert result.returncode == 0, result.stderr[-4000:]
    assert len(blog.asked(INDEX)) == attempts, blog.paths()
    warned = [line for line in result.stderr.splitlines() if "discovery:" in line and url in line]
    assert len(warned) == 1 and "WARNING" in warned[0] and "given up" in warned[0], result.stderr[-4000:]
    assert stat(result.stderr, "walsh/discovery/manifests_given_up") == 1
