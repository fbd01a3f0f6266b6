"""A fleet on one machine: redis-server, the demo site, N workers, and what the server saw.

    .venv/bin/python example_project/fleet/run_fleet.py [--mode lists|queue] [--workers 3]

``--mode lists`` (the default): N independent ``scrapy crawl fleet_targets`` processes,
each given every target (overlapping lists). ``--mode queue``: the targets are pushed to
one scrapy-redis queue and N ``scrapy crawl fleet_queue`` workers share it (needs
``pip install scrapy-redis``). Either way all workers share one Redis state store
(``WALSH_STATE_URI``). Afterwards it prints, from the demo server's own log, the smallest
same-host gap, how often each target was fetched, and how the work was split.

On real machines: start Redis once (``redis-server --appendonly yes --appendfsync always``),
set ``WALSH_STATE_URI=redis://that-host:6379/0`` in every worker's settings, start the workers.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from demo_site import DemoSite, environ  # noqa: E402
from tests.redis_server import RedisServer  # noqa: E402

#: (host key, path): three hosts, one of which answers 429 with Retry-After 3 once.
TARGETS = (
    [(key, f"/page/{i}") for key in ("open", "gone") for i in range(1, 7)]
    + [("busy", "/limited")]
    + [("busy", f"/page/{i}") for i in range(1, 6)]
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["lists", "queue"], default="lists")
    parser.add_argument("--workers", type=int, default=3)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory(prefix="walsh_fleet_") as tmp,
        RedisServer(Path(tmp) / "redis") as redis_server,
        DemoSite() as site,
    ):
        urls = [site.url(key, path) for key, path in TARGETS]
        env = dict(environ(), WALSH_DEMO_PORT=str(site.port), WALSH_STATE_URI=redis_server.url)
        env.pop("SCRAPY_SETTINGS_MODULE", None)
        if args.mode == "queue":
            import redis

            client = redis.Redis.from_url(redis_server.url)
            for url in urls:
                client.rpush("fleet:start_urls", json.dumps({"url": url}))
            command = ["crawl", "fleet_queue"]
        else:
            command = ["crawl", "fleet_targets", "-a", "urls=" + ",".join(urls)]
        print(
            f"redis-server at {redis_server.url}, demo site on port {site.port}; "
            f"{args.workers} workers, mode {args.mode}",
            flush=True,
        )
        workers = [
            subprocess.Popen(
                [sys.executable, "-m", "scrapy", *command, "-O", f"{tmp}/items-{k}.jsonl"],
                cwd=HERE,
                env=dict(env, FLEET_WORKER=str(k)),
                stderr=subprocess.PIPE,
                text=True,
            )
            for k in range(args.workers)
        ]
        logs = [w.communicate(timeout=600)[1] for w in workers]
        seen = site.requests
        items = [
            json.loads(line)
            for k in range(args.workers)
            if Path(f"{tmp}/items-{k}.jsonl").exists()
            for line in Path(f"{tmp}/items-{k}.jsonl").read_text().splitlines()
        ]
    failed = [k for k, w in enumerate(workers) if w.returncode]
    for k in failed:
        print(f"worker {k} failed:\n{logs[k][-3000:]}")
    by_host = defaultdict(list)
    for record in seen:
        by_host[record["host"]].append(record["mono"])
    print("What the demo server saw:")
    smallest = []
    for host, times in sorted(by_host.items()):
        times.sort()
        gaps = [b - a for a, b in zip(times, times[1:])]
        smallest += gaps
        print(f"  {host:<28} {len(times):>3} requests, smallest gap {min(gaps, default=0):.3f} s")
    fetched = Counter((r["host_key"], r["path"]) for r in seen if (r["host_key"], r["path"]) in set(TARGETS))
    print(
        f"  targets fetched: {len(fetched)}/{len(TARGETS)}, fetched more than once: "
        f"{sorted(k for k, n in fetched.items() if n > 1) or 'none'} (busy /limited: its 429 and the retry)"
    )
    split = Counter(r["headers"].get("X-Fleet-Worker") for r in seen if (r["host_key"], r["path"]) in set(TARGETS))
    print(f"  target requests per worker: {dict(sorted(split.items()))}; items emitted: {len(items)}")
    twice = [k for k, n in fetched.items() if n > 1 and k != ("busy", "/limited")]
    ok = not failed and len(fetched) == len(TARGETS) and not twice and min(smallest) >= 0.98
    print(f"  fleet guarantees (every gap >= 1 s less 20 ms, each target once): {'held' if ok else 'BROKEN'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
