"""One ledger per identity per machine, by default, so R4 holds across projects. Two projects with default
settings (one ``XDG_STATE_HOME``, as one user's) and ``scrapy walsh explain`` from a third
directory, all on one host at once: the server sees no gap under 1 s, robots.txt once,
never two requests in flight. Plus two processes writing one sqlite ledger concurrently."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

from tests.helpers import CLOCK_TOLERANCE, GATES_SPIDER, add_addon_line, new_project


def _start(args, cwd) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "SCRAPY_SETTINGS_MODULE"}
    return subprocess.Popen(
        [sys.executable, "-m", "scrapy", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _project(root, site):
    root.mkdir()
    project = new_project(root)
    add_addon_line(project, site=site)
    (project / "plainproj" / "spiders" / "gates.py").write_text(GATES_SPIDER)
    return project


def test_two_projects_and_explain_share_one_ledger(tmp_path, demo_site):
    one, two, three = (_project(tmp_path / name, demo_site) for name in ("one", "two", "three"))
    urls = ",".join(demo_site.url("open", f"/page/{i}") for i in range(1, 4))
    procs = [
        _start(["crawl", "gates", "-a", f"urls={urls}"], one),
        _start(["crawl", "gates", "-a", f"urls={urls.replace('/page/', '/page/1')}"], two),
        _start(["walsh", "explain", demo_site.url("open", "/page/9")], three),
    ]
    outs = [p.communicate(timeout=180) for p in procs]
    for proc, (_, err) in zip(procs, outs):
        assert proc.returncode == 0, err[-3000:]
    assert "shared by every process of the identity on this machine" in outs[0][1]
    seen = sorted(demo_site.requests_for("open"), key=lambda r: r["mono"])
    paths = [r["path"] for r in seen]
    assert paths.count("/robots.txt") == 1, paths
    assert len(paths) == 7, paths  # robots.txt + 3 + 3 pages (explain read the stored robots.txt)
    gaps = [b["mono"] - a["mono"] for a, b in zip(seen, seen[1:])]
    assert min(gaps) >= 1.0 - CLOCK_TOLERANCE, list(zip(paths[1:], gaps))
    for a, b in zip(seen, seen[1:]):
        assert b["mono"] >= a["end"], f"{b['path']} arrived while {a['path']} was still being answered"


WRITER = textwrap.dedent(
    """
    import json, sys, time
    from scrapy_walsh.store import SqliteStore, Ledger
    store = SqliteStore(sys.argv[1], "Walsh-Research")
    ledger = Ledger(store, "pacing")
    me, taken = sys.argv[2], []
    deadline = time.time() + float(sys.argv[3])
    while time.time() < deadline:
        for k in range(20):
            host = f"h{k}.example"
            done = ledger.reserve(host, 0.05, 0.0, {"by": me}, ttl=60)
            if not done.wait:
                taken.append((host, done.now))
                ledger.advance(host, {"not_before": 0.0}, {f"seen_{me}": len(taken)}, ttl=60)
    print(json.dumps(taken))
    """
)


def test_two_processes_on_one_sqlite_file_never_overwrite_each_others_entries(tmp_path):
    """Each reservation is one BEGIN IMMEDIATE transaction: the slots two processes take on
    one file never overlap (spacing holds), and each keeps the other's fields."""
    path = tmp_path / "shared.sqlite3"
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    procs = [
        subprocess.Popen([sys.executable, str(script), str(path), name, "3"], stdout=subprocess.PIPE, text=True)
        for name in ("a", "b")
    ]
    taken = [json.loads(p.communicate(timeout=60)[0]) for p in procs]
    assert all(procs[i].returncode == 0 for i in range(2))
    assert all(taken), "both processes took slots"
    from scrapy_walsh.store import SqliteStore

    store = SqliteStore(path, "Walsh-Research")
    entries = dict(store.items("pacing"))
    assert len(entries) == 20
    # both processes wrote every host, and neither's field was lost to the other's write
    assert all("seen_a" in v and "seen_b" in v for v in entries.values()), entries
    # never two takes of one host inside one interval, whichever process took them (the store's
    # clock is read inside the transaction, after the write lock, so commits are in time order)
    by_host: dict[str, list[float]] = {}
    for host, at in taken[0] + taken[1]:
        by_host.setdefault(host, []).append(at)
    gaps = [b - a for times in by_host.values() for a, b in zip(sorted(times), sorted(times)[1:])]
    assert min(gaps) >= 0.05 - 1e-6, min(gaps)
    assert store.counts["transactions"] >= 1


OPENER = textwrap.dedent(
    """
    import sys, time
    from scrapy_walsh.store import SqliteStore
    start = float(sys.argv[2])
    time.sleep(max(0.0, start - time.time() - 0.02))
    while time.time() < start:  # every process opens at the same instant (spinning 20 ms at most)
        pass
    print(SqliteStore(sys.argv[1], "Walsh-Research").store_id)
    """
)


def test_processes_opening_a_new_default_store_at_once_all_open_the_same_store(tmp_path):
    """The default store is shared per identity, so on a new machine several crawls may create it
    at the same instant: none may fail (sqlite answered "database is locked" to the WAL switch,
    and the id file's temporary name was shared), and all get the one store id."""
    script = tmp_path / "opener.py"
    script.write_text(OPENER)
    for round_ in range(4):
        path = tmp_path / f"r{round_}" / "state.sqlite3"
        start = time.time() + 2.0
        procs = [
            subprocess.Popen(
                [sys.executable, str(script), str(path), repr(start)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(8)
        ]
        results = [p.communicate(timeout=60) for p in procs]
        assert all(p.returncode == 0 for p in procs), [err[-300:] for _, err in results if err]
        ids = {out.strip() for out, _ in results}
        assert len(ids) == 1, ids
        assert (path.parent / "state.sqlite3.id").read_text().strip() in ids


RESERVER = textwrap.dedent(
    """
    import sys
    from scrapy_walsh.store import SqliteStore, Ledger
    ledger = Ledger(SqliteStore(sys.argv[1], "Walsh-Research"), "pacing")
    done = ledger.reserve("h.example", 30.0, 0.0, ttl=90)
    assert done.wait == 0
    print(done.now, flush=True)  # the request would leave now
    sys.stdin.read()  # killed here
    """
)


def test_a_reservation_survives_kill_9_before_its_request_leaves(tmp_path):
    """The reservation is committed without its own fsync (docs/state-store-durability.md), yet it is in
    the WAL before ``reserve`` returns: a process SIGKILLed right after never lets the next
    process take the slot early."""
    path = tmp_path / "s.sqlite3"
    script = tmp_path / "reserver.py"
    script.write_text(RESERVER)
    child = subprocess.Popen(
        [sys.executable, str(script), str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    stamped = float(child.stdout.readline())
    child.kill()
    child.wait(timeout=10)
    from scrapy_walsh.store import Ledger, SqliteStore

    again = Ledger(SqliteStore(path, "Walsh-Research"), "pacing").reserve("h.example", 30.0, 0.0, ttl=90)
    assert again.wait > 25, again
    assert again.value["last_start"] == stamped
