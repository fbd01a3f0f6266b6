"""Usage preferences attached to every item (report) and acted on (respect),
judged from the items and from what the demo server saw.

The ``usage`` demo host's robots.txt says ``Content-Signal: search=yes, ai-input=yes,
ai-train=no``, ``Content-Usage: /closed/ search=n`` and ``License:``; its tdmrep.json
reserves TDM under ``/tdm/``; ``/headers/content-usage`` answers ``Content-Usage: search=n``
and ``/headers/tdm`` answers ``tdm-reservation: 1``.
"""

from __future__ import annotations

import json

from tests.helpers import add_addon_line, crawl_targets, run_scrapy, stat, summary_value

PAGES = ["/page/1", "/closed/a", "/headers/content-usage", "/tdm/a", "/headers/tdm"]


def _crawl(project, site, extra):
    add_addon_line(project, extra, site=site)
    urls = [site.url("usage", path) for path in PAGES]
    result, items = crawl_targets(project, urls, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    by_path = {path: items.get(site.url("usage", path)) for path in PAGES}
    return result, by_path


def _preferences(item):
    usage = item["walsh"]["usage"]
    return {d["purpose"]: d["preference"] for d in usage["decisions"]}, usage


def test_report_mode_attaches_every_decision_and_fetches_everything(plain_project, demo_site):
    result, items = _crawl(plain_project, demo_site, '\nWALSH_PURPOSES = ["search", "train-ai"]\n')
    seen = {r["path"] for r in demo_site.requests_for("usage")}
    assert set(PAGES) <= seen  # report mode never skips
    assert "/.well-known/tdmrep.json" not in seen  # read in respect mode only
    prefs, usage = _preferences(items["/page/1"])
    assert usage["mode"] == "report"
    assert prefs == {"search": "allowed", "train-ai": "reserved"}  # Content-Signal, per group
    assert any(d["source"].startswith("robots.txt line") for d in usage["decisions"])
    assert usage["references"] == [demo_site.url("usage", "/license.xml")]  # RSL License
    prefs, usage = _preferences(items["/closed/a"])
    assert prefs["search"] == "reserved"  # the longest Content-Usage path
    assert next(d for d in usage["decisions"] if d["purpose"] == "search")["signal"] == "content-usage/robots"
    prefs, usage = _preferences(items["/headers/content-usage"])
    assert prefs["search"] == "reserved"
    assert next(d for d in usage["decisions"] if d["purpose"] == "search")["signal"] == "content-usage/header"
    _, usage = _preferences(items["/headers/tdm"])
    assert demo_site.url("usage", "/tdm-policy.json") in usage["references"]
    assert stat(result.stderr, "walsh/usage/reserved/search") == 2
    assert stat(result.stderr, "walsh/usage/items") == 5
    assert summary_value(result.stderr, "usage preferences").startswith(
        "report for search, train-ai: 5 responses judged, reserved: search 2, train-ai 5"
    )


def test_respect_mode_skips_before_fetching_and_drops_reserved_items(plain_project, demo_site):
    result, items = _crawl(plain_project, demo_site, '\nWALSH_PURPOSES = ["search"]\nWALSH_USAGE_MODE = "respect"\n')
    seen = [r["path"] for r in demo_site.requests_for("usage")]
    # robots.txt reserves search under /closed/: never fetched, refused as a denial
    assert "/closed/a" not in seen
    assert items["/closed/a"]["denied"] == "usage"
    assert items["/closed/a"]["verdict"] == "usage_reserved"
    # tdmrep.json read once; it reserves train-ai, not search: /tdm/a is fetched
    assert seen.count("/.well-known/tdmrep.json") == 1
    assert "/tdm/a" in seen and items["/tdm/a"] is not None
    # a header reservation is only known after the fetch: fetched, its item dropped
    assert "/headers/content-usage" in seen
    assert items["/headers/content-usage"] is None
    prefs, usage = _preferences(items["/page/1"])
    assert prefs == {"search": "allowed"} and usage["mode"] == "respect"
    assert stat(result.stderr, "walsh/usage/items_dropped") == 1
    assert stat(result.stderr, "walsh/denied/usage/usage_reserved") == 1


def test_undeclared_purposes_are_the_default_and_mean_every_purpose(plain_project, demo_site):
    result, items = _crawl(plain_project, demo_site, '\nWALSH_USAGE_MODE = "respect"\n')
    # the documented default, not a warning on every start
    assert not [line for line in result.stderr.splitlines() if "WARNING" in line and "WALSH_PURPOSES:" in line]
    seen = [r["path"] for r in demo_site.requests_for("usage")]
    # every purpose counts, and Content-Signal ai-train=no reserves train-ai for the whole
    # group: nothing but robots.txt and tdmrep.json is fetched
    assert seen == ["/robots.txt", "/.well-known/tdmrep.json"]
    assert all(items[p]["verdict"] == "usage_reserved" for p in PAGES)
    decisions = items["/page/1"]["details"]["usage"]["decisions"]
    assert {d["purpose"] for d in decisions} == {"search", "train-ai", "ai-input"}


def test_explain_prints_the_decision_per_purpose(project, demo_site):
    url = demo_site.url("usage", "/closed/a")
    env = {"WALSH_DEMO_PORT": str(demo_site.port)}
    args = ["walsh", "explain", url, "-s", "WALSH_USAGE_MODE=respect", "-s", "WALSH_PURPOSES=search,train-ai"]
    result = run_scrapy(args, cwd=project, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert "usage        mode respect;" in out
    assert "search    reserved  robots.txt line 6: Content-Usage: /closed/ search=n" in out
    assert "train-ai  reserved  robots.txt line 5: Content-Signal: search=yes, ai-input=yes, ai-train=no" in out
    assert f"licence/policy: {demo_site.url('usage', '/license.xml')}" in out
    assert "decision     REFUSED by the usage gate (usage_reserved)" in out
    report = json.loads(run_scrapy([*args, "--json"], cwd=project, env=env).stdout)
    assert report["usage"]["reserved"] == ["search", "train-ai"]
    # what explain fetched: what the crawl's usage gate reads in respect mode (robots.txt and
    # tdmrep.json: explain runs the crawl's gates), never the target
    assert {r["path"] for r in demo_site.requests_for("usage")} == {"/robots.txt", "/.well-known/tdmrep.json"}
