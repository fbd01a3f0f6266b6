"""Plan: ``scrapy walsh plan``'s time against the real duration of the same multi-host crawl.

    .venv/bin/python bench/plan_bench.py [--shapes 5x8,20x4,3x15] [--latency 0.02] [--rounds 1]

Per shape HOSTS x PAGES (every answer after ``--latency`` seconds, from the loopback server
bench/_loopback.py shares), in one run: ``scrapy walsh plan scale`` (a dry run: the server sees
each host's robots.txt, never a page) then ``scrapy crawl scale`` with the same settings and
store. The crawl's duration is the server's span from the first to the last page it answered
(its own clock, robots.txt left out: plan fetched it, so the crawl reads it from the store);
plan's estimate is its ``seconds``. The baseline, in the same run, is the naive estimate a user
would make without the pacing model: every request one floor interval apart
(``HOSTS x PAGES - 1`` seconds). Aim: plan within 10 % of the real duration.
Figures, not a test (bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _loopback import BenchServer  # noqa: E402
from scale_bench import BENCH_IP, make_project, settings_for  # noqa: E402

from demo_site import DemoSite, environ  # noqa: E402

AIM = 0.10


def scrapy(project: Path, command: list[str], hosts: int, pages: int, port: int) -> subprocess.CompletedProcess:
    env = {k: v for k, v in environ().items() if k != "SCRAPY_SETTINGS_MODULE"}
    env["XDG_STATE_HOME"] = str(project / "state")  # one store per shape, shared by plan and crawl
    args = []
    for arg in (f"hosts={hosts}", f"port={port}", f"pages={pages}", "shard=0", "of=1"):
        args += ["-a", arg]
    return subprocess.run(
        [sys.executable, "-m", "scrapy", *command, *args], cwd=project, env=env, capture_output=True, text=True
    )


def run_shape(root: Path, hosts: int, pages: int, latency: float) -> dict:
    server = BenchServer(BENCH_IP, latency)
    try:
        with DemoSite(hosts=["ops"]) as site:
            project = make_project(root / f"{hosts}x{pages}", settings_for("a", site))
            planned = scrapy(project, ["walsh", "plan", "scale", "--json"], hosts, pages, server.port)
            if planned.returncode:
                raise SystemExit(planned.stderr[-3000:])
            plan = json.loads(planned.stdout)
            seen = len(server.log)
            pages_in_plan = sum(1 for _, path, _ in server.log if path != "/robots.txt")
            time.sleep(1.1)  # plan's robots.txt fetches start each host's interval; the crawl waits it out
            crawled = scrapy(project, ["crawl", "scale"], hosts, pages, server.port)
            if crawled.returncode:
                raise SystemExit(crawled.stderr[-3000:])
    finally:
        server.stop()
    answered = [t for _, path, t in server.log[seen:] if path != "/robots.txt"]
    actual = max(answered) - min(answered) + latency if answered else 0.0
    return {
        "shape": f"{hosts}x{pages}",
        "plan_pages_sent": pages_in_plan,
        "planned_targets": len(plan["fetch"]),
        "crawled_pages": len(answered),
        "plan_s": plan["seconds"],
        "naive_s": float(hosts * pages - 1),
        "actual_s": round(actual, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="5x8,20x4,3x15", help="HOSTSxPAGES, comma-separated")
    parser.add_argument("--latency", type=float, default=0.02, help="seconds before each answer")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--workdir", help="keep the projects here (default: a temporary directory)")
    args = parser.parse_args()
    shapes = [tuple(int(n) for n in shape.split("x")) for shape in args.shapes.split(",")]
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print("shape   plan-sent  targets  crawled  plan s  actual s  plan err  naive s  naive err")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.workdir or tmp)
        for round_ in range(args.rounds):
            for hosts, pages in shapes:
                r = run_shape(root / f"round{round_}", hosts, pages, args.latency)
                err = (r["plan_s"] - r["actual_s"]) / r["actual_s"] if r["actual_s"] else float("nan")
                naive = (r["naive_s"] - r["actual_s"]) / r["actual_s"] if r["actual_s"] else float("nan")
                print(
                    f"{r['shape']:<7} {r['plan_pages_sent']:>9}  {r['planned_targets']:>7}  {r['crawled_pages']:>7}  "
                    f"{r['plan_s']:>6.1f}  {r['actual_s']:>8.2f}  {err:>+8.1%}  {r['naive_s']:>7.1f}  {naive:>+9.1%}"
                    + ("" if abs(err) <= AIM else "  (outside the aim)")
                )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
