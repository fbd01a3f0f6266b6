"""Scale: requests per second at 100 to 50,000 hosts, against the serial engine ceiling.

    .venv/bin/python bench/scale_bench.py [--hosts 100,1000,10000,50000] [--seconds 60]
                                          [--fleet-hosts 10000] [--no-fleet] [--workdir DIR]

N hosts x 2 pages, every answer after 2 ms, one process, three crawls per N in one run:

  (a) the add-on line (with the settings that keep it on loopback);
  (b) the serial engine ceiling: stock Scrapy, one request at a time, no delay, no
      robots.txt: what one serial Scrapy process can send on this machine;
  (c) stock Scrapy as compliant as it gets: CONCURRENT_REQUESTS=1, DOWNLOAD_DELAY=1
      without jitter, ROBOTSTXT_OBEY, our User-Agent.

Every host name (``h00000.scale-bench.test`` ...) resolves to 127.0.2.1, where one
stdlib server (bench/_loopback.py) answers robots.txt and the pages and logs what it
saw. Each crawl stops when done or after ``--seconds`` (``CLOSESPIDER_TIMEOUT``):
a time box, because (c) sends a few requests per second and 100,000 pages would take
hours. req/s is the server's count over its own first-to-last span, robots.txt
included (the add-on's cost of compliance). Printed per N: req/s of (a), (b), (c),
(a)/(b) and (a)/(c), peak RSS of each crawl process and the add-on's extra RSS per
host over the ceiling's, and spacing violations (same-host gaps under 1 s - 20 ms,
server clock) of (a) and (c), and CPU ms per request over the span and over its second half
(a start of many requests is read while the crawl runs: the second half leaves it out). Aim:
(a)/(b) >= 0.9 at every N (per-request cost flat in the hosts), 0 violations.

The fleet row: 4 processes of the add-on sharing one Redis (a fresh redis-server),
``--fleet-hosts`` hosts sharded between them, with Redis round trips per request
(``walsh/store/round_trips`` summed over the processes / requests the server saw).
Figures, not a test (bench/README.md).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _loopback import BenchServer, CpuSampler, resolver_source, violations, wait_rss  # noqa: E402

from demo_site import DemoSite, environ  # noqa: E402
from scrapy_walsh.settings import USER_AGENT  # noqa: E402
from tests.helpers import demo_settings  # noqa: E402

BENCH_IP = "127.0.2.1"
DOMAIN = "scale-bench.test"
LATENCY = 0.002
PAGES = 2
AIM = 0.9
#: the sqlite store's counters, per request (stats walsh/store/...)
STORE_COUNTS = ("transactions", "unsynced_transactions", "reads", "keys_read")

SPIDER = """
import time

import scrapy


class ScaleSpider(scrapy.Spider):
    name = "scale"

    async def start(self):
        hosts, port, shard, of = int(self.hosts), int(self.port), int(self.shard), int(self.of)
        index = 0
        for page in range(1, int(self.pages) + 1):
            for h in range(shard, hosts, of):
                index += 1
                # earlier targets first (Scrapy's queues are LIFO among equal priorities)
                yield scrapy.Request(
                    f"http://h{h:05d}.DOMAIN:{port}/page/{page}", dont_filter=True, priority=-index
                )

    def parse(self, response):
        # -a work=SECONDS: the CPU a real callback spends on a page (parsing, building its item)
        busy = float(getattr(self, "work", 0) or 0)
        if busy:
            until = time.process_time() + busy
            while time.process_time() < until:
                pass
        return None
""".replace("DOMAIN", DOMAIN)

COMMON = """
BOT_NAME = "benchproj"
SPIDER_MODULES = ["benchproj.spiders"]
LOG_LEVEL = "INFO"
TELNETCONSOLE_ENABLED = False
"""
#: --steady: cProfile of CPU time from the first answer to the spider's close, so start-up (settings, audit,
#: config, imports) does not drown the per-request cost of a short crawl
PROFILER = """
import cProfile
import time

from scrapy import signals


