"""One identity, one ledger per machine, whatever the store: a second store is refused at start.

Two projects of the one identity on one machine (one ``XDG_STATE_HOME``), each with its own
store: Redis db 0 and db 1, or the default shared sqlite file and a Redis. Before, they paced as
strangers (the smallest gap 0.014 s, every target fetched twice). Now the second crawl is refused
at start, in one message naming both stores, and sends nothing; with ``WALSH_SEPARATE_BOT`` it
runs, on purpose. Two names of one Redis are one store."""

from __future__ import annotations

import pytest

from demo_site import DemoSite
from tests.e2e.test_fleet import start_worker
from tests.helpers import GATES_SPIDER, add_addon_line, crawl_targets, new_project, wait_for_pages
from tests.redis_server import RedisServer


def project_with(root, site, uri, extra=""):
    root.mkdir(parents=True, exist_ok=True)
    project = new_project(root)
    add_addon_line(project, f"WALSH_STATE_URI = {uri!r}\n{extra}", site=site)
    (project / "plainproj" / "spiders" / "gates.py").write_text(GATES_SPIDER)
    return project


@pytest.mark.parametrize("stores", ["redis db 0 and db 1", "sqlite and redis"])
def test_a_second_store_of_the_identity_is_refused_while_the_first_crawls(tmp_path, stores):
    with DemoSite(hosts=["open", "ops"]) as site, RedisServer(tmp_path / "redis") as server:
        first_uri = server.url if stores.startswith("redis") else None  # None: the default shared file
        second_uri = server.url.removesuffix("/0") + "/1"
        first = project_with(tmp_path / "a", site, first_uri)
        running = start_worker(first, [site.url("open", f"/page/{i}") for i in range(1, 31)], 0, tmp_path / "a.jsonl")
        wait_for_pages(site, 1, running)
        before = len(site.requests)
        second = project_with(tmp_path / "b", site, second_uri)
        refused, _ = crawl_targets(second, [site.url("open", "/page/100")])
        assert running.poll() is None, "the first crawl ended before the second one started: nothing was tried"
        sent_by_second = [r for r in site.requests[before:] if r["path"] == "/page/100"]
        separate = project_with(tmp_path / "c", site, second_uri, "WALSH_SEPARATE_BOT = True\n")
        allowed, items = crawl_targets(separate, [site.url("open", "/page/101")])
        running.terminate()  # enough: the rest of its crawl proves nothing more
        log = running.communicate(timeout=240)[1]
    assert "Traceback" not in log, log[-3000:]
    print(f"{stores}:", [line for line in refused.stderr.splitlines() if "refuses" in line][:1])
    assert refused.returncode == 1, refused.stderr[-3000:]
    assert "Traceback" not in refused.stderr, refused.stderr[-3000:]
    message = next(line for line in refused.stderr.splitlines() if "already paces its requests through" in line)
    first_shown = "scrapy-walsh/walsh-research.sqlite3" if first_uri is None else first_uri
    assert first_shown in message and second_uri in message and "WALSH_SEPARATE_BOT" in message, message
    assert sent_by_second == [], "the refused crawl sent a request"
    assert allowed.returncode == 0, allowed.stderr[-3000:]
    assert items[site.url("open", "/page/101")]["status"] == 200


def test_two_names_of_one_redis_are_one_store(tmp_path):
    with DemoSite(hosts=["open", "ops"]) as site, RedisServer(tmp_path / "redis") as server:
        by_ip = project_with(tmp_path / "a", site, server.url)
        by_name = project_with(tmp_path / "b", site, server.url.replace("127.0.0.1", "localhost"))
        running = start_worker(by_ip, [site.url("open", f"/page/{i}") for i in range(1, 5)], 0, tmp_path / "a.jsonl")
        wait_for_pages(site, 1, running)
        same, _ = crawl_targets(by_name, [site.url("open", "/page/5")])
        running.communicate(timeout=240)
    assert same.returncode == 0, same.stderr[-3000:]
