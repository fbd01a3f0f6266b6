"""Discovery at sitemaps.org's limits: a crawl's peak RSS and ``scrapy walsh plan``'s time.

    .venv/bin/python bench/discovery_bench.py [--urls 50000] [--plan-urls 60000] [--baseline DIR] [--box 300]

``rss``: a SitemapSpider crawl of one gzipped sitemap of ``--urls`` routed URLs of ``--loc-len``
characters (50,000 x 975 is 49 MiB decoded, 236 KB gzipped); the spider stops at its first page
once every target is queued (the most a crawl holds), and the peak RSS of the crawl's process is
its ``ru_maxrss`` (``os.wait4``). ``plan``: ``scrapy walsh plan`` of a sitemap index of two
children listing ``--plan-urls`` URLs, wall time. Each runs on this checkout's code and, with
``--baseline DIR`` (a checkout of the old code, e.g. ``git archive``), on that code in the same
run; a baseline run over ``--box`` seconds is stopped and reported as such. Figures, not a test
(bench/README.md).
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

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.helpers import add_addon_line, new_project, write_spider  # noqa: E402
from tests.sitemap_site import SPIDER, BigSitemap  # noqa: E402

LOOPBACK = 'WALSH_ALLOW_PRIVATE_ADDRESSES = ["127.0.0.1"]\nLOG_LEVEL = "INFO"\n'


def project_for(root: Path, site: BigSitemap) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    project = new_project(root)
    write_spider(project, "big", SPIDER.replace("{base}", site.base))
    add_addon_line(project, LOOPBACK)
    return project


def run(project: Path, code: Path, args: list[str], box: float) -> tuple[float, float, int, int | None, str]:
    """Wall and CPU seconds, peak RSS (KiB), exit status and output of ``scrapy ARGS`` on ``code``
    (status None when over the box). CPU time is the figure to compare on a loaded machine."""
    env = {k: v for k, v in os.environ.items() if k != "SCRAPY_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(code)
    env["XDG_STATE_HOME"] = str(project / "state")
    with open(project / "out.txt", "w") as out, open(project / "err.txt", "w") as err:
        started = time.monotonic()
        child = subprocess.Popen([sys.executable, "-m", "scrapy", *args], cwd=project, env=env, stdout=out, stderr=err)
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - started > box:
                child.kill()
                _, status, usage = os.wait4(child.pid, 0)
                child.returncode = -9
                return time.monotonic() - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, None, ""
            time.sleep(0.2)
    child.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return time.monotonic() - started, cpu, usage.ru_maxrss, child.returncode, (project / "out.txt").read_text()


def rss(root: Path, code: Path, urls: int, loc_len: int, box: float) -> str:
    site = BigSitemap(urls, loc_len).start()
    try:
        project = project_for(root, site)
        seconds, _, peak, status, _ = run(project, code, ["crawl", "big", "-a", f"expected={urls}"], box)
        log = (project / "err.txt").read_text()
    finally:
        site.shutdown()
        site.server_close()
    targets = next((line for line in log.splitlines() if "'walsh/discovery/targets'" in line), "").strip()
    return f"peak RSS {peak / 1024:7.1f} MiB  {seconds:6.1f} s  exit {status}  pages {len(site.pages())}  {targets}"


def plan(root: Path, code: Path, urls: int, loc_len: int, box: float) -> str:
    site = BigSitemap(urls, loc_len, split=2).start()
    try:
        project = project_for(root, site)
        seconds, cpu, peak, status, out = run(project, code, ["walsh", "plan", "big", "--json"], box)
    finally:
        site.shutdown()
        site.server_close()
    if status is None:
        return f"over the box: stopped after {seconds:6.1f} s, CPU {cpu:6.1f} s (peak RSS {peak / 1024:.1f} MiB)"
    made = json.loads(out) if status == 0 else {}
    fetch, skips = len(made.get("fetch", ())), made.get("skipped_by_reason")
    figures = f"{seconds:6.1f} s (CPU {cpu:6.1f} s)  peak RSS {peak / 1024:7.1f} MiB"
    return f"{figures}  exit {status}  fetch {fetch}  skipped {skips}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["rss", "plan", "both"], default="both")
    parser.add_argument("--urls", type=int, default=50_000, help="URLs in the crawl's sitemap")
    parser.add_argument("--plan-urls", type=int, default=60_000, help="URLs in plan's sitemap index")
    parser.add_argument("--loc-len", type=int, default=975, help="characters per URL")
    parser.add_argument("--baseline", type=Path, help="a checkout of the old code, run in the same run")
    parser.add_argument("--box", type=float, default=300.0, help="seconds a run may take")
    args = parser.parse_args()
    codes = [("new", REPO)] + ([("old", args.baseline.resolve())] if args.baseline else [])
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        for label, code in codes:
            if args.mode in ("rss", "both"):
                line = rss(Path(tmp) / f"rss-{label}", code, args.urls, args.loc_len, args.box)
                print(f"rss   {label}: {args.urls} URLs x {args.loc_len} chars: {line}", flush=True)
            if args.mode in ("plan", "both"):
                line = plan(Path(tmp) / f"plan-{label}", code, args.plan_urls, args.loc_len, args.box)
                print(f"plan  {label}: {args.plan_urls} URLs x {args.loc_len} chars: {line}", flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