class SteadyProfile:
    def __init__(self, path):
        self.path, self.profile = path, None

    @classmethod
    def from_crawler(cls, crawler):
        ext = cls(crawler.settings["BENCH_PROFILE"])
        crawler.signals.connect(ext.start, signals.response_received)
        crawler.signals.connect(ext.stop, signals.spider_closed)
        return ext

    def start(self, **kwargs):
        if self.profile is None:
            self.profile = cProfile.Profile(time.process_time)  # CPU, not the wait on the network
            self.profile.enable()

    def stop(self, **kwargs):
        if self.profile is not None:
            self.profile.disable()
            self.profile.dump_stats(self.path)


class SteadySample(SteadyProfile):
    # a sampling profile instead (one stack per millisecond of the process's CPU): a tracing
    # profiler inflates Python calls over C work, so it misranks a cost spread over small calls

    def start(self, **kwargs):
        if self.profile is None:
            import collections
            import signal

            self.profile = {
                "self": collections.Counter(),
                "inclusive": collections.Counter(),
                "stacks": collections.Counter(),
                "samples": 0,
            }
            signal.signal(signal.SIGPROF, self._sample)
            signal.setitimer(signal.ITIMER_PROF, 0.001, 0.001)

    def _sample(self, signum, frame):
        self.profile["samples"] += 1
        seen = set()
        top = True
        stack = []
        while frame is not None:
            code = frame.f_code
            name = f"{code.co_filename.split('site-packages/')[-1]}:{code.co_firstlineno}({code.co_name})"
            if top:
                self.profile["self"][name] += 1
                top = False
            if name not in seen:
                seen.add(name)
                self.profile["inclusive"][name] += 1
            stack.append(name)
            frame = frame.f_back
        self.profile["stacks"][" <- ".join(stack[:16])] += 1

    def stop(self, **kwargs):
        if self.profile is not None:
            import json
            import signal

            signal.setitimer(signal.ITIMER_PROF, 0, 0)
            with open(self.path, "w") as out:
                json.dump(self.profile, out)
            self.profile = None
