"""One ledger per identity per machine, and a store that records what
it holds. Real crawls in subprocesses, against the demo server; ``XDG_STATE_HOME`` is the
test's own (tests/conftest.py), so the default store is a fresh per-test file."""

from __future__ import annotations

from tests.helpers import crawl_targets, run_scrapy


def _state_file(state_home):
    return state_home / "scrapy-walsh" / "walsh-research.sqlite3"


def test_the_default_store_is_the_identitys_in_the_state_dir(project, demo_site, private_state_home):
    result, _ = crawl_targets(project, [demo_site.url("gone", "/page/1")])
    assert result.returncode == 0, result.stderr[-3000:]
    assert _state_file(private_state_home).exists()
    assert not (project / ".scrapy" / "walsh-state.sqlite3").exists()
    assert f"State store sqlite:///{_state_file(private_state_home)}" in result.stderr
    assert "shared by every process of the identity on this machine" in result.stderr


def test_a_truncated_store_is_refused_until_reset(project, demo_site, private_state_home):
    """A store truncated to 0 bytes between two crawls of a Crawl-delay: 10 host,
    the store is refused with its name (no traceback), and nothing is sent; after
    ``scrapy walsh state reset --yes`` the crawl runs."""
    demo_site.override("gone", "/robots.txt", 200, "User-agent: *\nCrawl-delay: 10\n")
    first, _ = crawl_targets(project, [demo_site.url("gone", "/page/1")])
    assert first.returncode == 0, first.stderr[-3000:]
    state = _state_file(private_state_home)
    state.write_bytes(b"")
    sent = len(demo_site.requests)
    second, _ = crawl_targets(project, [demo_site.url("gone", "/page/2")])
    assert second.returncode != 0
    assert f"state store {state} was initialised" in second.stderr
    assert "scrapy walsh state reset" in second.stderr
    assert "Traceback" not in second.stderr, second.stderr[-3000:]
    assert len(demo_site.requests) == sent, "a refused store sends nothing"
    refused = run_scrapy(["walsh", "state", "reset"], cwd=project)
    assert refused.returncode == 1 and "--yes" in refused.stderr
    reset = run_scrapy(["walsh", "state", "reset", "--yes"], cwd=project)
    assert reset.returncode == 0, reset.stderr
    third, _ = crawl_targets(project, [demo_site.url("gone", "/page/2")])
    assert third.returncode == 0, third.stderr[-3000:]
    assert [r["path"] for r in demo_site.requests if r["host_key"] == "gone"][-1] == "/page/2"


def test_a_replaced_store_is_refused(project, demo_site, private_state_home, tmp_path):
    from scrapy_walsh.store import SqliteStore

    first, _ = crawl_targets(project, [demo_site.url("gone", "/page/1")])
    assert first.returncode == 0, first.stderr[-3000:]
    other = SqliteStore(tmp_path / "other.sqlite3", "Walsh-Research")
    other.set("n", "k", 1)
    other.close()
    _state_file(private_state_home).write_bytes((tmp_path / "other.sqlite3").read_bytes())
    second, _ = crawl_targets(project, [demo_site.url("gone", "/page/2")])
    assert second.returncode != 0 and "replaced by another file" in second.stderr, second.stderr[-3000:]
    assert "Traceback" not in second.stderr
