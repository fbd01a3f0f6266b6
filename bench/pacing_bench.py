"""R4 pacing: wall time of a mixed Crawl-delay crawl of the demo site vs. its lower bound.

    .venv/bin/python bench/pacing_bench.py [--workdir DIR]

Six demo hosts x eight pages, Crawl-delays none, none, 2, 2, 3 and 5 s, 50 ms latency.
Three crawls in one run, each in a fresh project (fresh state store) against its own
DemoSite (fresh server log, fresh port):

  (a) the add-on line (plus the settings that keep the crawl on the demo site);
  (b) the same with Scrapy's default DownloaderAwarePriorityQueue;
  (c) stock Scrapy as compliant as it gets without the add-on: one request at a time,
      DOWNLOAD_DELAY 1 without jitter, ROBOTSTXT_OBEY, our User-Agent, and each
      Crawl-delay typed into DOWNLOAD_SLOTS by hand.

Everything is measured from the server's log. Per host, every request it saw counts
(robots.txt included); the lower bound is max over hosts of (requests - 1) x interval,
interval = max(1 s, Crawl-delay), or requests x latency in all if larger. A violation
is a same-host start-to-start gap under the interval minus 20 ms. Aim for (a): within
1.10x of the bound, zero violations. Figures, not a test (bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from demo_site import HOSTS, DemoSite, environ  # noqa: E402
from scrapy_walsh.settings import USER_AGENT  # noqa: E402
from tests.helpers import GATES_SPIDER, demo_settings  # noqa: E402

LATENCY = 0.05
PAGES = 8
#: host key -> robots.txt Crawl-delay (None: no Crawl-delay line)
CRAWL_DELAYS = {"open": None, "named": None, "gone": 2, "decoys": 2, "busy": 3, "htmlonly": 5}
TOLERANCE = 0.02  # server-side clock tolerance, as in the test suite
AIM = 1.10
DAPQ = "scrapy.pqueues.DownloaderAwarePriorityQueue"


def robots_body(delay: int | None) -> str:
    return "User-agent: *\nAllow: /\n" + (f"Crawl-delay: {delay}\n" if delay else "")


def interval(key: str) -> float:
    return max(1.0, float(CRAWL_DELAYS[key] or 0))


def settings_for(variant: str, site: DemoSite) -> str:
    text = 'BOT_NAME = "benchproj"\nSPIDER_MODULES = ["benchproj.spiders"]\nLOG_LEVEL = "INFO"\n'
    if variant in ("a", "b"):
        text += 'ADDONS = {"scrapy_walsh.Addon": 500}\n' + demo_settings(site)
        if variant == "b":
            text += f"SCHEDULER_PRIORITY_QUEUE = {DAPQ!r}\n"
        return text
    slots = {HOSTS[k].name: {"delay": float(d)} for k, d in CRAWL_DELAYS.items() if d}
    return (
        text
        + f"""
TWISTED_DNS_RESOLVER = "demo_site.resolver.DemoResolver"
CONCURRENT_REQUESTS = 1
CONCURRENT_REQUESTS_PER_DOMAIN = 1
DOWNLOAD_DELAY = 1
DOWNLOAD_DELAY_JITTER = 0
RANDOMIZE_DOWNLOAD_DELAY = False
ROBOTSTXT_OBEY = True
USER_AGENT = {USER_AGENT!r}
DOWNLOAD_SLOTS = {slots!r}
"""
    )


def make_project(root: Path, variant: str, site: DemoSite) -> Path:
    project = root / f"variant_{variant}"
    package = project / "benchproj"
    (package / "spiders").mkdir(parents=True)
    (project / "scrapy.cfg").write_text("[settings]\ndefault = benchproj.settings\n")
    (package / "__init__.py").write_text("")
    (package / "spiders" / "__init__.py").write_text("")
    (package / "spiders" / "gates.py").write_text(GATES_SPIDER)
    (package / "settings.py").write_text(settings_for(variant, site))
    return project


def crawl(variant: str, root: Path) -> dict:
    """One crawl against its own DemoSite; returns the server's records and the process facts."""
    with DemoSite(latency=LATENCY, log_path=root / f"server_{variant}.jsonl") as site:
        for key, delay in CRAWL_DELAYS.items():
            site.override(key, "/robots.txt", 200, robots_body(delay))
        project = make_project(root, variant, site)
        # page-major order: every host's page 1 first, then page 2 ... (spider priority = -index)
        urls = [site.url(key, f"/page/{n}") for n in range(1, PAGES + 1) for key in CRAWL_DELAYS]
        items = project / "items.jsonl"
        env = {k: v for k, v in environ().items() if k != "SCRAPY_SETTINGS_MODULE"}
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "scrapy", "crawl", "gates", "-a", "urls=" + ",".join(urls), "-O", str(items)],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        process_wall = time.monotonic() - started
        records = site.requests
    (root / f"crawl_{variant}.log").write_text(done.stderr)
    rows = [json.loads(line) for line in items.read_text().splitlines()] if items.exists() else []
    return {
        "records": records,
        "process_wall": process_wall,
        "returncode": done.returncode,
        "ok_pages": sum(1 for r in rows if r.get("status") == 200),
        "items": len(rows),
        "warnings": [ln for ln in done.stderr.splitlines() if "WARNING" in ln],
        "log": done.stderr,
    }


