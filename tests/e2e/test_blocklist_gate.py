"""R3 end to end: the operator blocklist gate, asserted on what the demo server saw."""

import json

from demo_site import DemoSite
from demo_site.hosts import BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH, HOSTS
from scrapy_walsh.settings import USER_AGENT
from tests.helpers import add_addon_line, crawl_targets, stat

BLOCKED_HOSTS = {"blocked", "www.blocked"}


def targets(site, page=1):
    """A fresh open page per run: a page fetched by an earlier run would be skipped (R8)."""
    return [site.url("blocked", "/page/1"), site.url("www.blocked", "/page/1"), site.url("open", f"/page/{page}")]


def contacted(site):
    return {r["host_key"] for r in site.requests}


def test_a_blocked_apex_and_its_subdomain_are_never_contacted(project, demo_site):
    redirect = demo_site.url("open", "/redirect") + "?to=" + demo_site.url("www.blocked", "/page/2")
    result, items = crawl_targets(project, [*targets(demo_site), redirect])
    assert result.returncode == 0, result.stderr[-3000:]
    seen = demo_site.requests
    # the schema and the list come first, with our identity, before anything else
    assert [(r["host_key"], r["path"]) for r in seen[:2]] == [("ops", BLOCKLIST_SCHEMA_PATH), ("ops", BLOCKLIST_PATH)]
    assert {r["headers"]["User-Agent"] for r in seen[:2]} == {USER_AGENT}
    # not even robots.txt, and not through a redirect either
    assert contacted(demo_site) == {"ops", "open"}
    open_paths = sorted(r["path"].split("?")[0] for r in seen if r["host_key"] == "open")
    assert open_paths == ["/page/1", "/redirect", "/robots.txt"]
    apex = items[demo_site.url("blocked", "/page/1")]
    assert (apex["denied"], apex["verdict"]) == ("blocklist", "blocked_by_operator")
    assert apex["details"]["domain"] == "blocked.walsh-demo.test"
    assert "demo opt-out by email" in apex["reason"]
    assert items[demo_site.url("www.blocked", "/page/1")]["details"]["domain"] == "blocked.walsh-demo.test"
    assert stat(result.stderr, "walsh/denied/blocklist/blocked_by_operator") == 3
    assert stat(result.stderr, "walsh/blocklist/redirect_blocked") == 1
    assert stat(result.stderr, "walsh/blocklist/schema") == "published"
    assert stat(result.stderr, "walsh/blocklist/source") == "fetched"


def test_an_invalid_list_never_unblocks_and_a_restart_keeps_the_list(plain_project):
    with DemoSite() as site:
        add_addon_line(plain_project, site=site)
        first, _ = crawl_targets(plain_project, [site.url("open", "/page/1")])
        assert stat(first.stderr, "walsh/blocklist/adopted/fetched") == 1
        # a later list that fails validation (blocked is not a list) is not adopted
        site.set_blocklist('{"contract": "walsh-research-blocklist/v1", "blocked": "nope"}')
        site.reset()
        second, items = crawl_targets(plain_project, targets(site, 2))
        assert second.returncode == 0, second.stderr[-3000:]
        assert contacted(site) == {"ops", "open"}
        assert "keeping the last adopted list" in second.stderr
        assert stat(second.stderr, "walsh/blocklist/rejected") == 1
        port = site.port
    # the blocklist server is gone: its address refuses connections; the crawler restarts
    with DemoSite(port=port, hosts=[k for k in HOSTS if k != "ops"]) as site:
        third, items = crawl_targets(plain_project, targets(site, 3))
        assert third.returncode == 0, third.stderr[-3000:]
        assert contacted(site) == {"open"}, "yesterday's list still blocks"
        assert stat(third.stderr, "walsh/blocklist/source") == "stored"
        assert stat(third.stderr, "walsh/blocklist/fetch_failed") == 1
        assert items[site.url("www.blocked", "/page/1")]["verdict"] == "blocked_by_operator"


