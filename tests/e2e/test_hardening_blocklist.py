"""A list that was adopted stays adoptable.

A list adopted under a looser *published* schema became "unusable" under the bundled one
on the next run, and the crawl went on with an EMPTY list: the blocked host was contacted.
The stored list now keeps the schema it passed; asserted on what the loopback servers saw.
"""

from __future__ import annotations

import json

from demo_site import DemoSite
from demo_site.hosts import BLOCKLIST_SCHEMA_PATH, DEMO_DOMAIN, HOSTS
from scrapy_walsh.config import default_state
from scrapy_walsh.policy.blocklist import bundled_schema
from scrapy_walsh.policy.vocabulary import Namespace
from scrapy_walsh.store import SqliteStore
from tests.helpers import add_addon_line, crawl_targets, stat

BLOCKED = f"blocked.{DEMO_DOMAIN}"


def looser_schema() -> dict:
    """The bundled schema, but ``operator``, ``contact`` and ``policy`` are optional."""
    schema = bundled_schema()
    schema["required"] = ["contract", "updated", "blocked"]
    return schema


#: Valid under the looser published schema, not under the bundled one (no operator, contact, policy).
DOCUMENT = {
    "contract": "walsh-research-blocklist/v1",
    "updated": "2026-11-01T00:00:00Z",
    "refresh": "PT6H",
    "blocked": [{"domain": BLOCKED, "added": "2026-11-01", "reason": "opt-out under the published schema"}],
}


def contacted(site) -> set[str]:
    return {r["host_key"] for r in site.requests}


def adopt_under_the_looser_schema(project) -> int:
    """Run 1: the ops host publishes the looser schema and a list only it accepts."""
    with DemoSite() as site:
        add_addon_line(project, site=site)
        site.override("ops", BLOCKLIST_SCHEMA_PATH, 200, json.dumps(looser_schema()), "application/json")
        site.set_blocklist(DOCUMENT)
        first, items = crawl_targets(project, [site.url("blocked", "/page/1"), site.url("open", "/page/1")])
        assert first.returncode == 0, first.stderr[-3000:]
        assert stat(first.stderr, "walsh/blocklist/adopted/fetched") == 1
        assert stat(first.stderr, "walsh/blocklist/schema") == "published"
        assert contacted(site) == {"ops", "open"}
        return site.port


def test_a_list_adopted_under_a_looser_published_schema_still_blocks_when_the_server_is_down(plain_project):
    port = adopt_under_the_looser_schema(plain_project)
    # Run 2: the blocklist server is gone (its address refuses connections)
    with DemoSite(port=port, hosts=[k for k in HOSTS if k != "ops"]) as site:
        second, items = crawl_targets(plain_project, [site.url("blocked", "/page/2"), site.url("open", "/page/2")])
        assert second.returncode == 0, second.stderr[-3000:]
        assert contacted(site) == {"open"}, "the stored list still blocks"
        assert items[site.url("blocked", "/page/2")]["verdict"] == "blocked_by_operator"
        assert stat(second.stderr, "walsh/blocklist/source") == "stored"
        assert stat(second.stderr, "walsh/blocklist/stored_schema") == "adopted"
        assert "EMPTY" not in second.stderr


def test_a_stored_list_that_passes_no_schema_fails_closed(plain_project):
    port = adopt_under_the_looser_schema(plain_project)
    # the stored copy of the schema no longer matches its digest: only the bundled one is left
    store = SqliteStore(str(default_state("Walsh-Research").path), "Walsh-Research")  # the per-user store
    keys = [k for k, _ in store.items(Namespace.BLOCKLIST) if not k.startswith("schema:")]
    (key,) = keys
    record = store.get(Namespace.BLOCKLIST, key)
    record["schema"]["required"] = ["contract", "updated", "blocked", "operator"]
    store.set(Namespace.BLOCKLIST, key, record)
    store.close()
    with DemoSite(port=port, hosts=[k for k in HOSTS if k != "ops"]) as site:
        second, items = crawl_targets(plain_project, [site.url("blocked", "/page/2"), site.url("open", "/page/2")])
        assert contacted(site) == set(), "nothing is contacted, not even robots.txt"
        assert stat(second.stderr, "walsh/blocklist/source") == "refused"
        assert stat(second.stderr, "walsh/blocklist/stored_rejected") == 1
        assert second.stderr.count("every request is refused until a fresh list is adopted") == 1
        assert {item["verdict"] for item in items.values()} == {"blocked_by_operator"}
