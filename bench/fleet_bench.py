"""Fleet mode: throughput of 1, 2 and 4 crawler processes sharing one Redis.

    .venv/bin/python bench/fleet_bench.py [--workdir DIR] [--overlap] [--hosts 100] [--pages 3]
                                          [--processes 1,2,4] [--breakdown]

100 hosts x 3 pages, every answer delayed 100 ms, so that a single process is bound by
latency (one request at a time per process) and not by per-host spacing: this is where
more processes help. The 100 host names (``h000.fleet-bench.test`` ...) all resolve to
127.0.1.1, where a small stdlib server (in this script) answers robots.txt (allow all)
and the pages, and logs each request's Host and arrival time. Pacing is per host name,
so 100 names are 100 hosts to the crawler. The operator blocklist comes from the demo
site's ``ops`` host.

Two times per run: the crawl time (server clock, first to last request the fleet sent:
what more processes can shorten) and the wall time (launch to last exit, which adds
each process's start-up: importing Scrapy and opening the spider, several seconds per
process on a loaded machine, paid in parallel). The aim is judged on the crawl time.

Each run starts a fresh redis-server (tests/redis_server.py) and N ``scrapy crawl``
processes with ``WALSH_STATE_URI`` pointing at it. By default the targets are sharded
(process k gets hosts k, k+N, ...), as a shared scrapy-redis queue would hand them out;
``--overlap`` gives every process every target instead (the fetch claims then make each
page fetched once). Printed per run: both times, aggregate throughput (requests the
server saw per second of crawl time), the scaling ratio against 1 process,
Redis round trips per request (``walsh/store/round_trips`` summed over processes,
divided by the requests the server saw), and spacing violations (same-host
start-to-start gaps under 1 s - 20 ms, server clock); ``--breakdown`` adds the round trips per
request by call site (bench/_loopback.py's ``TRIPS``). Aim: 4 processes in under 0.35x
the time of 1, zero violations. Figures, not a test (bench/README.md).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _loopback import TRIPS, BenchServer, print_trip_sites, resolver_source, trip_sites, violations  # noqa: E402

from demo_site import DemoSite, environ  # noqa: E402
from tests.helpers import GATES_SPIDER, demo_settings  # noqa: E402
from tests.redis_server import RedisServer  # noqa: E402

BENCH_IP = "127.0.1.1"
DOMAIN = "fleet-bench.test"
LATENCY = 0.100
AIM = 0.35


def make_project(root: Path, site: DemoSite, redis_url: str, breakdown: bool = False) -> Path:
    project = root / "project"
    package = project / "benchproj"
    (package / "spiders").mkdir(parents=True, exist_ok=True)
    (project / "scrapy.cfg").write_text("[settings]\ndefault = benchproj.settings\n")
    (package / "__init__.py").write_text("")
    (package / "resolver.py").write_text(resolver_source(DOMAIN, BENCH_IP))
    (package / "spiders" / "__init__.py").write_text("")
    (package / "spiders" / "gates.py").write_text(GATES_SPIDER)
    (package / "trips.py").write_text(TRIPS)
    (package / "settings.py").write_text(
        ("import benchproj.trips  # noqa: F401\n" if breakdown else "")
        + 'BOT_NAME = "benchproj"\nSPIDER_MODULES = ["benchproj.spiders"]\nLOG_LEVEL = "INFO"\n'
        'ADDONS = {"scrapy_walsh.Addon": 500}\n'
        + demo_settings(site)
        + 'TWISTED_DNS_RESOLVER = DNS_RESOLVER = "benchproj.resolver.BenchResolver"\n'
        + f"WALSH_ALLOW_PRIVATE_ADDRESSES = WALSH_ALLOW_PRIVATE_ADDRESSES + [{BENCH_IP + '/32'!r}]\n"
        + f"WALSH_STATE_URI = {redis_url!r}\n"
    )
    return project


def run(n: int, root: Path, hosts: int, pages: int, overlap: bool, breakdown: bool = False) -> dict:
    work = root / f"run_{n}"
    work.mkdir(parents=True, exist_ok=True)
    server = BenchServer(BENCH_IP, LATENCY)
    try:
        with RedisServer(work / "redis") as redis, DemoSite(hosts=["ops"]) as site:
            project = make_project(work, site, redis.url, breakdown)
            names = [f"h{i:03d}.{DOMAIN}" for i in range(hosts)]
            env = {k: v for k, v in environ().items() if k != "SCRAPY_SETTINGS_MODULE"}
            # the run's own state directory: a machine remembers a store's id by its address, and a
            # fresh Redis on a port an earlier run (or test) used is refused as a store that lost it
            env["XDG_STATE_HOME"] = str(work / "state")
            procs = []
            started = time.monotonic()
            for k in range(n):
                mine = names if overlap else names[k::n]
                urls = [f"http://{h}:{server.port}/page/{p}" for p in range(1, pages + 1) for h in mine]
                procs.append(
                    subprocess.Popen(
                        [
                            sys.executable,
                            "-m",
                            "scrapy",
                            "crawl",
                            "gates",
                            "-a",
                            "urls=" + ",".join(urls),
                            "-O",
                            str(work / f"items_{k}.jsonl"),
                        ],
                        cwd=project,
                        env=env,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE,
                        text=True,
                    )
                )
            logs = [p.communicate(timeout=1800)[1] for p in procs]
            wall = time.monotonic() - started
    finally:
        server.stop()
    for k, log in enumerate(logs):
        (work / f"crawl_{k}.log").write_text(log)
    log = list(server.log)
    trips = 0
    for text in logs:
        match = re.search(r"'walsh/store/round_trips': (\d+)", text)
        trips += int(match.group(1)) if match else 0
    pages_seen = Counter(path for host, path, _ in log if path != "/robots.txt")
    fetched = Counter((host, path) for host, path, _ in log if path != "/robots.txt")
    return {
        "n": n,
        "wall": wall,
        "requests": len(log),
        "span": max(t for *_, t in log) - min(t for *_, t in log),
        "robots": sum(1 for _, p, _ in log if p == "/robots.txt"),
        "pages": sum(pages_seen.values()),
        "dup_pages": sum(c - 1 for c in fetched.values() if c > 1),
        "violations": violations(log),
        "trips": trips,
        "exit": [p.returncode for p in procs],
        "sites": trip_sites(project),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", help="keep projects, crawl logs and Redis files here (default: a temp dir)")
    parser.add_argument("--overlap", action="store_true", help="every process gets every target")
    parser.add_argument("--hosts", type=int, default=100)
    parser.add_argument("--pages", type=int, default=3)
    parser.add_argument("--processes", default="1,2,4")
    parser.add_argument("--breakdown", action="store_true", help="print the Redis round trips per request by call site")
    args = parser.parse_args()
    counts = [int(c) for c in args.processes.split(",")]
    print(
        f"{args.hosts} hosts x {args.pages} pages, {LATENCY * 1000:.0f} ms latency, targets "
        f"{'overlapping (every process has all)' if args.overlap else 'sharded by host'}; one fresh Redis per run"
    )
    with tempfile.TemporaryDirectory(prefix="fleet_bench_") as tmp:
        root = Path(args.workdir or tmp)
        results = []
        for n in counts:
            r = run(n, root, args.hosts, args.pages, args.overlap, args.breakdown)
            results.append(r)
            print(
                f"  {n} process(es): exit {r['exit']}, wall {r['wall']:.1f} s, {r['requests']} requests "
                f"({r['robots']} robots.txt, {r['pages']} pages, {r['dup_pages']} duplicate page fetches), "
                f"server span {r['span']:.1f} s, {len(r['violations'])} violations {r['violations'][:5]}",
                flush=True,
            )
            if args.breakdown:
                print_trip_sites(r["sites"], r["requests"])
        base = results[0]
        print(
            "\n  processes  crawl (s)  requests/s  crawl vs 1   wall (s)  wall vs 1  Redis round trips/request"
            "  violations"
        )
        for r in results:
            print(
                f"  {r['n']:>9} {r['span']:>10.1f} {r['requests'] / r['span']:>11.2f}"
                f" {r['span'] / base['span']:>10.3f}x {r['wall']:>10.1f} {r['wall'] / base['wall']:>9.3f}x"
                f" {r['trips'] / max(1, r['requests']):>26.2f}"
                f" {len(r['violations']):>11}"
            )
        last = results[-1]
        ratio = last["span"] / base["span"]
        met = ratio < AIM and not any(r["violations"] for r in results)
        print(
            f"\n  aim: {last['n']} processes < {AIM}x the crawl time of {base['n']}, 0 violations: "
            f"{'met' if met else 'NOT met'} ({ratio:.3f}x)"
        )
        if args.workdir:
            print(f"  logs: {root}")


if __name__ == "__main__":
    main()