def analyse(run: dict) -> dict:
    records = run["records"]
    bench = [r for r in records if r["host_key"] in CRAWL_DELAYS]
    hosts, violations = {}, []
    for key in CRAWL_DELAYS:
        mine = [r for r in bench if r["host_key"] == key]
        times = [r["mono"] for r in mine]
        gaps = [b - a for a, b in zip(times, times[1:])]
        violations += [(key, round(g, 3)) for g in gaps if g < interval(key) - TOLERANCE]
        hosts[key] = {
            "robots": sum(1 for r in mine if r["path"] == "/robots.txt"),
            "total": len(mine),
            "min_gap": min(gaps, default=float("nan")),
            "bound": (len(mine) - 1) * interval(key) if mine else 0.0,
        }
    by_latency = len(bench) * LATENCY
    bound = max([by_latency] + [h["bound"] for h in hosts.values()])
    server_wall = bench[-1]["mono"] - bench[0]["mono"] if bench else float("nan")
    lead = bench[0]["mono"] - records[0]["mono"] if bench else float("nan")
    return {
        "lead": lead,
        "hosts": hosts,
        "bound": bound,
        "by_latency": by_latency,
        "requests": len(bench),
        "other": len(records) - len(bench),
        "server_wall": server_wall,
        "violations": violations,
        "max_in_flight": max((r["in_flight"] for r in records), default=0),
    }


def report(variant: str, title: str, run: dict, facts: dict) -> None:
    print(f"\n({variant}) {title}")
    print(
        f"  exit {run['returncode']}; {run['ok_pages']}/{len(CRAWL_DELAYS) * PAGES} pages 200, "
        f"{run['items']} items; {len(run['warnings'])} WARNING line(s) in the crawl log"
    )
    for line in run["warnings"][:3]:
        print("    " + line[:160])
    if run["returncode"] or not facts["bound"]:
        print("  crawl failed; end of its log:\n" + run["log"][-2000:])
        return
    print(f"  {'host':<10}{'Crawl-delay':>12}{'interval':>9}{'robots':>7}{'total':>6}{'min gap':>9}{'(n-1)xint':>10}")
    for key, h in facts["hosts"].items():
        print(
            f"  {key:<10}{CRAWL_DELAYS[key] or '-':>12}{interval(key):>9.1f}{h['robots']:>7}{h['total']:>6}"
            f"{h['min_gap']:>9.3f}{h['bound']:>10.1f}"
        )
    print(
        f"  counted: every request the server logged for the 6 hosts, robots.txt included "
        f"({facts['requests']} requests); {facts['other']} to other hosts (the operator blocklist on ops) "
        f"not counted, they came {facts['lead']:.2f} s before the first counted one"
    )
    print(
        f"  lower bound {facts['bound']:.2f} s = max(per-host (n-1) x interval, "
        f"{facts['requests']} x {LATENCY} s = {facts['by_latency']:.2f} s)"
    )
    print(
        f"  server wall {facts['server_wall']:.2f} s (first to last request on the 6 hosts), "
        f"process wall {run['process_wall']:.2f} s, ratio {facts['server_wall'] / facts['bound']:.3f}x"
    )
    shown = ", ".join(f"{k} {g:.3f} s" for k, g in facts["violations"][:12]) or "none"
    print(
        f"  spacing violations (gap < max(1 s, Crawl-delay) - {TOLERANCE * 1000:.0f} ms): "
        f"{len(facts['violations'])}: {shown}"
    )
    print(f"  max in-flight (server) {facts['max_in_flight']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", help="keep projects, crawl logs and server logs here (default: a temp dir)")
    args = parser.parse_args()
    variants = [
        ("a", "scrapy_walsh (the add-on line)"),
        ("b", "scrapy_walsh pacing with Scrapy's DownloaderAwarePriorityQueue"),
        ("c", "stock Scrapy, compliant settings, Crawl-delays typed into DOWNLOAD_SLOTS"),
    ]
    print(
        f"{len(CRAWL_DELAYS)} hosts x {PAGES} pages, latency {LATENCY * 1000:.0f} ms, Crawl-delays "
        + ", ".join(f"{k}={d or '-'}" for k, d in CRAWL_DELAYS.items())
    )
    with tempfile.TemporaryDirectory(prefix="pacing_bench_") as tmp:
        root = Path(args.workdir or tmp)
        root.mkdir(parents=True, exist_ok=True)
        results = []
        for variant, title in variants:
            run = crawl(variant, root)
            facts = analyse(run)
            report(variant, title, run, facts)
            results.append((variant, run, facts))
        print("\n  variant  requests  server wall  process wall  lower bound  ratio   violations  max in-flight")
        for variant, run, facts in results:
            ratio = facts["server_wall"] / facts["bound"] if facts["bound"] else float("nan")
            print(
                f"  ({variant}){facts['requests']:>12}{facts['server_wall']:>12.2f} s{run['process_wall']:>12.2f} s"
                f"{facts['bound']:>11.2f} s{ratio:>7.3f}x{len(facts['violations']):>12}{facts['max_in_flight']:>15}"
            )
        a = results[0][2]
        ratio = a["server_wall"] / a["bound"] if a["bound"] else float("nan")
        met = ratio <= AIM and not a["violations"]
        print(
            f"\n  aim for (a): <= {AIM:.2f}x and 0 violations: {'met' if met else 'NOT met'} "
            f"({ratio:.3f}x, {len(a['violations'])} violations)"
        )
        for variant, _, facts in results[1:]:
            print(f"  (a) vs ({variant}): {a['server_wall'] / facts['server_wall']:.3f}x the server wall time")
        if args.workdir:
            print(f"  logs: {root}")


if __name__ == "__main__":
    main()
