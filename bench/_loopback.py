"""What the many-host benches share: a loopback server for any number of host names.

Every ``*.<domain>`` name resolves to one loopback address (a Scrapy resolver written
into the bench project), so 50,000 names are 50,000 hosts to the crawler while one
stdlib server answers them all: robots.txt (allow all) and any page, after a fixed
latency. The server logs each request's Host, path and arrival (monotonic clock), and
the figures are read from that log, never from the crawler's own account.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import defaultdict
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

#: Server-side clock tolerance for spacing, as in the test suite.
TOLERANCE = 0.02

RESOLVER = '''
from twisted.internet import defer
from demo_site.resolver import DemoResolver


class BenchResolver(DemoResolver):
    """*.{domain} -> {ip}; the demo names as the demo resolver has them."""

    def getHostByName(self, name, timeout=()):
        if name.lower().rstrip(".").endswith(".{domain}"):
            return defer.succeed("{ip}")
        return super().getHostByName(name, timeout)
'''


def resolver_source(domain: str, ip: str) -> str:
    """The bench project's ``resolver.py``: ``benchproj.resolver.BenchResolver``."""
    return RESOLVER.replace("{domain}", domain).replace("{ip}", ip)


#: ``benchproj/trips.py`` (``--breakdown``): counts each Redis round trip of the crawl by what it
#: was (the store's name for the call) and the first caller outside the store, and writes the
#: counts to ``trips_<pid>.json`` in the project at exit. The bench's own wrapper: the add-on
#: only counts them (``walsh/store/round_trips``).
TRIPS = """
import atexit, collections, json, os, sys
from pathlib import Path
from scrapy_walsh.store.redis import RedisStore

_COUNTS = collections.Counter()
_call = RedisStore._call
_INSIDE = ("/scrapy_walsh/store/", "/redis/", "/contextlib.py")


def _site():
    frame = sys._getframe(2)
    while frame is not None and any(part in frame.f_code.co_filename for part in _INSIDE):
        frame = frame.f_back
    if frame is None:
        return "?"
    name = frame.f_code.co_filename.rsplit("/scrapy_walsh/", 1)[-1]
    return f"{name}:{frame.f_code.co_name}"


def _counted(self, what, fn, kind=None):
    _COUNTS[f"{kind or what} <- {_site()}"] += 1
    return _call(self, what, fn, kind)


RedisStore._call = _counted
atexit.register(lambda: (Path(__file__).parent.parent / f"trips_{os.getpid()}.json").write_text(json.dumps(_COUNTS)))
"""


def trip_sites(project: Path) -> dict[str, int]:
    """The round trips by call site summed over the crawls of ``project`` (:data:`TRIPS`)."""
    total: dict[str, int] = defaultdict(int)
    for found in project.glob("trips_*.json"):
        for site, count in json.loads(found.read_text()).items():
            total[site] += count
    return dict(total)


def print_trip_sites(sites: dict[str, int], requests: int) -> None:
    """What each call site costs per request, the dearest first."""
    print(f"    Redis round trips by call site, per request ({requests} requests):")
    for site, count in sorted(sites.items(), key=lambda kv: -kv[1]):
        print(f"    {count / max(1, requests):7.3f}  {count:7d}  {site}")


class BenchServer(ThreadingHTTPServer):
    """Answers every host name after ``latency`` seconds; ``log`` is what it saw."""

    daemon_threads = True
    request_queue_size = 128

    def __init__(self, ip: str, latency: float) -> None:
        super().__init__((ip, 0), _Handler)
        self.latency = latency
        self.log: list[tuple[str, str, float]] = []
        #: connections accepted: against the requests, how often the crawl connected again
        self.accepted = 0
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return self.server_address[1]

    def process_request(self, request: Any, client_address: Any) -> None:
        self.accepted += 1
        super().process_request(request, client_address)

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


def answer(handler: BaseHTTPRequestHandler) -> None:
    """200 with an allow-all robots.txt, or a small page titled by its path (every bench server's reply)."""
    if handler.path == "/robots.txt":
        body, ctype = b"User-agent: *\nAllow: /\n", "text/plain"
    else:
        body, ctype = f"<html><head><title>{handler.path}</title></head><body>ok</body></html>".encode(), "text/html"
    handler.send_response(200)
    handler.send_header("Content-Type", ctype)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: BenchServer

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        arrived = time.monotonic()
        with self.server.lock:
            self.server.log.append(((self.headers.get("Host") or "").split(":")[0], self.path, arrived))
        time.sleep(self.server.latency)
        answer(self)

    def log_message(self, *args: object) -> None:
        pass


def violations(log: Iterable[tuple[str, str, float]], interval: float = 1.0) -> list[tuple[str, float]]:
    """Same-host start-to-start gaps under ``interval`` minus the clock tolerance."""
    by_host: dict[str, list[float]] = defaultdict(list)
    for host, _, arrived in log:
        by_host[host].append(arrived)
    found = []
    for host, times in by_host.items():
        times.sort()
        found += [(host, round(b - a, 3)) for a, b in zip(times, times[1:]) if b - a < interval - TOLERANCE]
    return found


def wait_rss(process) -> tuple[int, int]:
    """Wait for ``process`` (a Popen); return (exit status, its peak RSS in KiB)."""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage.ru_maxrss


class CpuSampler:
    """The CPU seconds (user + system) a process has used, sampled from ``/proc`` every
    ``every`` s on the monotonic clock the server logs with: :meth:`between` is the CPU
    spent while the server saw the crawl's requests, start-up and shutdown left out. A
    wall-clock rate swings with the machine's other load; the CPU per request much less."""

    def __init__(self, pid: int, every: float = 0.05):
        self.samples: list[tuple[float, float]] = []
        #: the most file descriptors the process held at once (sampled once a second): its sockets
        self.peak_fds = 0
        self._fds = f"/proc/{pid}/fd"
        self._path = f"/proc/{pid}/stat"
        self._tick = os.sysconf("SC_CLK_TCK")
        self._every = every
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        every_second = max(1, round(1 / self._every))
        while True:
            try:
                with open(self._path) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if len(self.samples) % every_second == 0:
                    self.peak_fds = max(self.peak_fds, len(os.listdir(self._fds)))
            except OSError:
                return  # the process is gone
            self.samples.append((time.monotonic(), (int(fields[11]) + int(fields[12])) / self._tick))
            time.sleep(self._every)

    def join(self) -> None:
        self._thread.join(timeout=5)

    def _at(self, moment: float) -> float:
        before = [cpu for t, cpu in self.samples if t <= moment]
        return before[-1] if before else (self.samples[0][1] if self.samples else 0.0)

    def between(self, start: float, end: float) -> float:
        return self._at(end) - self._at(start)
