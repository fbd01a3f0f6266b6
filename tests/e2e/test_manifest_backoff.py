"""R5 on the manifests discovery reads: a sitemap answered 429/503 is asked again after its
Retry-After, with a page's bounded retries, and nothing else goes to its host meanwhile; one
that stays busy is given up with a WARNING, counted in the summary and said by ``plan``.
Times are the blog server's own clock.
"""

from __future__ import annotations

import pytest

from ..helpers import CLOCK_TOLERANCE, stat
from .test_link_following import POSTS, blog, crawl, make_project, titles  # noqa: F401 - blog is a fixture

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

