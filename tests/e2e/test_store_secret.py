"""No secret in logs: a password-protected redis-server, and every output that names the store.

A crawl (its start-up lines, its summary, an outage's ERROR and "reachable again", the refusal
of a store that lost its data and of a wrong password), ``scrapy walsh state show`` (text and
JSON), ``state reset``, ``scrapy walsh check`` and ``explain``: the password is never printed,
and each names the store with the password masked (``redis://:***@...``)."""

from __future__ import annotations

import threading
import time

from demo_site import DemoSite
from tests.e2e.test_fleet import start_worker
from tests.helpers import add_addon_line, crawl_targets, new_project, run_scrapy
from tests.redis_server import RedisServer

SECRET = "s3cret-Walsh-pw"


def _lines_of(process) -> tuple[list[str], threading.Thread]:
    """``process``'s stderr lines as they come (a thread reads them), so a test can wait for one."""
    lines: list[str] = []

    def read() -> None:
        for line in process.stderr:
            lines.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return lines, reader


def test_the_store_password_is_masked_everywhere(tmp_path):
    import redis

    outputs: dict[str, str] = {}
    with DemoSite(hosts=["open", "ops"]) as site:
        server = RedisServer(tmp_path / "redis", password=SECRET).start()
        try:
            project = new_project(tmp_path)
            settings = add_addon_line(project, f"WALSH_STATE_URI = {server.url!r}\n", site=site)
            crawl, _ = crawl_targets(project, [site.url("open", f"/page/{i}") for i in range(1, 3)])
            outputs["crawl"] = crawl.stdout + crawl.stderr
            for name, args in {
                "state show": ["walsh", "state", "show"],
                "state show json": ["walsh", "state", "show", "--json"],
                "state show url": ["walsh", "state", "show", site.url("open", "/page/1")],
                "check": ["walsh", "check"],
                "explain": ["walsh", "explain", site.url("open", "/page/7")],
            }.items():
                done = run_scrapy(args, cwd=project)
                outputs[name] = done.stdout + done.stderr
            # an outage while crawling: the ERROR, then "reachable again"
            worker = start_worker(
                project, [site.url("open", f"/page/{i}") for i in range(10, 16)], 0, tmp_path / "o.jsonl"
            )
            deadline = time.monotonic() + 120
            while not site.requests_for("open", prefix="/page/1"):
                assert time.monotonic() < deadline, "the crawl did not start"
                time.sleep(0.02)
            server.kill()
            # down until the crawl has met the outage: a fixed pause could end, on a loaded
            # machine, before the crawl's next store call, and then there is nothing to log
            said, reader = _lines_of(worker)
            while not any("unreachable" in line for line in said):
                assert time.monotonic() < deadline + 60, "the crawl never met the outage"
                time.sleep(0.05)
            server.start()
            worker.wait(timeout=180)
            reader.join(timeout=10)
            outputs["outage"] = "".join(said)
            # a wrong password
            settings.write_text(settings.read_text().replace(SECRET, SECRET + "-wrong"))
            wrong, _ = crawl_targets(project, [site.url("open", "/page/20")])
            outputs["wrong password"] = wrong.stdout + wrong.stderr
            settings.write_text(settings.read_text().replace(SECRET + "-wrong", SECRET))
            # a store that lost its data, and its reset
            redis.Redis.from_url(server.url).flushall()
            lost, _ = crawl_targets(project, [site.url("open", "/page/21")])
            outputs["lost"] = lost.stdout + lost.stderr
            for name, args in {
                "reset": ["walsh", "state", "reset"],
                "reset yes": ["walsh", "state", "reset", "--yes"],
            }.items():
                done = run_scrapy(args, cwd=project)
                outputs[name] = done.stdout + done.stderr
        finally:
            server.stop()
    leaked = [name for name, text in outputs.items() if SECRET in text]
    assert not leaked, {name: [line for line in outputs[name].splitlines() if SECRET in line][:3] for name in leaked}
    masked = f"redis://:***@127.0.0.1:{server.port}/0"
    for name in ("crawl", "state show", "state show json", "outage", "wrong password", "lost", "reset", "reset yes"):
        assert masked in outputs[name], (name, outputs[name][-2000:])
    assert "reachable again" in outputs["outage"] and "unreachable" in outputs["outage"]
    assert "refused" in outputs["wrong password"] and "has lost it" in outputs["lost"]
