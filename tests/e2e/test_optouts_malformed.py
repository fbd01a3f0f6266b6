"""No remote answer or malformed document erases an opt-out.

Each case runs real crawls against the recording demo server; the evidence is what the
server saw: the listed or disallowed host (or path) is never contacted.
"""

from __future__ import annotations

from demo_site.content import blocklist_bytes, default_blocklist
from demo_site.hosts import HOSTS
from tests.helpers import crawl_targets, run_scrapy, stat

NUL_ROBOTS = b"User-agent: *\nAllow: /ok\x00\n\nUser-agent: Walsh-Research\nDisallow: /\n"


def test_one_nul_byte_in_another_group_does_not_erase_the_named_groups_disallow(project, demo_site):
    demo_site.override("open", "/robots.txt", 200, NUL_ROBOTS)
    secret = demo_site.url("open", "/secret")
    result, items = crawl_targets(project, [secret])
    assert result.returncode == 0, result.stderr[-3000:]
    assert [r["path"] for r in demo_site.requests_for("open")] == ["/robots.txt"]
    assert items[secret]["verdict"] == "disallowed_explicit", items[secret]


def _listed_then(site, project, body: bytes):
    """Run 1 adopts the default list (it lists ``blocked``); run 2 is served ``body``."""
    first, _ = crawl_targets(project, [site.url("open", "/page/1")])
    assert stat(first.stderr, "walsh/blocklist/adopted/fetched") == 1, first.stderr[-3000:]
    site.set_blocklist(body)
    site.reset()
    return crawl_targets(project, [site.url("blocked", "/page/1"), site.url("open", "/page/2")])


def test_a_blocklist_with_two_blocked_keys_is_never_adopted(project, demo_site):
    doc = blocklist_bytes(default_blocklist()).decode()
    twice = doc.rstrip().rstrip("}") + ',\n  "blocked": []\n}\n'  # the last "blocked" is empty
    result, items = _listed_then(demo_site, project, twice.encode())
    assert result.returncode == 0, result.stderr[-3000:]
    assert {r["host_key"] for r in demo_site.requests} == {"ops", "open"}  # blocked: not even robots.txt
    assert "duplicate key 'blocked'" in result.stderr
    assert stat(result.stderr, "walsh/blocklist/rejected") == 1


def test_a_blocklist_older_than_the_stored_one_is_not_adopted(project, demo_site):
    older = default_blocklist() | {"updated": "2000-01-01T00:00:00Z", "blocked": []}
    result, items = _listed_then(demo_site, project, blocklist_bytes(older))
    assert result.returncode == 0, result.stderr[-3000:]
    assert {r["host_key"] for r in demo_site.requests} == {"ops", "open"}
    assert items[demo_site.url("blocked", "/page/1")]["verdict"] == "blocked_by_operator"
    assert "is older than the adopted list's" in result.stderr
    assert stat(result.stderr, "walsh/blocklist/older_refused") == 1


def test_equal_dates_with_other_contents_warn(project, demo_site):
    same_date = default_blocklist()
    same_date["blocked"] = [*same_date["blocked"], {"domain": "other.example", "added": "2026-11-01", "reason": "x"}]
    result, items = _listed_then(demo_site, project, blocklist_bytes(same_date))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "has the same updated" in result.stderr
    assert "blocked" not in {r["host_key"] for r in demo_site.requests}


def test_the_editor_refuses_to_rewrite_a_document_with_a_duplicate_key(project, tmp_path):
    path = tmp_path / "list.json"
    doc = blocklist_bytes(default_blocklist()).decode()
    original = (doc.rstrip().rstrip("}") + ',\n  "blocked": []\n}\n').encode()
    path.write_bytes(original)
    result = run_scrapy(["walsh", "blocklist", "add", "new.example", "--reason", "x", "--file", str(path)], cwd=project)
    assert result.returncode != 0
    assert "duplicate key 'blocked'" in result.stderr + result.stdout
    assert "Traceback" not in result.stderr
    assert path.read_bytes() == original  # the first key's opt-outs are still there
    assert HOSTS["blocked"].name in path.read_text()
