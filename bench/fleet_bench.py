"""Fleet mode: throughput of 1, 2 and 4 crawler processes sharing one Redis.

    .venv/bin/python bench/fleet_bench.py [--workdir DIR] [--overlap] [--hosts 100] [--pages 3]
                                          [--processes 1,2,4] [--breakdown] [--web]

100 hosts x 3 pages, every answer delayed 100 ms, so that a single process is bound by
latency (one request at a time per process) and not by per-host spacing: this is where
more processes help. The 100 host names (``h000.fleet-bench.test`` ...) all resolve to
127.0.1.1, where a small stdlib server (in this script) answers robots.txt (allow all)
and the pages, and logs each request's Host and arrival time. Pacing is per host name,
so 100 names are 100 hosts to the crawler. The operator blocklist comes from the demo
site's ``ops`` host.

``--web`` gives every answer its own log-normal latency instead (the latency bench's: median
150 ms, fixed per host and path), as on the web. Printed per run besides: each process's busy
share (its CPU seconds over the crawl time), and the Redis commands and Redis CPU per request
(the server's own account, less what an idle Redis spends in the same time; in brackets the part
spent running the commands, the rest being I/O and the append-only file's fsync).

Two times per run: the crawl time (server clock, first to last request the fleet sent:
what more processes can shorten) and the wall time (launch to last exit, which adds
each process's start-up: importing Scrapy and opening the spider, several seconds per
process on a loaded machine, paid in parallel). The aim is judged on the crawl time.

Each run starts a fresh redis-server (tests/redis_server.py) and N ``scrapy crawl``
processes with ``WALSH_STATE_URI`` pointing at it. By default the targets are sharded
(process k gets hosts k, k+N, ...), fixed at the start (a shared scrapy-redis queue would hand
them out as processes ask, evening out the shards' answer times);
``--overlap`` gives every process every target instead (the fetch claims then make each
page fetched once). Printed per run: both times, aggregate throughput (requests the
server saw per second of crawl time), the scaling ratio against 1 process,
Redis round trips per request (``walsh/store/round_trips`` summed over processes,
divided by the requests the server saw), and spacing violations (same-host
start-to-start gaps under 1 s - 20 ms, server clock); ``--breakdown`` adds the round trips per
request by call site (bench/_loopback.py's ``TRIPS``). Then, per run, where each process's time
went (``where_the_time_goes``). Aim: N processes in at most 1.1/N of the crawl time of 1, up to
8, with zero violations and duplicates. Figures, not a test (bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import redis  # noqa: E402
from _loopback import TRIPS, BenchServer, print_trip_sites, resolver_source, trip_sites, violations  # noqa: E402
from latency_bench import MEDIAN, LatencyServer, latency  # noqa: E402

from demo_site import DemoSite, environ  # noqa: E402
from tests.helpers import GATES_SPIDER, demo_settings  # noqa: E402
from tests.redis_server import RedisServer  # noqa: E402

BENCH_IP = "127.0.1.1"
DOMAIN = "fleet-bench.test"
LATENCY = 0.100
#: N processes in at most AIM / N of one process's crawl time, up to AIM_UP_TO processes
AIM, AIM_UP_TO = 1.1, 8


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


def redis_costs(url: str) -> dict:
    """What the run's Redis spent in all: its CPU seconds, and the commands it ran."""
    client = redis.Redis.from_url(url)
    try:
        cpu, commands = client.info("cpu"), client.info("commandstats")
    finally:
        client.close()
    ours = [v for k, v in commands.items() if k != "cmdstat_info"]
    return {
        "cpu": float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]),
        "commands": sum(int(v["calls"]) for v in ours),
        # the time spent running the commands themselves (scripts included), not in I/O or fsync
        "running": sum(int(v["usec"]) for v in ours) / 1e6,
    }


def idle_redis_cpu(root: Path, seconds: float = 10.0) -> float:
    """CPU seconds per second of a Redis with no client (its timers, its append-only file):
    taken off each run's Redis CPU, so what is left is what the requests cost."""
    with RedisServer(root / "idle") as server:
        before = redis_costs(server.url)["cpu"]
        time.sleep(seconds)
        return (redis_costs(server.url)["cpu"] - before) / seconds


