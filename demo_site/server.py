"""The demo site: a real HTTP server on loopback, one listener per demo host, one port.

Tests assert on what the server *saw*, so every request is recorded with the moment
its request line arrived, the exact headers, the status sent and how many requests
were in flight. Each host has its own 127.0.0.x address so that per-host behaviour
(politeness delays, robots.txt) is observable even for clients that ignore ``Host``.
"""

from __future__ import annotations

import bisect
import errno
import json
import os
import re
import socket
import socketserver
import sys
import threading
import time
import traceback
from collections.abc import Iterable
from dataclasses import replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO

from demo_site.content import (
    NO_BODY_STATUSES,
    DemoRequest,
    DemoResponse,
    blocklist_bytes,
    default_blocklist,
    respond,
)
from demo_site.hosts import BY_IP, HOSTS, lookup
from demo_site.verifier import VERIFIED, VERIFIER_HEADER, SignatureVerifier

__all__ = ("DemoSite", "SENTINEL_IPS", "load_request_log")

# Addresses no demo host uses: anything arriving there is a request that should not exist.
SENTINEL_IPS = ("127.0.0.1", "::1")
_BIND_ATTEMPTS = 20
_MAX_LATENCY = 300.0
_MAX_DRAIN = 10 * 1024 * 1024
# A Host value we are willing to echo into bodies: name or IPv4 (optional port), or [IPv6].
_AUTHORITY_RE = re.compile(r"^(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$")


#: Where a Web Bot Auth key directory is published (draft-ietf-webbotauth-httpsig-protocol).
DIRECTORY_PATH = "/.well-known/http-message-signatures-directory"


def _unauthorized(why: str | None) -> DemoResponse:
    """What a site that requires verified bots answers to anything else."""
    return DemoResponse(
        401,
        [("Content-Type", "text/plain; charset=utf-8"), ("WWW-Authenticate", 'Signature realm="walsh-demo"')],
        f"a verified Web Bot Auth signature is required here ({why})\n".encode(),
    )


def _host_name(value: str | None) -> str:
    """Host header -> lower-cased name without port (and without IPv6 brackets)."""
    if not value:
        return ""
    value = " ".join(value.split()).lower()  # a folded header can carry CR LF
    if value.startswith("["):
        end = value.find("]")
        return value[1:end] if end > 0 else value
    if value.count(":") == 1:
        value = value.rsplit(":", 1)[0]
    return value


def _encode_header_line(line: str) -> bytes:
    try:
        return line.encode("latin-1")
    except UnicodeEncodeError:
        return line.encode("utf-8")


def load_request_log(path: str | os.PathLike) -> list[dict]:
    """Read a JSONL request log back, in arrival order.

    Lines are written when responses complete, so a slow request can be written after a
    later fast one; sorting by ``mono`` (one system-wide clock per boot) restores arrival
    order. A torn final line (writer killed mid-write) is skipped.
    """
    with open(path, encoding="utf-8") as fh:
        lines = [ln for ln in fh.read().splitlines() if ln.strip()]
    records: list[dict] = []
    for i, line in enumerate(lines):
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            if i == len(lines) - 1:
                break
            raise
    records.sort(key=lambda r: r.get("mono", 0.0))
    return records


