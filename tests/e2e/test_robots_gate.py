"""R2 end to end: real crawls of the demo site, asserted on what the server saw."""

from urllib.parse import quote

import pytest

from scrapy_walsh.settings import USER_AGENT
from tests.helpers import add_addon_line, crawl_targets, new_project, stat


@pytest.fixture(scope="module")
def respect_crawl(tmp_path_factory):
    """One crawl in the default mode over every robots case of the demo site."""
    from demo_site import DemoSite

    root = tmp_path_factory.mktemp("robots")
    project = new_project(root)
    with DemoSite() as site:
        add_addon_line(project, site=site)
        urls = {
            "named_exempt": site.url("named", "/members/join"),
            "named_blocked": site.url("named", "/research-off/notes"),
            "decoys_page": site.url("decoys", "/page/1"),
            "decoys_private": site.url("decoys", "/private/x"),
            "down": site.url("down", "/page/1"),
            "gone": site.url("gone", "/page/1"),
            "open_page": site.url("open", "/page/1"),
            "open_page2": site.url("open", "/page/2"),
        }
        result, items = crawl_targets(project, urls.values())
        seen = site.requests
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stderr, seen, urls, items


def paths(seen, host_key):
    return [r["path"] for r in seen if r["host_key"] == host_key]


def test_a_named_group_overrides_star_both_ways(respect_crawl):
    log, seen, urls, items = respect_crawl
    # * blocks /members/, our group doesn't: fetched. Our group blocks /research-off/: never sent.
    assert paths(seen, "named") == ["/robots.txt", "/members/join"]
    assert items[urls["named_exempt"]]["walsh"]["verdicts"]["robots"] == "allowed_implicit"
    denied = items[urls["named_blocked"]]
    assert (denied["denied"], denied["verdict"]) == ("robots", "disallowed_explicit")
    assert denied["details"]["recommendation"] == "not_recommended"


def test_groups_for_other_tokens_do_not_apply(respect_crawl):
    log, seen, urls, items = respect_crawl
    # "bot", "Mozilla", "wal", "sh", "Walsh", "Walsh-Research-Extra" all say Disallow: /
    assert paths(seen, "decoys") == ["/robots.txt", "/page/1"]
    assert items[urls["decoys_private"]]["verdict"] == "disallowed_explicit"  # the * group


def test_robots_503_means_the_page_is_never_requested(respect_crawl):
    log, seen, urls, items = respect_crawl
    assert paths(seen, "down") == ["/robots.txt"]
    denied = items[urls["down"]]
    assert (denied["denied"], denied["verdict"]) == ("robots", "unknown_unreachable")
    assert denied["details"]["recommendation"] == "unknown_do_not_fetch_by_default"
    assert "HTTP 503" in denied["reason"]


def test_robots_404_means_the_page_is_fetched(respect_crawl):
    log, seen, urls, items = respect_crawl
    assert paths(seen, "gone") == ["/robots.txt", "/page/1"]
    walsh = items[urls["gone"]]["walsh"]
    assert walsh["verdicts"]["robots"] == "allowed_implicit"
    assert walsh["robots"]["status"] == 404


def test_robots_is_fetched_once_per_origin_first_with_our_identity(respect_crawl):
    log, seen, urls, items = respect_crawl
    robots = [r for r in seen if r["path"] == "/robots.txt"]
    assert sorted(r["host_key"] for r in robots) == ["decoys", "down", "gone", "named", "open"]
    assert {r["headers"]["User-Agent"] for r in robots} == {USER_AGENT}
    for host_key in ("named", "decoys", "gone", "open"):
        assert paths(seen, host_key)[0] == "/robots.txt"
    open_walsh = items[urls["open_page"]]["walsh"]
    assert open_walsh["verdicts"] == {"blocklist": "not_blocked", "robots": "allowed_implicit"}
    assert open_walsh["recommendation"] == "recommended"
    assert open_walsh["robots"]["sitemaps"] == [f"{urls['open_page'].rsplit('/page', 1)[0]}/sitemap.xml"]
    assert stat(log, "walsh/robots/verdict/disallowed_explicit") == 2
    assert stat(log, "walsh/denied/robots/unknown_unreachable") == 1
    assert stat(log, "walsh/robots/fetched") == 5


def test_report_only_fetches_and_records(project, demo_site):
    urls = [demo_site.url("named", "/research-off/notes"), demo_site.url("down", "/page/1")]
    result, items = crawl_targets(project, urls, "-s", "WALSH_ROBOTS_MODE=report_only")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "does NOT meet R2" in result.stderr
    assert paths(demo_site.requests, "named") == ["/robots.txt", "/research-off/notes"]
    assert paths(demo_site.requests, "down") == ["/robots.txt", "/page/1"]
    assert items[urls[0]]["walsh"]["robots"]["verdict"] == "disallowed_explicit"
    assert items[urls[0]]["walsh"]["recommendation"] == "not_recommended"
    assert items[urls[1]]["walsh"]["verdicts"]["robots"] == "unknown_unreachable"
    assert stat(result.stderr, "walsh/robots/report_only_fetched") == 2