def run(n: int, root: Path, hosts: int, pages: int, overlap: bool, breakdown: bool = False, web: bool = False) -> dict:
    work = root / f"run_{n}"
    work.mkdir(parents=True, exist_ok=True)
    # --web: every answer after its own log-normal latency (the latency bench's), no host hanging
    server = LatencyServer(BENCH_IP, 0.0) if web else BenchServer(BENCH_IP, LATENCY)
    try:
        with RedisServer(work / "redis") as redis, DemoSite(hosts=["ops"]) as site:
            alive = time.monotonic()
            project = make_project(work, site, redis.url, breakdown)
            names = [f"h{i:05d}.{DOMAIN}" for i in range(hosts)]
            env = {k: v for k, v in environ().items() if k != "SCRAPY_SETTINGS_MODULE"}
            # the run's own state directory: a machine remembers a store's id by its address, and a
            # fresh Redis on a port an earlier run (or test) used is refused as a store that lost it
            env["XDG_STATE_HOME"] = str(work / "state")
            procs, logs = [], []
            started = time.monotonic()
            for k in range(n):
                mine = names if overlap else names[k::n]
                urls = [f"http://{h}:{server.port}/page/{p}" for p in range(1, pages + 1) for h in mine]
                logs.append(open(work / f"crawl_{k}.log", "w"))  # noqa: SIM115 - closed after its process
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
                        stderr=logs[-1],
                    )
                )
            # each process's CPU seconds (user + system), from the kernel's account of it
            cpu = []
            for process, out in zip(procs, logs):
                _, status, usage = os.wait4(process.pid, 0)
                process.returncode = os.waitstatus_to_exitcode(status)
                cpu.append(usage.ru_utime + usage.ru_stime)
                out.close()
            wall = time.monotonic() - started
            spent = redis_costs(redis.url)
            spent["alive"] = time.monotonic() - alive
    finally:
        server.stop()
    texts = [(work / f"crawl_{k}.log").read_text() for k in range(n)]
    log = list(server.log)
    # what the server saw, for a trace of each process's share of the span (where_the_time_goes)
    (work / "server.json").write_text(json.dumps({"started": started, "log": log}))
    trips, waited = 0, []
    for text in texts:
        match = re.search(r"'walsh/store/round_trips': (\d+)", text)
        trips += int(match.group(1)) if match else 0
        match = re.search(r"'walsh/store/wait_seconds': ([\d.]+)", text)
        waited.append(float(match.group(1)) if match else 0.0)
    pages_seen = Counter(path for host, path, _ in log if path != "/robots.txt")
    fetched = Counter((host, path) for host, path, _ in log if path != "/robots.txt")
    return {
        "n": n,
        "log": log,
        "wall": wall,
        "requests": len(log),
        "span": max(t for *_, t in log) - min(t for *_, t in log),
        "robots": sum(1 for _, p, _ in log if p == "/robots.txt"),
        "pages": sum(pages_seen.values()),
        "dup_pages": sum(c - 1 for c in fetched.values() if c > 1),
        "violations": violations(log),
        "trips": trips,
        "redis_wait": waited,
        "cpu": cpu,
        "redis_cpu": spent["cpu"],
        "redis_alive": spent["alive"],
        "redis_commands": spent["commands"],
        "redis_running": spent["running"],
        "exit": [p.returncode for p in procs],
        "sites": trip_sites(project),
    }