class _Server(ThreadingHTTPServer):
    """One listener (one IP), sharing its DemoSite's state with the others."""

    allow_reuse_address = True
    daemon_threads = True
    block_on_close = False  # the DemoSite joins handler threads itself, after closing sockets

    def __init__(self, address: tuple[str, int], site: DemoSite, sentinel: bool) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.site = site
        self.sentinel = sentinel
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind() calls socket.getfqdn(), a reverse DNS query that could
        # leave the machine. We never need the name, so skip it.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.local_address()

    def local_address(self) -> tuple[str, int]:
        """(ip, port) this listener is bound to; always an IP literal, never bytes."""
        return str(self.server_address[0]), int(self.server_address[1])

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self._run, args=(request, client_address), name=f"walsh-demo-{self.local_address()[0]}", daemon=True
        )
        self.site._track(thread, request)
        thread.start()

    def _run(self, request: Any, client_address: Any) -> None:
        opened = time.monotonic()
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            self.site._untrack(threading.current_thread(), self.local_address()[0], opened)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hanging up (or stop() cutting them off) is normal; real bugs still print.
        exc = sys.exc_info()[1]
        if isinstance(exc, OSError) or self.site._stopping.is_set():
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "walsh-demo/1"
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Silence the per-request stderr line; the DemoSite log is the record."""

    def version_string(self) -> str:
        return self.server_version

    def send_response_only(self, code: int, message: str | None = None) -> None:
        # Only reached for stdlib-generated replies (send_error, 100 Continue).
        self._status = int(code)
        super().send_response_only(code, message)

    def handle_one_request(self) -> None:
        """The stdlib loop, plus an arrival timestamp right after the request line."""
        try:
            self.raw_requestline = self.rfile.readline(65537)
            t, mono = time.time(), time.monotonic()
            if not self.raw_requestline:
                self.close_connection = True
                return
            site = self.server.site
            in_flight = site._enter()
            self._status = 0
            self._signature: str | None = None
            self._verifier = False
            self._host_key: str | None = None
            self._replied: float | None = None  # set when the reply starts
            self.headers = None  # type: ignore[assignment]  # not parsed yet (keep-alive reuse)
            self.command, self.path = "", ""
            try:
                if len(self.raw_requestline) > 65536:
                    self.requestline = ""
                    self.request_version = ""
                    self.command = ""
                    self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG)
                elif self.parse_request():
                    self._serve()
                self.wfile.flush()
            finally:
                site._leave(self._record(t, mono, in_flight), self._replied is not None)
        except TimeoutError:
            self.close_connection = True

    # -- serving -------------------------------------------------------------------

    def _local(self) -> tuple[str, int]:
        return self.server.local_address()

    def _serve(self) -> None:
        site = self.server.site
        self._drain_body()
        ip, port = self._local()
        host_header = self.headers.get("Host")
        key = site._resolve_key(host_header, ip, self.server.sentinel)
        self._host_key = key

        # Links echo the Host header when it is a plain authority; otherwise (missing,
        # or folded/odd) they fall back to the address the request arrived on.
        authority = f"{ip}:{port}" if ":" not in ip else f"[{ip}]:{port}"
        link_port = port
        match = _AUTHORITY_RE.match(host_header.strip()) if host_header else None
        if match and host_header:
            authority = host_header.strip()
            link_port = int(match.group(1)) if match.group(1) else site.port

        lowered: dict[str, str] = {}
        for name, value in self.headers.items():
            name = name.lower()
            lowered[name] = f"{lowered[name]}, {value}" if name in lowered else value
        req = DemoRequest(
            method=self.command, target=self.path, host_key=key, authority=authority, port=link_port, headers=lowered
        )
        hit, path_hit = site._count(key, req.target, req.path)
        req = replace(req, hit=hit, path_hit=path_hit)

        delay = site.latency
        for raw in req.params("latency"):
            try:
                delay = float(raw)
            except ValueError:
                continue
            break
        if delay > 0:  # NaN fails this test too
            site._stopping.wait(min(delay, _MAX_LATENCY))
        self._verifier = bool(self.headers.get(VERIFIER_HEADER))
        self._signature = None if self._verifier else site.verifier.check(self.command, self._url(), lowered)
        try:
            if site.requires_signature(req.host_key) and not self._verifier and self._signature != VERIFIED:
                self._write(_unauthorized(self._signature))
                return
            resp = site._override_for(req.host_key, req.path) or respond(req, site._blocklist_snapshot())
        except Exception:
            # A bug in a route: answer (and log) a 500 rather than drop the connection,
            # so the test that hit it fails on a status, with the traceback on stderr.
            traceback.print_exc()
            resp = DemoResponse(500, [("Content-Type", "text/plain; charset=utf-8")], b"demo site error\n")
        self._write(resp)

    def _url(self) -> str:
        """The request's URL as a site reconstructs it (Host header + target)."""
        if "://" in self.path:
            return self.path
        return f"http://{(self.headers.get('Host') or '').strip()}{self.path}"

    def _drain_body(self) -> None:
        """Read and discard a request body so the next keep-alive request parses."""
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True  # not worth de-chunking for a demo
            return
        raw = self.headers.get("Content-Length")
        if not raw:
            return
        try:
            remaining = int(raw)
        except ValueError:
            self.close_connection = True
            return
        if remaining > _MAX_DRAIN:
            self.close_connection = True
            return
        while remaining > 0:
            chunk = self.rfile.read(min(remaining, 65536))
            if not chunk:
                break
            remaining -= len(chunk)

    def _write(self, resp: DemoResponse) -> None:
        """Status line, headers and body in one write: no Nagle/delayed-ACK stalls."""
        status = resp.status
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = "Status"
        lines = [
            f"{self.protocol_version} {status} {phrase}",
            f"Server: {self.server_version}",
            f"Date: {self.date_time_string()}",
        ]
        lines += [f"{k}: {v}" for k, v in resp.headers]
        no_body = status in NO_BODY_STATUSES or status < 200
        if not no_body and not any(k.lower() == "content-length" for k, _ in resp.headers):
            lines.append(f"Content-Length: {len(resp.body)}")
        if self.close_connection:
            lines.append("Connection: close")
        elif self.request_version == "HTTP/1.0":
            lines.append("Connection: keep-alive")
        body = b"" if no_body or self.command == "HEAD" else resp.body
        data = b"".join(_encode_header_line(line) + b"\r\n" for line in lines) + b"\r\n" + body
        self._status = status
        self._replied = self.server.site._begin_write()
        self.wfile.write(data)

    def _record(self, t: float, mono: float, in_flight: int) -> dict:
        headers: dict[str, str] = {}
        host_header = None
        if self.headers is not None:
            for name, value in self.headers.items():
                headers[name] = f"{headers[name]}, {value}" if name in headers else value
            host_header = self.headers.get("Host")
        ip, port = self._local()
        key = self._host_key or self.server.site._resolve_key(host_header, ip, self.server.sentinel)
        return {
            "t": t,
            "mono": mono,
            "replied": self._replied,
            "end": time.monotonic(),
            "host": _host_name(host_header),
            "host_key": key,
            "ip": ip,
            "port": port,
            "method": self.command or "",
            "path": self.path or "",
            "signature": self._signature,
            "verifier": self._verifier,
            "headers": headers,
            "status": self._status,
            "in_flight": in_flight,
        }