def test_a_first_ever_failure_crawls_with_an_empty_list_and_says_so(project, demo_site):
    demo_site.set_blocklist(b"gone", status=404)
    result, items = crawl_targets(
        project,
        [demo_site.url("blocked", "/page/1"), demo_site.url("named", "/page/1")],
        "-s",
        "WALSH_BLOCKLIST_EXTRA=named.walsh-demo.test",
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "EMPTY blocklist plus 1 WALSH_BLOCKLIST_EXTRA entries" in result.stderr
    assert stat(result.stderr, "walsh/blocklist/empty_first_failure") == 1
    # fail open for the operator list (seed 001 §5.2), but the local opt-out holds
    assert contacted(demo_site) == {"ops", "blocked"}
    assert items[demo_site.url("named", "/page/1")]["details"]["domain"] == "named.walsh-demo.test"


def test_a_bad_local_opt_out_stops_the_crawl(project, demo_site):
    result, _ = crawl_targets(
        project, [demo_site.url("open", "/page/1")], "-s", "WALSH_BLOCKLIST_EXTRA=http://example.com/path"
    )
    assert result.returncode != 0
    assert "WALSH_BLOCKLIST_EXTRA breaks R3" in result.stderr
    assert demo_site.requests == []


def test_an_unusable_published_schema_falls_back_to_the_bundled_copy(project, demo_site):
    demo_site.override("ops", BLOCKLIST_SCHEMA_PATH, 200, '{"type": 12}', "application/json")
    result, items = crawl_targets(project, [demo_site.url("blocked", "/page/1")])
    assert result.returncode == 0, result.stderr[-3000:]
    assert stat(result.stderr, "walsh/blocklist/schema") == "bundled"
    assert items[demo_site.url("blocked", "/page/1")]["verdict"] == "blocked_by_operator"
    assert contacted(demo_site) == {"ops"}


def test_a_later_run_validates_with_the_schema_fetched_within_a_day(project, demo_site):
    """The list's host is asked once per run, not twice: the published schema fetched by the first
    run validates the next run's list, so the list does not wait a slot of its host behind it."""
    first, _ = crawl_targets(project, targets(demo_site, 1))
    assert first.returncode == 0 and stat(first.stderr, "walsh/blocklist/schema") == "published", first.stderr[-3000:]
    seen = len(demo_site.requests)
    second, items = crawl_targets(project, targets(demo_site, 2))
    assert second.returncode == 0, second.stderr[-3000:]
    asked = [r for r in demo_site.requests[seen:] if r["host_key"] == "ops"]
    assert [r["path"] for r in asked] == [BLOCKLIST_PATH], "the schema is not fetched again"
    assert stat(second.stderr, "walsh/blocklist/schema") == "cached"
    assert stat(second.stderr, "walsh/blocklist/source") == "fetched"
    assert items[demo_site.url("blocked", "/page/1")]["verdict"] == "blocked_by_operator"
    # the target went right after the list: no slot of ops waited for (1 s here)
    page = next(r for r in demo_site.requests[seen:] if r["host_key"] == "open" and r["path"] == "/page/2")
    assert page["mono"] - asked[0]["mono"] < 0.9


def test_a_list_the_cached_schema_refuses_is_validated_by_the_schema_published_now(project, demo_site):
    """A schema that changed with the list (here: ``policy`` no longer required) is fetched again
    when the cached copy refuses the new list, and the list is adopted."""
    from demo_site.content import blocklist_schema_bytes, default_blocklist

    first, _ = crawl_targets(project, targets(demo_site, 1))
    assert first.returncode == 0, first.stderr[-3000:]
    schema = json.loads(blocklist_schema_bytes())
    schema["required"] = [field for field in schema["required"] if field != "policy"]
    demo_site.override("ops", BLOCKLIST_SCHEMA_PATH, 200, json.dumps(schema), content_type="application/json")
    listed = {**default_blocklist(), "updated": "2026-11-02T00:00:00Z"}
    del listed["policy"]
    listed["blocked"] = [*listed["blocked"], {**listed["blocked"][0], "domain": HOSTS["open"].name}]
    demo_site.set_blocklist(listed)
    seen = len(demo_site.requests)
    second, items = crawl_targets(project, targets(demo_site, 2))
    assert second.returncode == 0, second.stderr[-3000:]
    asked = [r["path"] for r in demo_site.requests[seen:] if r["host_key"] == "ops"]
    assert asked == [BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH], asked
    assert stat(second.stderr, "walsh/blocklist/schema") == "published"
    assert stat(second.stderr, "walsh/blocklist/adopted/fetched") == 1
    assert items[demo_site.url("open", "/page/2")]["verdict"] == "blocked_by_operator"
    assert "open" not in {r["host_key"] for r in demo_site.requests[seen:]}