def where_the_time_goes(r: dict, web: bool) -> dict:
    """Each process's share of the span, from the server's clock (process k has hosts k, k+N ...):
    when its first request came after the fleet's first (start-up), when its last answer ended,
    the answer time it waited (the sum of its requests' latencies) and the rest of its span (its
    own work between an answer and its next request: CPU, Redis, the event loop)."""
    n, log = r["n"], r["log"]
    t0 = min(t for *_, t in log)
    per: dict[int, list] = {}
    for host, path, t in log:
        name = host.split(":")[0]
        per.setdefault(int(name.split(".")[0][1:]) % n, []).append((t, name, path))
    first, end, waited, rest = [], [], [], []
    for reqs in per.values():
        reqs.sort()
        lat = [latency(h, p) if web else LATENCY for _, h, p in reqs]
        first.append(reqs[0][0] - t0)
        end.append(reqs[-1][0] - t0 + lat[-1])
        waited.append(sum(lat))
        rest.append(end[-1] - first[-1] - waited[-1])
    return {"first": first, "end": end, "waited": waited, "rest": rest, "requests": len(log)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", help="keep projects, crawl logs and Redis files here (default: a temp dir)")
    parser.add_argument("--overlap", action="store_true", help="every process gets every target")
    parser.add_argument("--hosts", type=int, default=100)
    parser.add_argument("--pages", type=int, default=3)
    parser.add_argument("--processes", default="1,2,4")
    parser.add_argument("--breakdown", action="store_true", help="print the Redis round trips per request by call site")
    parser.add_argument("--web", action="store_true", help="the web's latencies: log-normal, median 150 ms")
    args = parser.parse_args()
    counts = [int(c) for c in args.processes.split(",")]
    delay = f"log-normal latency (median {MEDIAN * 1000:.0f} ms)" if args.web else f"{LATENCY * 1000:.0f} ms latency"
    print(
        f"{args.hosts} hosts x {args.pages} pages, {delay}, targets "
        f"{'overlapping (every process has all)' if args.overlap else 'sharded by host'}; one fresh Redis per run"
    )
    with tempfile.TemporaryDirectory(prefix="fleet_bench_") as tmp:
        root = Path(args.workdir or tmp)
        idle = idle_redis_cpu(root)
        print(f"an idle Redis: {1000 * idle:.2f} ms of CPU per second (taken off each run's Redis CPU)")
        results = []
        for n in counts:
            r = run(n, root, args.hosts, args.pages, args.overlap, args.breakdown, args.web)
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
            "\n  processes  crawl (s)  requests/s  crawl vs 1   wall (s)  wall vs 1  busy share"
            "  Redis round trips/request  Redis commands/request  Redis CPU ms/request (running commands)  violations"
        )
        for r in results:
            # a process's busy share: its CPU seconds over the crawl time (the rest is waiting)
            busy = [c / r["span"] for c in r["cpu"]]
            print(
                f"  {r['n']:>9} {r['span']:>10.1f} {r['requests'] / r['span']:>11.2f}"
                f" {r['span'] / base['span']:>10.3f}x {r['wall']:>10.1f} {r['wall'] / base['wall']:>9.3f}x"
                f" {min(busy):>4.2f}-{max(busy):.2f}"
                f" {r['trips'] / max(1, r['requests']):>26.2f}"
                f" {r['redis_commands'] / max(1, r['requests']):>23.2f}"
                f" {1000 * (r['redis_cpu'] - idle * r['redis_alive']) / max(1, r['requests']):>21.3f}"
                f" ({1000 * r['redis_running'] / max(1, r['requests']):.3f})"
                f" {len(r['violations']):>11}"
            )
        print(
            "\n  where the time goes, per process (server clock, seconds from the fleet's first request):"
            "\n  processes  first request  last answer ends  answer time waited  own time between answers"
            "  (per request)"
        )
        for r in results:
            w = where_the_time_goes(r, args.web)
            spans = [f"{min(w[k]):.1f}-{max(w[k]):.1f}" for k in ("first", "end", "waited", "rest")]
            print(
                f"  {r['n']:>9} {spans[0]:>14} {spans[1]:>17} {spans[2]:>19} {spans[3]:>24}"
                f" {1000 * sum(w['rest']) / w['requests']:>10.1f} ms, of it waiting on Redis"
                f" {1000 * sum(r['redis_wait']) / w['requests']:.2f} ms"
            )
        print()
        for r in results[1:]:
            if r["n"] <= AIM_UP_TO and base["n"] == 1:
                ratio = r["span"] / base["span"]
                met = ratio <= AIM / r["n"] and not r["violations"] and not r["dup_pages"]
                print(
                    f"  aim: {r['n']} processes <= {AIM / r['n']:.3f}x the crawl time of 1, 0 violations, "
                    f"0 duplicates: {'met' if met else 'NOT met'} ({ratio:.3f}x)"
                )
        if args.workdir:
            print(f"  logs: {root}")


if __name__ == "__main__":
    main()
