"""A loopback server for hostile answers: compression bombs, a server that never answers, a trickle.

Each :class:`HostileServer` listens on its own loopback address (one host to the crawler) and
answers each path from a table of behaviours; it records what it saw (path, arrival and end on
its monotonic clock), and the tests assert on that record.
"""

from __future__ import annotations

import select
import socket
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

MIB = 1024 * 1024


def bomb(path: Path, encoding: str, prefix: bytes = b"", size: int = 800 * MIB, fill: bytes = b"\0") -> Path:
    """``prefix`` then ``fill`` up to ``size`` bytes, compressed with ``encoding`` into ``path``
    (once: it is cached), streamed a MiB at a time so the test never holds the whole."""
    if path.exists():
        return path
    if encoding == "gzip":
        compressor: object = zlib.compressobj(9, zlib.DEFLATED, 31)
        step, end = compressor.compress, compressor.flush  # type: ignore[attr-defined]
    elif encoding == "br":
        import brotli

        compressor = brotli.Compressor(quality=5)
        step, end = compressor.process, compressor.finish  # type: ignore[attr-defined]
    else:
        from backports import zstd

        compressor = zstd.ZstdCompressor(level=3)
        step, end = compressor.compress, compressor.flush  # type: ignore[attr-defined]
    chunk = fill * (MIB // len(fill))
    tmp = path.with_suffix(".part")
    with tmp.open("wb") as out:
        out.write(step(prefix))
        written = len(prefix)
        while written < size:
            piece = chunk[: size - written]
            out.write(step(piece))
            written += len(piece)
        out.write(end())
    tmp.rename(path)
    return path


def compressed(headers: dict[str, str], body: Path) -> Callable[[BaseHTTPRequestHandler], None]:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        data = body.read_bytes()
        handler.send_response(200)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    return answer


def plain(body: bytes, content_type: str = "text/html") -> Callable[[BaseHTTPRequestHandler], None]:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return answer


def header_flood(count: int) -> Callable[[BaseHTTPRequestHandler], None]:
    """A 200 whose header block has ``count`` header lines of 14 bytes (a million: 14 MB),
    written 10,000 lines at a time, then a 2-byte body; the record's ``end`` is when the
    crawler hung up, or when all was written."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 2\r\n")
        for start in range(0, count, 10_000):
            handler.wfile.write(b"".join(b"x-%06d: vv\r\n" % i for i in range(start, min(count, start + 10_000))))
        handler.wfile.write(b"\r\nok")

    return answer


def long_file(
    head: bytes, size: int, tail: bytes, content_type: str = "text/plain"
) -> Callable[[BaseHTTPRequestHandler], None]:
    """``head``, then ``#`` comment lines up to ``size`` bytes, then ``tail``, with its
    Content-Length, written a MiB at a time (the server never holds the whole)."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        line = b"#" * 1023 + b"\n"
        fill = (size - len(head) - len(tail)) // len(line)
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(head) + fill * len(line) + len(tail)))
        handler.end_headers()
        handler.wfile.write(head)
        for start in range(0, fill, 1024):
            handler.wfile.write(line * min(1024, fill - start))
        handler.wfile.write(tail)

    return answer


def run_measured(command: list[str], cwd: Path, log: Path) -> tuple[int, float]:
    """Run ``command`` with its stderr in ``log``; (its exit code, its peak RSS in MB).

    A small launcher starts the command and reads its rusage (``os.wait4``): Linux counts, in a
    child's peak RSS, the memory of the process it was forked from (up to its exec), so a crawl
    forked straight from a pytest worker grown to 340 MB would report 340 MB whatever it used."""
    peak = log.with_suffix(".peak_rss_kb")
    with log.open("w") as err:
        process = subprocess.run(
            [sys.executable, "-c", LAUNCHER, str(peak), *command], cwd=cwd, stdout=subprocess.DEVNULL, stderr=err
        )
    return process.returncode, int(peak.read_text()) / 1024


#: argv: the file to write the child's peak RSS (KiB) to, then the command; exits with its code.
LAUNCHER = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(child.pid, 0)
open(sys.argv[1], "w").write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def hang(seconds: float = 120.0) -> Callable[[BaseHTTPRequestHandler], None]:
    """Accept the connection, read the request, never answer (until ``seconds``, or until the
    client hangs up: the record's ``end`` is when the crawler gave up)."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        stop = time.monotonic() + seconds
        connection = handler.connection
        while time.monotonic() < stop and not handler.server.closing:  # type: ignore[attr-defined]
            readable, _, _ = select.select([connection], [], [], 0.02)
            if readable and not connection.recv(1, socket.MSG_PEEK):  # an OSError: reset, also gone
                return  # the client closed the connection

    return answer


def busy(retry_after: int) -> Callable[[BaseHTTPRequestHandler], None]:
    """503 with ``Retry-After: retry_after`` (seconds), every time."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(503)
        handler.send_header("Retry-After", str(retry_after))
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return answer


def trickle(every: float = 1.0, length: int = 10_000) -> Callable[[BaseHTTPRequestHandler], None]:
    """Headers at once, then one byte of body every ``every`` seconds."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain")
        handler.send_header("Content-Length", str(length))
        handler.end_headers()
        try:
            for _ in range(length):
                if handler.server.closing:  # type: ignore[attr-defined]
                    return
                handler.wfile.write(b"#")
                handler.wfile.flush()
                time.sleep(every)
        except OSError:
            return  # the crawler gave up

    return answer


class HostileServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, ip: str, routes: dict[str, Callable[[BaseHTTPRequestHandler], None]]):
        super().__init__((ip, 0), _Handler)
        self.routes = routes
        self.closing = False
        self.log: list[dict[str, object]] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://{self.server_address[0]}:{self.server_address[1]}{path}"

    def close(self) -> None:
        self.closing = True
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        path = self.path.split("?")[0]
        record: dict[str, object] = {"path": path, "mono": time.monotonic()}
        with self.server.lock:  # type: ignore[attr-defined]
            self.server.log.append(record)  # type: ignore[attr-defined]
        route = self.server.routes.get(path)  # type: ignore[attr-defined]
        try:
            if route is None:
                plain(b"<html><title>ok</title></html>")(self)
            else:
                route(self)
        except OSError:
            pass
        record["end"] = time.monotonic()
        self.close_connection = True

    def log_message(self, *args: object) -> None:
        pass
