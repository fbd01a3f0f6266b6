"""``python -m demo_site``: run the demo site, or list its hosts.

``serve`` is what the example project and benchmarks start in the background; the
``--ready-file`` lets them wait for "listening" without parsing stdout or polling ports.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Sequence

from demo_site.hosts import DEFAULT_PORT, HOSTS
from demo_site.server import DemoSite


def host_table(port: int) -> str:
    """A plain-text table of the demo hosts, with their URLs on ``port``."""
    rows = [("KEY", "NAME", "IP", "URL", "PURPOSE")]
    rows += [(h.key, h.name, h.ip, f"http://{h.name}:{port}/", h.purpose) for h in HOSTS.values()]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r[:4], widths)) + "  " + r[4] for r in rows)


def _write_ready_file(path: str, port: int) -> None:
    # Write-then-rename so a poller never reads a half-written port.
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(f"{port}\n")
    os.replace(tmp, path)


def serve(args: argparse.Namespace) -> int:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        site = DemoSite(port=args.port, latency=args.latency, log_path=args.log).start()
    except OSError as exc:
        # Usually a taken port, or a system (macOS) where only 127.0.0.1 is configured.
        print(f"cannot listen on 127.0.0.2-127.0.0.15 port {args.port}: {exc}", file=sys.stderr)
        return 1
    try:
        print(host_table(site.port), flush=True)
        print(
            f"\nserving {len(site.host_keys)} hosts on port {site.port}; "
            "*.walsh-demo.test names resolve only through the demo resolver, "
            "IP URLs work everywhere. Ctrl-C to stop.",
            flush=True,
        )
        if args.ready_file:
            _write_ready_file(args.ready_file, site.port)
        while not stop.wait(0.5):
            pass
    finally:
        site.stop()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m demo_site", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_serve = sub.add_parser("serve", help="run the demo site until SIGINT/SIGTERM")
    p_serve.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"shared port (default {DEFAULT_PORT}; 0 = any free)"
    )
    p_serve.add_argument("--latency", type=float, default=0.0, help="seconds to wait before every response")
    p_serve.add_argument("--log", metavar="FILE", help="append one JSON line per request to FILE")
    p_serve.add_argument("--ready-file", metavar="FILE", help="write the port to FILE once listening")
    p_hosts = sub.add_parser("hosts", help="print the host table and exit")
    p_hosts.add_argument("--port", type=int, default=DEFAULT_PORT, help="port to show in the URLs")
    args = parser.parse_args(argv)
    if args.command == "serve":
        return serve(args)
    print(host_table(args.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
