"""Latency: a serial crawl against the web's latencies, with 1 % of hosts that hang.

    .venv/bin/python bench/latency_bench.py [--hosts 1000] [--hang-share 0.01] [--budget 30]
                                            [--stock-box 2.0] [--workdir DIR] [--no-ceiling] [--no-pin]
                                            [--no-stock] [--work-ms 0]

N hosts x 3 pages (plus robots.txt), every answer after its own latency: a log-normal draw with a
median of 150 ms (sigma 0.8, capped at 5 s), fixed per host and path so every crawl meets the
same server; ``--hang-share`` of the hosts accept and never answer (robots.txt included). One
stdlib server on loopback (bench/_loopback.py's resolver, the scale bench's spider) answers all
names and logs what it saw. Two crawls in one run:

  (a) the add-on line (its preset: DOWNLOAD_TIMEOUT ``--budget``, 30 s by default);
  (c) stock Scrapy as compliant as it gets (scale bench's (c): CONCURRENT_REQUESTS=1,
      DOWNLOAD_DELAY=1, ROBOTSTXT_OBEY, Scrapy's DOWNLOAD_TIMEOUT 180 s and its retries),
      time-boxed at ``--stock-box`` times (a)'s wall time (it would take hours).

  (b) the serial engine's ceiling (scale bench's (b): stock Scrapy, one request at a time, no
      delay, no robots.txt) against the same latencies with no host hanging: the client's own
      cost per request as the server sees it, the time from its answer's last byte to the next
      request's arrival (``--no-ceiling`` leaves it out; it takes about 10 minutes at 1,000 hosts).

Printed: each crawl's wall time (the server's first arrival to its last answer), the serial lower
bound for the same latencies (every answer's latency one after the other, plus one budget per
hanging request the crawl must make: robots.txt of a hanging host; a hanging robots.txt makes the
origin unreachable, so its pages are not requests a compliant crawl makes; R4's 1 s per-host
spacing is under that sum at these sizes and is checked), (a)/lower bound (aim <= 1.10); the
same against a second bound, one budget per hanging request the crawl made (a re-ask of a
hanging host's robots.txt after its rest is one, with the 5 s floor as its budget), with the most
hanging requests any one host got; the share of wall time spent waiting on hanging hosts, and
requests served; for (a) and (b) the gap between an answer and the next request's arrival
(median and mean), and (a)'s requests at (b)'s mean gap: the wall time a serial crawl making the
same requests (re-asks included) would take at the cost per request of Scrapy's own engine.
Figures, not a test (bench/README.md).

The server runs on a core of its own and each crawl on another (``--no-pin``: wherever the
kernel puts them), as a remote server would. Sharing them, the kernel woke the server's thread on
the core the crawler was still busy on, behind it: the server read a request 1.5 ms (median)
after the crawler had written it, against 0.2 ms pinned, and both (a) and (b) paid that on every
request.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import select
import signal
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import scale_bench  # noqa: E402
from _loopback import BenchServer, answer, violations, wait_rss  # noqa: E402

from demo_site import DemoSite  # noqa: E402
from scrapy_walsh.middlewares.robots_gate import RECHECK_BUDGET  # noqa: E402

PAGES = 3
MEDIAN = 0.150
SIGMA = 0.8
CAP = 5.0
INTERVAL = 1.0
AIM = 1.10
#: The cores each crawl runs on (empty: not pinned); the bench process, the server, runs on the rest.
CRAWL_CORES: set[int] = set()


def _unit(key: str) -> float:
    """A uniform draw in (0, 1), fixed by ``key``."""
    digest = hashlib.sha256(key.encode()).digest()
    return (int.from_bytes(digest[:8], "big") + 0.5) / 2**64


def latency(host: str, path: str) -> float:
    """Log-normal, median MEDIAN, fixed per host and path (Box-Muller on two fixed draws)."""
    u1, u2 = _unit(f"{host}{path}a"), _unit(f"{host}{path}b")
    z = math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)
    return min(CAP, MEDIAN * math.exp(SIGMA * z))


def hanging(host: str, share: float) -> bool:
    """Exactly ``share`` of the hosts hang, spread evenly (``h00050``, ``h00150`` ... at 1 %)."""
    if share <= 0 or not host.startswith("h") or not host[1:6].isdigit():
        return False
    step = max(1, round(1 / share))
    return int(host[1:6]) % step == step // 2


class LatencyServer(BenchServer):
    def __init__(self, ip: str, share: float) -> None:
        self.share = share
        #: (host, path, arrival, end) of every request
        self.timed: list[tuple[str, str, float, float]] = []
        super().__init__(ip, 0.0)
        self.RequestHandlerClass = _Handler


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: LatencyServer

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        arrived = time.monotonic()
        host = (self.headers.get("Host") or "").split(":")[0]
        with self.server.lock:
            self.server.log.append((host, self.path, arrived))
        if hanging(host, self.server.share):
            try:
                while True:  # accept, never answer, until the crawler hangs up
                    readable, _, _ = select.select([self.connection], [], [], 0.02)
                    if readable and not self.connection.recv(1, socket.MSG_PEEK):
                        break
            except OSError:
                pass  # reset: the crawler hung up
            self.close_connection = True
        else:
            time.sleep(latency(host, self.path))
            answer(self)
        with self.server.lock:
            self.server.timed.append((host, self.path, arrived, time.monotonic()))

    def log_message(self, *args: object) -> None:
        pass


def lower_bound(hosts: int, share: float, budget: float) -> tuple[float, int]:
    """The serial lower bound (seconds) and the number of hanging requests it counts."""
    total, hangs = 0.0, 0
    for h in range(hosts):
        host = f"h{h:05d}.{scale_bench.DOMAIN}"
        if hanging(host, share):
            total, hangs = total + budget, hangs + 1
            continue
        paths = ["/robots.txt", *(f"/page/{p}" for p in range(1, PAGES + 1))]
        total += sum(latency(host, p) for p in paths)
    chain = PAGES * INTERVAL + CAP  # one host's own spacing: never more than the sum here
    return max(total, chain), hangs


def run(variant: str, hosts: int, share: float, budget: float, box: float, root: Path, work: float = 0.0) -> dict:
    scale_bench.PAGES = PAGES
    work = root / f"{variant}_{hosts}"
    server = LatencyServer(scale_bench.BENCH_IP, share)
    try:
        with DemoSite(hosts=["ops"]) as site:
            settings = scale_bench.settings_for(variant, site)
            if variant == "a":
                settings += f"DOWNLOAD_TIMEOUT = {budget}\n"
            project = scale_bench.make_project(work, settings)
            process = scale_bench.crawl(project, hosts, server.port, box, work=work)
            if CRAWL_CORES:
                os.sched_setaffinity(process.pid, CRAWL_CORES)
            # CLOSESPIDER_TIMEOUT waits for the download in flight (180 s on a hanging host for
            # stock Scrapy): two SIGINTs (Scrapy's forced shutdown) end the box on time
            stops = [threading.Timer(box + d, process.send_signal, (signal.SIGINT,)) for d in (1.0, 2.0)]
            for stop in stops:
                stop.start()
            code, rss = wait_rss(process)
            for stop in stops:
                stop.cancel()
    finally:
        server.stop()
    timed = list(server.timed)
    if not timed:
        return {"wall": 0.0, "requests": 0, "hang_share": 0.0, "exit": code, "rss": rss, "violations": 0}
    start, end = min(t[2] for t in timed), max(t[3] for t in timed)
    held = sum(t[3] - t[2] for t in timed if hanging(t[0], share))
    # one request at a time: the wall time is every request's time at the server plus these gaps
    ordered = sorted(timed, key=lambda t: t[2])
    gaps = [b[2] - a[3] for a, b in zip(ordered, ordered[1:])] or [0.0]
    return {
        "wall": end - start,
        "requests": len(server.log),
        "answered": sum(1 for t in timed if not hanging(t[0], share)),
        "hang_share": held / (end - start),
        "hangs": sum(1 for t in timed if hanging(t[0], share)),
        "most_hangs": max(Counter(t[0] for t in timed if hanging(t[0], share)).values(), default=0),
        "exit": code,
        "rss": rss,
        "violations": len(violations(server.log)),
        "gap_median": statistics.median(gaps),
        "gap_mean": statistics.fmean(gaps),
        "served": sum(t[3] - t[2] for t in timed),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hosts", type=int, default=1000)
    parser.add_argument("--hang-share", type=float, default=0.01)
    parser.add_argument("--budget", type=float, default=30.0)
    parser.add_argument("--stock-box", type=float, default=2.0)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--no-ceiling", action="store_true", help="leave out (b), the serial engine's ceiling")
    parser.add_argument("--no-pin", action="store_true", help="leave the server and the crawls unpinned")
    parser.add_argument("--no-stock", action="store_true", help="leave out (c), stock compliant Scrapy")
    parser.add_argument("--work-ms", type=float, default=0.0, help="CPU each page's callback spends (default 0)")
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    if not args.no_pin and len(cores) >= 2:
        CRAWL_CORES.add(cores[0])
        os.sched_setaffinity(0, set(cores[1:]))
    print(f"cores: crawl {sorted(CRAWL_CORES) or 'not pinned'}, server {sorted(os.sched_getaffinity(0))}")
    root = args.workdir or Path(tempfile.mkdtemp(prefix="latency_bench_"))
    bound, hangs = lower_bound(args.hosts, args.hang_share, args.budget)
    print(
        f"{args.hosts} hosts x {PAGES} pages, latency log-normal median {MEDIAN * 1000:.0f} ms (sigma {SIGMA}, "
        f"cap {CAP:g} s), {hangs} hanging host(s), budget {args.budget:g} s"
    )
    print(f"serial lower bound: {bound:.1f} s ({hangs} budget(s) of {args.budget:g} s in it)")
    a = run("a", args.hosts, args.hang_share, args.budget, 24 * 3600, root, args.work_ms / 1000)
    print(
        f"(a) add-on: wall {a['wall']:.1f} s = {a['wall'] / bound:.3f}x the lower bound (aim <= {AIM}), "
        f"{a['requests']} requests ({a['hangs']} hanging), {100 * a['hang_share']:.1f} % of wall time on hanging "
        f"hosts, peak RSS {a['rss'] / 1024:.0f} MB, {a['violations']} spacing violations, exit {a['exit']}"
    )
    # the second bound: one budget per hanging request the crawl made (each re-ask of a
    # hanging host's robots.txt is one, at most one per host per rest, the rest doubling; its
    # budget is the floor, RECHECK_BUDGET)
    made = bound + min(RECHECK_BUDGET, args.budget) * max(0, a["hangs"] - hangs)
    print(
        f"    with one budget per hanging request made ({a['hangs']}, re-asks at {RECHECK_BUDGET:g} s): "
        f"bound {made:.1f} s, {a['wall'] / made:.3f}x; hanging requests per hanging host at most {a['most_hangs']}"
    )
    print(f"    answer to next arrival: median {a['gap_median'] * 1000:.2f} ms, mean {a['gap_mean'] * 1000:.2f} ms")
    if not args.no_ceiling:
        b = run("b", args.hosts, 0.0, args.budget, 24 * 3600, root, args.work_ms / 1000)
        print(
            f"(b) serial engine ceiling, no host hanging: wall {b['wall']:.1f} s, {b['requests']} requests; answer to "
            f"next arrival: median {b['gap_median'] * 1000:.2f} ms, mean {b['gap_mean'] * 1000:.2f} ms"
        )
        # (a)'s requests as the server served them, one after the other, with (b)'s gaps between
        engine = a["served"] + b["gap_mean"] * (a["requests"] - 1)
        print(
            f"    (a)'s requests at (b)'s cost per request: {engine:.1f} s = {engine / bound:.3f}x the lower bound; "
            f"(a) is {a['wall'] / engine:.3f}x that"
        )
    if args.no_stock:
        return
    box = max(60.0, args.stock_box * a["wall"])
    c = run("c", args.hosts, args.hang_share, args.budget, box, root)
    print(
        f"(c) stock compliant Scrapy, boxed at {box:.0f} s: wall {c['wall']:.1f} s, {c['requests']} requests "
        f"({c.get('answered', 0)} answered, {c.get('hangs', 0)} hanging), {100 * c['hang_share']:.1f} % of wall "
        f"time on hanging hosts, {c['violations']} spacing violations, exit {c['exit']}"
    )


if __name__ == "__main__":
    main()