def test_ignore_never_fetches_robots(project, demo_site):
    urls = [demo_site.url("named", "/research-off/notes"), demo_site.url("open", "/private/x")]
    result, items = crawl_targets(project, urls, "-s", "WALSH_ROBOTS_MODE=ignore")
    assert result.returncode == 0, result.stderr[-3000:]
    assert [r for r in demo_site.requests if r["path"] == "/robots.txt"] == []
    assert paths(demo_site.requests, "named") == ["/research-off/notes"]
    assert items[urls[0]]["walsh"]["verdicts"]["robots"] == "skipped_by_user_policy"
    assert items[urls[0]]["walsh"]["recommendation"] == "recommended"


def test_a_rerun_within_the_cache_time_does_not_refetch(project, demo_site):
    url = demo_site.url("open", "/private/x")
    first, _ = crawl_targets(project, [url])
    assert paths(demo_site.requests, "open") == ["/robots.txt"]
    demo_site.reset()
    second, items = crawl_targets(project, [url, demo_site.url("open", "/page/3")])
    assert second.returncode == 0, second.stderr[-3000:]
    assert paths(demo_site.requests, "open") == ["/page/3"], "robots.txt came from the store"
    assert items[url]["verdict"] == "disallowed_explicit"
    assert stat(second.stderr, "walsh/robots/cache_hit") == 1


def test_an_unreachable_robots_uses_a_stored_copy_under_30_days(project, demo_site):
    crawl_targets(project, [demo_site.url("open", "/page/1")])
    demo_site.override("open", "/robots.txt", 503, "<html>down</html>", "text/html")
    demo_site.reset()
    urls = [demo_site.url("open", "/page/2"), demo_site.url("open", "/private/y")]
    # the stored copy is past its cache time, so robots.txt is asked again, and fails
    result, items = crawl_targets(project, urls, "-s", "WALSH_ROBOTS_CACHE_SECONDS=0.001")
    assert result.returncode == 0, result.stderr[-3000:]
    assert paths(demo_site.requests, "open") == ["/robots.txt", "/page/2"]
    assert items[urls[0]]["walsh"]["robots"]["source"] == "stale"
    assert items[urls[1]]["verdict"] == "disallowed_explicit", "the stored rules still apply"
    assert "using the copy stored" in result.stderr


def test_a_cache_time_over_a_day_is_refused(project, demo_site):
    result, _ = crawl_targets(project, [demo_site.url("open", "/page/1")], "-s", "WALSH_ROBOTS_CACHE_SECONDS=172800")
    assert result.returncode != 0
    assert "WALSH_ROBOTS_CACHE_SECONDS breaks R2" in result.stderr
    assert demo_site.requests == []


def test_robots_redirects_are_followed_and_gated(project, demo_site):
    # gone's robots.txt moved to named's: named's rules (our group) now govern gone
    demo_site.override("gone", "/robots.txt", 301, "", headers=[("Location", demo_site.url("named", "/robots.txt"))])
    # decoys' robots.txt redirects into the blocked domain: unreachable, never contacted
    demo_site.override(
        "decoys", "/robots.txt", 302, "", headers=[("Location", demo_site.url("blocked", "/robots.txt"))]
    )
    urls = [
        demo_site.url("gone", "/research-off/x"),
        demo_site.url("gone", "/page/1"),
        demo_site.url("decoys", "/page/1"),
    ]
    result, items = crawl_targets(project, urls)
    assert result.returncode == 0, result.stderr[-3000:]
    assert paths(demo_site.requests, "gone") == ["/robots.txt", "/page/1"]
    assert paths(demo_site.requests, "named") == ["/robots.txt"]
    assert items[urls[0]]["verdict"] == "disallowed_explicit"
    assert "blocked" not in {r["host_key"] for r in demo_site.requests}
    assert items[urls[2]]["verdict"] == "unknown_unreachable"
    assert "refused by a gate" in items[urls[2]]["reason"]


def test_more_than_five_robots_redirects_mean_unavailable(project, demo_site):
    hop = demo_site.url("open", "/robots.txt")
    for _ in range(6):
        hop = demo_site.url("open", "/redirect") + "?to=" + quote(hop, safe="")
    demo_site.override("gone", "/robots.txt", 301, "", headers=[("Location", hop)])
    result, items = crawl_targets(project, [demo_site.url("gone", "/page/1")])
    assert result.returncode == 0, result.stderr[-3000:]
    walsh = items[demo_site.url("gone", "/page/1")]["walsh"]
    assert walsh["verdicts"]["robots"] == "allowed_implicit"
    assert stat(result.stderr, "walsh/robots/redirects") == 5