class DemoSite:
    """Every demo host on its own loopback IP, all on one port, with one shared log.

    Use as a context manager, or call :meth:`start` / :meth:`stop`.
    """

    def __init__(
        self,
        port: int = 0,
        latency: float = 0.0,
        log_path: str | os.PathLike | None = None,
        hosts: Iterable[str] | None = None,
        sentinels: bool = False,
        require_signatures: Iterable[str] = (),
    ) -> None:
        keys = list(HOSTS) if hosts is None else list(hosts)
        unknown = [k for k in keys if k not in HOSTS]
        if unknown:
            raise ValueError(f"unknown demo hosts: {unknown}; known: {list(HOSTS)}")
        self.port = int(port)
        self.latency = float(latency)
        self.log_path = os.fspath(log_path) if log_path is not None else None
        self.host_keys: tuple[str, ...] = tuple(dict.fromkeys(keys))
        self.sentinels = sentinels
        #: Host keys that answer 401 to a request without a verified Web Bot Auth signature.
        self.require_signatures = frozenset(require_signatures)
        self.verifier = SignatureVerifier(lambda: self.port)
        self.sentinel_ips: list[str] = []  # the sentinel addresses actually bound
        self._requested_port = int(port)
        self._lock = threading.Lock()
        self._written = threading.Condition(self._lock)
        self._log: list[dict] = []
        self._hits: dict[tuple[str, str, str], int] = {}
        self._in_flight = 0
        self._writing = 0
        self._blocklist = (200, blocklist_bytes(default_blocklist()))
        self._overrides: dict[tuple[str, str], DemoResponse] = {}
        self._servers: list[_Server] = []
        self._serve_threads: list[threading.Thread] = []
        self._handlers: dict[threading.Thread, socket.socket] = {}
        self._connections: list[dict] = []
        self._stopping = threading.Event()
        self._log_file: TextIO | None = None
        self._running = False

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> DemoSite:
        """Bind every host's IP on one port (a free one if port=0) and start serving."""
        if self._running:
            return self
        self._stopping.clear()
        servers, port, sentinel_ips = self._bind_all()
        self.port, self.sentinel_ips, self._servers = port, sentinel_ips, servers
        if self.log_path is not None:
            self._log_file = open(self.log_path, "a", encoding="utf-8")
        self._serve_threads = []
        for srv in servers:
            thread = threading.Thread(
                target=srv.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"walsh-demo-listen-{srv.local_address()[0]}",
                daemon=True,
            )
            thread.start()
            self._serve_threads.append(thread)
        self._running = True
        return self

    def _bind_all(self) -> tuple[list[_Server], int, list[str]]:
        # Port 0: the first bind picks a port, the rest reuse it; if another process
        # holds that port on one of the other IPs, start over with a new one.
        attempts = _BIND_ATTEMPTS if self._requested_port == 0 else 1
        last_error: OSError | None = None
        for _ in range(attempts):
            port = self._requested_port
            servers: list[_Server] = []
            sentinel_ips: list[str] = []
            try:
                for key in self.host_keys:
                    servers.append(_Server((HOSTS[key].ip, port), self, sentinel=False))
                    port = servers[-1].server_address[1]
                if self.sentinels:
                    for ip in SENTINEL_IPS:
                        try:
                            servers.append(_Server((ip, port), self, sentinel=True))
                        except OSError as exc:
                            # No IPv6 on this machine is fine; a taken port is not.
                            if ip == "::1" and exc.errno != errno.EADDRINUSE:
                                continue
                            raise
                        port = servers[-1].server_address[1]
                        sentinel_ips.append(ip)
                return servers, port, sentinel_ips
            except OSError as exc:
                for srv in servers:
                    srv.server_close()
                if exc.errno != errno.EADDRINUSE or self._requested_port:
                    raise
                last_error = exc
        assert last_error is not None
        raise last_error

    def stop(self) -> None:
        """Stop listening, cut open connections, join every thread. Safe to call twice."""
        if not self._running:
            return
        self._running = False
        self._stopping.set()  # also wakes handlers sleeping for latency
        stoppers = [threading.Thread(target=srv.shutdown) for srv in self._servers]
        for th in stoppers:
            th.start()
        for th in stoppers:
            th.join()
        for srv in self._servers:
            srv.server_close()
        with self._lock:
            handlers = list(self._handlers.items())
        for _, conn in handlers:
            try:
                conn.shutdown(socket.SHUT_RDWR)  # idle keep-alive readers return at once
            except OSError:
                pass
        for thread, _ in handlers:
            thread.join(timeout=5)
        for thread in self._serve_threads:
            thread.join(timeout=5)
        self._servers, self._serve_threads = [], []
        with self._lock:
            if self._log_file is not None:
                self._log_file.close()
                self._log_file = None

    def __enter__(self) -> DemoSite:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses -----------------------------------------------------------------

    def base(self, host_key: str, by_ip: bool = False) -> str:
        """``http://open.walsh-demo.test:PORT`` (or ``http://127.0.0.2:PORT`` by IP)."""
        host = HOSTS[host_key]
        return f"http://{host.ip if by_ip else host.name}:{self.port}"

    def url(self, host_key: str, path: str = "/", by_ip: bool = False) -> str:
        if not path.startswith("/"):
            path = "/" + path
        return self.base(host_key, by_ip) + path

    # -- the log -------------------------------------------------------------------

    @property
    def requests(self) -> list[dict]:
        """Every record so far, in arrival order.

        A client can read its response a moment before the server thread appends the
        record, so this first waits (briefly) for responses already being written.
        Requests still sleeping for latency are not waited for.
        """
        with self._written:
            self._written.wait_for(lambda: self._writing == 0, timeout=2.0)
            return [dict(r, headers=dict(r["headers"])) for r in self._log]

    def requests_for(
        self, host_key: str | None = None, path: str | None = None, prefix: str | None = None
    ) -> list[dict]:
        """Records filtered by host key, exact raw target, and/or target prefix."""
        return [
            r
            for r in self.requests
            if (host_key is None or r["host_key"] == host_key)
            and (path is None or r["path"] == path)
            and (prefix is None or r["path"].startswith(prefix))
        ]

    def arrived(self, host_key: str, path: str) -> int:
        """How many requests for ``path`` on ``host_key`` have arrived, answered or not (the log
        has a request only once it is answered)."""
        with self._lock:
            return self._hits.get(("path", host_key, path), 0)

    def reset(self) -> None:
        """Forget the log and the hit counters (the blocklist override is kept).

        Waits, like :attr:`requests`, for responses already being written, so a request
        whose response the caller has read is never logged after the reset.
        """
        with self._written:
            self._written.wait_for(lambda: self._writing == 0, timeout=2.0)
            self._log.clear()
            self._hits.clear()

    # -- the blocklist -------------------------------------------------------------

    def set_blocklist(self, body: bytes | str | dict | None = None, status: int = 200) -> None:
        """Replace what the ops host serves at BLOCKLIST_PATH; None means the default."""
        if body is None:
            data = blocklist_bytes(default_blocklist())
        elif isinstance(body, dict):
            data = blocklist_bytes(body)
        elif isinstance(body, str):
            data = body.encode("utf-8")
        elif isinstance(body, (bytes, bytearray)):
            data = bytes(body)
        else:
            raise TypeError(f"blocklist body must be bytes, str, dict or None, not {type(body).__name__}")
        with self._lock:
            self._blocklist = (int(status), data)

    # -- overrides -------------------------------------------------------------------

    def override(
        self,
        host_key: str,
        path: str,
        status: int | None = None,
        body: bytes | str = b"",
        content_type: str = "text/plain; charset=utf-8",
        headers: Iterable[tuple[str, str]] = (),
    ) -> None:
        """Serve ``status``/``body`` at ``host_key`` + exact ``path`` (no query) instead
        of the normal route, until changed; ``status=None`` removes the override. Tests use
        it to make one robots.txt fail between two runs."""
        with self._lock:
            if status is None:
                self._overrides.pop((host_key, path), None)
            else:
                data = body.encode("utf-8") if isinstance(body, str) else bytes(body)
                self._overrides[(host_key, path)] = DemoResponse(
                    int(status), [("Content-Type", content_type), *headers], data
                )

    def requires_signature(self, host_key: str) -> bool:
        return host_key in self.require_signatures

    def publish_directory(self, document: dict, host_key: str = "ops") -> str:
        """Serve a Web Bot Auth key directory on ``host_key``; returns its URL."""
        self.override(
            host_key,
            DIRECTORY_PATH,
            200,
            json.dumps(document),
            content_type="application/http-message-signatures-directory+json",
        )
        self.verifier.forget()
        return self.url(host_key, DIRECTORY_PATH)

    def _override_for(self, host_key: str, path: str) -> DemoResponse | None:
        with self._lock:
            resp = self._overrides.get((host_key, path))
        return None if resp is None else DemoResponse(resp.status, list(resp.headers), resp.body)

    def _blocklist_snapshot(self) -> tuple[int, bytes]:
        with self._lock:
            return self._blocklist

    # -- called from handler threads -----------------------------------------------

    def _resolve_key(self, host_header: str | None, ip: str, sentinel: bool) -> str:
        # A sentinel listener exists to catch traffic; whatever the Host says, it is caught.
        if sentinel:
            return "sentinel"
        host = lookup(host_header) if host_header else None
        if host is not None and host.key in self.host_keys:
            return host.key
        host = BY_IP.get(ip)
        if host is not None and host.key in self.host_keys:
            return host.key
        return "sentinel" if ip in SENTINEL_IPS else "unknown"

    def _count(self, key: str, target: str, path: str) -> tuple[int, int]:
        """Hit numbers (1-based) of this exact target and of its path, counted at arrival."""
        with self._lock:
            hit = self._hits[("target", key, target)] = self._hits.get(("target", key, target), 0) + 1
            path_hit = self._hits[("path", key, path)] = self._hits.get(("path", key, path), 0) + 1
        return hit, path_hit

    def _enter(self) -> int:
        with self._lock:
            self._in_flight += 1
            return self._in_flight

    def _begin_write(self) -> float:
        """The reply starts: from here the client may send its next request.

        So this, not the end of the handler, is where a request stops being in flight;
        a serial client's next request can never arrive before it (causality), so any
        ``in_flight`` above 1 is real concurrency, not server-side bookkeeping.
        """
        with self._lock:
            self._writing += 1
            self._in_flight -= 1
            return time.monotonic()

    def _leave(self, record: dict, writing: bool) -> None:
        mine = record.pop("verifier", False)  # the site's own directory fetch: not the crawler's traffic
        line = json.dumps(record) + "\n" if self.log_path is not None and not mine else None
        with self._written:
            if not writing:  # stdlib error replies bypass _begin_write
                self._in_flight -= 1
            if not mine:
                bisect.insort(self._log, record, key=lambda r: r["mono"])
            if line is not None and self._log_file is not None:
                self._log_file.write(line)
                self._log_file.flush()
            if writing:
                self._writing -= 1
                self._written.notify_all()

    def _track(self, thread: threading.Thread, conn: socket.socket) -> None:
        with self._lock:
            self._handlers[thread] = conn

    def _untrack(self, thread: threading.Thread, ip: str, opened: float) -> None:
        with self._lock:
            self._handlers.pop(thread, None)
            self._connections.append({"ip": ip, "opened": opened, "closed": time.monotonic()})

    @property
    def connections(self) -> list[dict]:
        """Each connection that has ended: the listener's ``ip``, and when it was ``opened`` and
        ``closed`` (monotonic, as the request log): by the client, unless a route closed it."""
        with self._lock:
            return list(self._connections)