"""
RESOLVE = 'TWISTED_DNS_RESOLVER = DNS_RESOLVER = "benchproj.resolver.BenchResolver"\n'
VARIANTS = {
    "a": "the add-on",
    "b": "serial engine ceiling",
    "c": "stock Scrapy, compliant",
}


def settings_for(variant: str, site: DemoSite, state_uri: str | None = None) -> str:
    if variant == "a":
        text = COMMON + 'ADDONS = {"scrapy_walsh.Addon": 500}\n' + demo_settings(site) + RESOLVE
        text += f"WALSH_ALLOW_PRIVATE_ADDRESSES = WALSH_ALLOW_PRIVATE_ADDRESSES + [{BENCH_IP + '/32'!r}]\n"
        return text + (f"WALSH_STATE_URI = {state_uri!r}\n" if state_uri else "")
    common = COMMON + RESOLVE + f"USER_AGENT = {USER_AGENT!r}\nCONCURRENT_REQUESTS = 1\n"
    if variant == "b":
        return common + "DOWNLOAD_DELAY = 0\nROBOTSTXT_OBEY = False\n"
    return common + (
        "CONCURRENT_REQUESTS_PER_DOMAIN = 1\nDOWNLOAD_DELAY = 1\nDOWNLOAD_DELAY_JITTER = 0\n"
        "RANDOMIZE_DOWNLOAD_DELAY = False\nROBOTSTXT_OBEY = True\n"
    )


def make_project(root: Path, settings: str) -> Path:
    package = root / "benchproj"
    (package / "spiders").mkdir(parents=True, exist_ok=True)
    (root / "scrapy.cfg").write_text("[settings]\ndefault = benchproj.settings\n")
    (package / "__init__.py").write_text("")
    (package / "resolver.py").write_text(resolver_source(DOMAIN, BENCH_IP))
    (package / "profiler.py").write_text(PROFILER)
    (package / "spiders" / "__init__.py").write_text("")
    (package / "spiders" / "scale.py").write_text(SPIDER)
    (package / "settings.py").write_text(settings)
    return root


def crawl(
    project: Path,
    hosts: int,
    port: int,
    seconds: float,
    shard: int = 0,
    of: int = 1,
    profile: str | None = None,
    pages: int = PAGES,
    work: float = 0.0,
) -> subprocess.Popen:
    env = {k: v for k, v in environ().items() if k != "SCRAPY_SETTINGS_MODULE"}
    # one state directory per crawl: the default store is per identity per machine,
    # and a bench run must neither read nor leave the user's ledger
    env["XDG_STATE_HOME"] = str(project / "state")
    args = [f"hosts={hosts}", f"port={port}", f"pages={pages}", f"shard={shard}", f"of={of}", f"work={work}"]
    profiler = ["-m", "cProfile", "-o", profile] if profile and profile.endswith(".prof") else []
    tracer = ["strace", "-f", "-c", "-o", profile, "-e", "trace=fsync,fdatasync"] if profile and not profiler else []
    command = [*tracer, sys.executable, *profiler, "-m", "scrapy", "crawl", "scale"]
    command += ["-s", f"CLOSESPIDER_TIMEOUT={seconds}"]
    for arg in args:
        command += ["-a", arg]
    with open(project / f"crawl_{shard}.log", "w") as log:  # the child keeps its own descriptor
        return subprocess.Popen(command, cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=log)


def _ratio(top: float, bottom: float, digits: int = 2) -> str:
    """``top / bottom`` for the table; "n/a" when the baseline sent nothing in its time box (at
    100,000 hosts the ceiling's start-up alone can outlast a short box)."""
    return f"{top / bottom:.{digits}f}" if bottom > 0 else "n/a"


def rate(log: list[tuple[str, str, float]]) -> float:
    if len(log) < 2:
        return 0.0
    times = [t for *_, t in log]
    return (len(log) - 1) / (max(times) - min(times))


def run_one(
    variant: str,
    hosts: int,
    seconds: float,
    root: Path,
    profile: str | None = None,
    extra: str = "",
    label: str = "",
    pages: int = PAGES,
) -> dict:
    work = root / f"{variant}_{hosts}{'_signed' if 'SIGNING' in extra else ''}{label}"
    server = BenchServer(BENCH_IP, LATENCY)
    try:
        with DemoSite(hosts=["ops"]) as site:
            project = make_project(work, settings_for(variant, site) + extra)
            started = time.monotonic()
            process = crawl(project, hosts, server.port, seconds, profile=profile, pages=pages)
            cpu = CpuSampler(process.pid)
            code, rss = wait_rss(process)
            exited = time.monotonic()
            cpu.join()
    finally:
        server.stop()
    log = list(server.log)
    times = [t for *_, t in log] or [0.0]
    first = min(times) if log else None
    text = (project / "crawl_0.log").read_text()
    counted = {k: int(m.group(1)) if (m := re.search(rf"'walsh/store/{k}': (\d+)", text)) else 0 for k in STORE_COUNTS}
    journal = re.search(r"'walsh/journal/cpu_seconds': ([\d.e-]+)", text)
    return {
        "rate": rate(log),
        "requests": len(log),
        "journal_cpu_ms": 1000 * float(journal.group(1)) / max(1, len(log)) if journal else 0.0,
        # CPU ms per request while the server saw requests (start-up and shutdown left out)
        "cpu_ms": 1000 * cpu.between(min(times), max(times)) / max(1, len(log) - 1),
        # the same over the span's second half: a long start() read while the crawl runs is left out
        "late_cpu_ms": 1000
        * cpu.between(late := statistics.median(times), max(times))
        / max(1, sum(t > late for t in times)),
        "rss": rss,
        "violations": len(violations(log)),
        "exit": code,
        # from the process's start to the first request the server saw: the wall clock, and the CPU it took
        "first_s": None if first is None else first - started,
        "first_cpu_s": None if first is None else cpu.between(started, first),
        "cpu_total_s": cpu.between(started, time.monotonic()),
        "duplicates": len(log) - len({(host, path) for host, path, _ in log}),
        # from the last request the server saw to the process's exit: the close, shutdown included
        "exit_s": None if first is None else exited - max(times),
        "peak_fds": cpu.peak_fds,
        "connections": server.accepted,
        **{k: v / max(1, len(log)) for k, v in counted.items()},
        "project": project,
    }


def fsyncs(hosts: int, seconds: float, root: Path) -> None:
    """(a) at ``hosts`` under ``strace -f -c``: fsync/fdatasync calls per request."""
    out = str(root / "strace.txt")
    run = run_one("a", hosts, seconds, root, profile=out)
    lines = Path(out).read_text().splitlines()
    calls = sum(int(line.split()[3]) for line in lines if line.rstrip().endswith(("fsync", "fdatasync")))
    print(
        f"(a) at {hosts} hosts under strace: {run['requests']} requests, {calls} fsync+fdatasync "
        f"({calls / max(1, run['requests']):.2f} per request), {run['transactions']:.2f} fsynced and "
        f"{run['unsynced_transactions']:.2f} other store transactions, "
        f"{run['reads']:.2f} store reads per request"
    )


def journal_cost(sizes: list[int], seconds: float, root: Path, rounds: int = 3) -> None:
    """(a) at each N with the journal off (``WALSH_JOURNAL = False``) and on, unsigned and signed,
    interleaved ``rounds`` times in the same run: the add-on process's CPU per request of each,
    the journal's share as the difference of the medians from journal-off, and its own thread-CPU
    stat (walsh/journal/cpu_seconds) against the process's CPU per request."""
    from scrapy_walsh.identity import webbotauth as signing

    key = root / "journal-bench.pem"
    root.mkdir(parents=True, exist_ok=True)
    key.write_bytes(signing.private_pem(signing.generate_key()))
    signed = f"WALSH_SIGNING_KEY = {str(key)!r}\nWALSH_SIGNATURE_AGENT = 'http://127.0.0.1/.well-known/x'\n"
    off = "WALSH_JOURNAL = False\n"
    # signing also signs each request (Web Bot Auth): its baseline is signed with the journal off
    variants = (("off", off), ("on", ""), ("s-off", signed + off), ("s-on", signed))
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print(
        f"{'hosts':>7} | {'journal':>7} | {'round':>5} | {'requests':>8} | {'add-on CPU ms/req':>17} | "
        f"{'journal stat ms/req':>19} | {'stat share':>10}"
    )
    for hosts in sizes:
        cpu: dict[str, list[float]] = {name: [] for name, _ in variants}
        for turn in range(rounds):
            for name, extra in variants:  # interleaved: a load change hits every variant alike
                run = run_one("a", hosts, seconds, root, extra=extra, label=f"_{name}_{turn}")
                cpu[name].append(run["cpu_ms"])
                share = run["journal_cpu_ms"] / max(run["cpu_ms"], 1e-9)
                print(
                    f"{hosts:>7} | {name:>7} | {turn + 1:>5} | {run['requests']:>8} | {run['cpu_ms']:>17.3f} | "
                    f"{run['journal_cpu_ms']:>19.4f} | {100 * share:>9.2f} %",
                    flush=True,
                )
        for name, baseline in (("on", "off"), ("s-on", "s-off")):
            ours, base = statistics.median(cpu[name]), statistics.median(cpu[baseline])
            print(
                f"{hosts:>7} hosts: journal {name}: median {ours:.3f} CPU ms/req against {base:.3f} {baseline}: "
                f"{100 * (ours - base) / max(ours, 1e-9):+.2f} % of the CPU per request"
            )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


def run_fleet(hosts: int, processes: int, seconds: float, root: Path) -> dict:
    from tests.redis_server import RedisServer

    work = root / f"fleet_{hosts}"
    server = BenchServer(BENCH_IP, LATENCY)
    try:
        with RedisServer(work / "redis") as redis, DemoSite(hosts=["ops"]) as site:
            project = make_project(work, settings_for("a", site, redis.url))
            procs = [crawl(project, hosts, server.port, seconds, k, processes) for k in range(processes)]
            exits = [wait_rss(p)[0] for p in procs]
    finally:
        server.stop()
    log = list(server.log)
    trips = 0
    for k in range(processes):
        match = re.search(r"'walsh/store/round_trips': (\d+)", (project / f"crawl_{k}.log").read_text())
        trips += int(match.group(1)) if match else 0
    return {
        "rate": rate(log),
        "requests": len(log),
        "violations": len(violations(log)),
        "trips": trips / max(1, len(log)),
        "exit": exits,
    }


def profile(hosts: int, seconds: float, root: Path, steady: bool = False) -> None:
    """(a) at ``hosts`` under cProfile: where the add-on's time per request goes (``steady``: from
    the first answer to the spider's close, start-up left out)."""
    import pstats

    out = str(root / f"a_{hosts}.prof")
    if steady:
        extra = f'EXTENSIONS = {{"benchproj.profiler.SteadyProfile": 0}}\nBENCH_PROFILE = {out!r}\n'
        run = run_one("a", hosts, seconds, root, extra=extra)
    else:
        run = run_one("a", hosts, seconds, root, profile=out)
    print(f"(a) at {hosts} hosts: {run['rate']:.1f} req/s, {run['requests']} requests; profile {out}")
    stats = pstats.Stats(out)
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats("scrapy_walsh", 30)


def sample(hosts: int, seconds: float, root: Path) -> None:
    """(a) and (b) at ``hosts`` under a sampling profile, from the first answer to the close: each
    one's CPU ms per request by package, then the add-on's top functions, self and inclusive. The
    kernel's profiling timer ticks coarser than asked (about 4 ms), so the samples give shares,
    scaled here to the process's CPU per request read from /proc."""
    import json

    shares = {}
    for variant in ("a", "b"):
        out = root / f"{variant}_{hosts}.samples.json"
        extra = f'EXTENSIONS = {{"benchproj.profiler.SteadySample": 0}}\nBENCH_PROFILE = {str(out)!r}\n'
        run = run_one(variant, hosts, seconds, root, extra=extra, label="_sampled")
        found = json.loads(out.read_text())
        per = run["cpu_ms"] / max(1, found["samples"])  # CPU ms per request that one sample stands for
        packages: dict[str, float] = {}
        for name, count in found["self"].items():
            where = name.split(":")[0]
            if "scrapy_walsh/" in where:
                package = "scrapy_walsh"
            elif where.startswith("/"):
                package = "python (stdlib)"
            else:
                package = where.split("/")[0]
            packages[package] = packages.get(package, 0.0) + count * per
        shares[variant] = packages
        print(
            f"({variant}) {VARIANTS[variant]}: {run['requests']} requests, {found['samples']} samples, "
            f"{run['cpu_ms']:.2f} CPU ms per request (/proc)"
        )
        if variant == "a":
            for kind in ("self", "inclusive"):
                print(f"  top {kind}, CPU ms per request:")
                ours = sorted(found[kind].items(), key=lambda kv: -kv[1])
                for name, count in [kv for kv in ours if kind == "self" or "scrapy_walsh" in kv[0]][:30]:
                    print(f"    {count * per:6.3f}  {name.split('/work/')[-1]}")
    print("CPU ms per request by package (self time): (a) / (b)")
    for package in sorted(set(shares["a"]) | set(shares["b"]), key=lambda k: -shares["a"].get(k, 0.0))[:12]:
        print(f"  {shares['a'].get(package, 0.0):6.3f} / {shares['b'].get(package, 0.0):6.3f}  {package}")


def pairs(sizes: list[int], seconds: float, rounds: int, root: Path) -> None:
    """(a) and (b) in turn, ``rounds`` times at each size: each pair's throughput and CPU per request
    as ratios, then their medians. On a loaded machine the speed drifts between two crawls run
    minutes apart; a pair's two crawls meet the same load, so the median ratio is the figure to quote."""
    print(
        f"{'hosts':>7} | {'pair':>4} | {'(a) req/s':>9} | {'(b) req/s':>9} | {'a/b':>5} | "
        f"{'CPU ms/req a b':>14} | {'a/b CPU':>7} | {'load':>4}"
    )
    for hosts in sizes:
        rates, cpus = [], []
        for turn in range(rounds):
            a = run_one("a", hosts, seconds, root, label=f"_pair{turn}")
            b = run_one("b", hosts, seconds, root, label=f"_pair{turn}")
            rates.append(a["rate"] / max(b["rate"], 1e-9))
            cpus.append(a["cpu_ms"] / max(b["cpu_ms"], 1e-9))
            print(
                f"{hosts:>7} | {turn + 1:>4} | {a['rate']:>9.1f} | {b['rate']:>9.1f} | {rates[-1]:>5.2f} | "
                f"{a['cpu_ms']:>6.2f} {b['cpu_ms']:>7.2f} | {cpus[-1]:>7.2f} | {os.getloadavg()[0]:>4.1f}"
                + ("" if a["violations"] == 0 else f"  {a['violations']} violations"),
                flush=True,
            )
        print(
            f"{hosts:>7} hosts, median of {rounds} pairs: throughput a/b {statistics.median(rates):.2f}, "
            f"CPU per request a/b {statistics.median(cpus):.2f}x"
        )


def _size(path: Path) -> int:
    """Bytes under ``path`` (a file, or every file of a directory)."""
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def million(hosts: int, seconds: float, root: Path, baseline: int = 1000) -> None:
    """(a) over ``baseline`` hosts x 2 pages, then over ``hosts`` hosts x 1 page (one start request
    per host), each boxed at ``seconds``, in the same run: the time to the first request (wall and
    CPU), peak RSS, req/s and CPU per request over the box, the state store's and the journal's
    size after it, the most descriptors the crawl held at once (its sockets), the connections the
    server accepted, the seconds from its last request to its exit, violations and duplicate
    fetches."""
    print(
        f"load average at start: {os.getloadavg()[0]:.2f}; each crawl boxed at {seconds:.0f} s, "
        f"{LATENCY * 1000:.0f} ms loopback server"
    )
    header = (
        f"{'hosts x pages':>15} | {'first req s (CPU s)':>19} | {'RSS MiB':>7} | {'requests':>8} | {'req/s':>6} | "
        f"{'CPU ms/req':>10} | {'late CPU ms/req':>15} | {'store MiB':>9} | {'journal MiB':>11} | "
        f"{'peak fds':>8} | {'connections':>11} | {'exit s':>6} | {'viol':>4} | {'dup':>3} | exit"
    )
    print(header)
    print("-" * len(header))
    for count, pages in ((baseline, PAGES), (hosts, 1)):
        run = run_one("a", count, seconds, root, pages=pages, label=f"_x{pages}")
        state = run["project"] / "state" / "scrapy-walsh"
        store = sum(_size(p) for p in state.glob("*.sqlite3*"))
        journal = sum(_size(p) for p in state.glob("*.journal"))
        first = "none" if run["first_s"] is None else f"{run['first_s']:.1f} ({run['first_cpu_s']:.1f})"
        exit_s = "-" if run["exit_s"] is None else f"{run['exit_s']:.1f}"
        print(
            f"{f'{count} x {pages}':>15} | {first:>19} | {run['rss'] / 1024:>7.0f} | {run['requests']:>8} | "
            f"{run['rate']:>6.1f} | {run['cpu_ms']:>10.2f} | {run['late_cpu_ms']:>15.2f} | "
            f"{store / 2**20:>9.1f} | {journal / 2**20:>11.1f} | {run['peak_fds']:>8} | {run['connections']:>11} | "
            f"{exit_s:>6} | "
            f"{run['violations']:>4} | {run['duplicates']:>3} | "
            f"{run['exit']}",
            flush=True,
        )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", default="100,1000,10000,50000")
    parser.add_argument("--seconds", type=float, default=60.0, help="time box of each crawl")
    parser.add_argument("--fleet-hosts", type=int, default=10000)
    parser.add_argument("--no-fleet", action="store_true")
    parser.add_argument("--workdir", help="keep projects and crawl logs here (default: a temp dir)")
    parser.add_argument("--profile", metavar="N", type=int, help="only (a) at N hosts under cProfile: top functions")
    parser.add_argument("--steady", action="store_true", help="with --profile: from the first answer to the close")
    parser.add_argument("--sample", metavar="N", type=int, help="(a) and (b) at N hosts, sampled: CPU by package")
    parser.add_argument("--fsyncs", metavar="N", type=int, help="only (a) at N hosts under strace: fsyncs per request")
    parser.add_argument(
        "--pairs", metavar="R", type=int, help="only (a) and (b), in turn R times per size: median paired ratios"
    )
    parser.add_argument(
        "--journal-cost", action="store_true", help="only (a): journal off, on and signed, interleaved: its CPU"
    )
    parser.add_argument(
        "--million",
        metavar="N",
        type=int,
        help="only (a): 1,000 hosts x 2 pages, then N hosts x 1 page, each boxed: first request, RSS, store size",
    )
    args = parser.parse_args()
    if args.million:
        root = Path(args.workdir or tempfile.mkdtemp(prefix="scale_million_"))
        million(args.million, args.seconds, root)
        return
    if args.journal_cost:
        root = Path(args.workdir or tempfile.mkdtemp(prefix="scale_journal_"))
        journal_cost([int(n) for n in args.hosts.split(",")], args.seconds, root)
        return
    if args.fsyncs:
        fsyncs(args.fsyncs, args.seconds, Path(args.workdir or tempfile.mkdtemp(prefix="scale_fsyncs_")))
        return
    if args.sample:
        sample(args.sample, args.seconds, Path(args.workdir or tempfile.mkdtemp(prefix="scale_sample_")))
        return
    if args.profile:
        root = Path(args.workdir or tempfile.mkdtemp(prefix="scale_profile_"))
        profile(args.profile, args.seconds, root, args.steady)
        return
    sizes = [int(n) for n in args.hosts.split(",")]
    if args.pairs:
        pairs(sizes, args.seconds, args.pairs, Path(args.workdir or tempfile.mkdtemp(prefix="scale_pairs_")))
        return
    print(
        f"N hosts x {PAGES} pages, {LATENCY * 1000:.0f} ms loopback server, one process, "
        f"each crawl time-boxed at {args.seconds:.0f} s; req/s as the server counted them (robots.txt included)"
    )
    header = (
        f"{'hosts':>7} | {'(a) req/s':>9} | {'(b) req/s':>9} | {'(c) req/s':>9} | {'a/b':>5} | {'a/c':>6} | "
        f"{'RSS a/b/c MiB':>15} | {'KiB/host':>8} | {'viol a/c':>8} | {'tx/req fsync+not':>16} | "
        f"{'CPU ms/req a b':>14} | {'b/a CPU':>7}"
    )
    with tempfile.TemporaryDirectory(prefix="scale_bench_") as tmp:
        root = Path(args.workdir or tmp)
        print(header)
        print("-" * len(header))
        for hosts in sizes:
            runs = {v: run_one(v, hosts, args.seconds, root) for v in VARIANTS}
            a, b, c = runs["a"], runs["b"], runs["c"]
            extra = (a["rss"] - b["rss"]) / hosts
            flag = "" if all(r["exit"] == 0 for r in runs.values()) else f"  exit {[r['exit'] for r in runs.values()]}"
            print(
                f"{hosts:>7} | {a['rate']:>9.1f} | {b['rate']:>9.1f} | {c['rate']:>9.1f} | "
                f"{_ratio(a['rate'], b['rate']):>5} | {_ratio(a['rate'], c['rate'], 1):>6} | "
                f"{a['rss'] / 1024:>4.0f} {b['rss'] / 1024:>4.0f} {c['rss'] / 1024:>4.0f} | {extra:>8.2f} | "
                f"{a['violations']:>3} {c['violations']:>3} | "
                f"{a['transactions']:>7.2f} {a['unsynced_transactions']:>8.2f} | "
                f"{a['cpu_ms']:>6.2f} {b['cpu_ms']:>7.2f} | {_ratio(b['cpu_ms'], a['cpu_ms']):>7}{flag}",
                flush=True,
            )
            print(
                f"{'':>7}   second half of each span, CPU ms/req (a) {a['late_cpu_ms']:.2f}, "
                f"(b) {b['late_cpu_ms']:.2f}, (c) {c['late_cpu_ms']:.2f}",
                flush=True,
            )
        if not args.no_fleet:
            fleet = run_fleet(args.fleet_hosts, 4, args.seconds, root)
            print(
                f"fleet: 4 processes on Redis, {args.fleet_hosts} hosts: {fleet['rate']:.1f} req/s, "
                f"{fleet['trips']:.1f} Redis round trips per request, {fleet['violations']} violations, "
                f"exits {fleet['exit']}"
            )
    print(f"aim: (a)/(b) >= {AIM} at every N with 0 violations")


if __name__ == "__main__":
    started = time.monotonic()
    main()
    print(f"bench time {time.monotonic() - started:.0f} s")
