"""No hidden resends, and no request piled on a server still answering.

* Twisted's connection pool silently resent a request when the server reset a reused
  keep-alive connection: the server saw ``/reset`` twice with ``RETRY_ENABLED=False``.
* After a ``download_timeout`` the host's next request went out while the server was still
  answering the first. The checkpoint settles the host when we give up, and raises a
  ``download_timeout`` under the floor (5 s) to the floor.
"""

from __future__ import annotations

import socket
import struct
import threading
import time

import pytest

from tests.helpers import CLOCK_TOLERANCE, run_scrapy, stat, write_spider

#: scrapy_walsh.settings.DOWNLOAD_TIMEOUT_FLOOR (tests/unit/test_checkpoint.py pins it)
DOWNLOAD_TIMEOUT_FLOOR = 5.0

#: A loopback address no demo host uses: the resetting server listens here.
RESET_IP = "127.0.0.40"


class ResettingServer:
    """HTTP/1.1 keep-alive; ``/reset`` is read, recorded, then the connection is reset (RST)
    without an answer. Records each request's path."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((RESET_IP, 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.paths: list[str] = []
        self.connections = 0
        self._stop = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        """Read each request head on the connection, record its path, and let ``_answer`` reply."""
        data, served = b"", 0
        with conn:
            while True:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head, data = data.split(b"\r\n\r\n", 1)
                path = head.split(b"\r\n", 1)[0].split(b" ")[1].decode()
                self.paths.append(path)
                if not self._answer(conn, path, served):
                    return
                served += 1

    def _answer(self, conn: socket.socket, path: str, served: int) -> bool:
        """Reply to ``path`` (``served`` requests were answered on this connection before);
        False closes the connection."""
        if path == "/reset":
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return False  # closed with RST, nothing answered
        body = b"" if path == "/robots.txt" else b"<html><body>ok</body></html>"
        status = b"404 Not Found" if path == "/robots.txt" else b"200 OK"
        conn.sendall(
            b"HTTP/1.1 "
            + status
            + b"\r\nContent-Type: text/html\r\nContent-Length: "
            + str(len(body)).encode()
            + b"\r\n\r\n"
            + body
        )
        return True

    def close(self) -> None:
        self._stop = True
        self.sock.close()


@pytest.fixture
def resetting_server():
    server = ResettingServer()
    yield server
    server.close()


SPIDER = """
import scrapy


class TargetsSpider(scrapy.Spider):
    name = "targets"
    custom_settings = {"RETRY_ENABLED": False}

    async def start(self):
        for index, url in enumerate(self.urls.split(",")):
            meta = {"download_timeout": float(self.short)} if index == 0 and getattr(self, "short", None) else {}
            yield scrapy.Request(url, priority=-index, meta=meta, errback=self.failed)

    def parse(self, response):
        yield {"url": response.url}

    def failed(self, failure):
        yield {"failed": failure.request.url, "error": type(failure.value).__name__}
"""


def test_a_reset_keep_alive_connection_is_not_resent(project, demo_site, resetting_server):
    settings = project / "plainproj" / "settings.py"
    settings.write_text(
        settings.read_text() + f"\nWALSH_ALLOW_PRIVATE_ADDRESSES = WALSH_ALLOW_PRIVATE_ADDRESSES + ['{RESET_IP}/32']\n"
    )
    write_spider(project, "targets", SPIDER)
    base = f"http://{RESET_IP}:{resetting_server.port}"
    result = run_scrapy(["crawl", "targets", "-a", f"urls={base}/first,{base}/reset"], cwd=project)
    assert result.returncode == 0, result.stderr[-3000:]
    assert resetting_server.paths[:2] == ["/robots.txt", "/first"], resetting_server.paths
    assert resetting_server.paths.count("/reset") == 1, f"resent behind our back: {resetting_server.paths}"


def test_after_a_timeout_the_host_waits_its_interval_from_the_give_up(project, demo_site):
    write_spider(project, "targets", SPIDER)
    slow = demo_site.url("open", "/page/1?latency=5.5")
    urls = [slow, demo_site.url("open", "/page/2")]
    # the request asks for a 1 s timeout: the checkpoint raises it to the floor; a timeout pauses the
    # host for the recheck interval, set short here, and is not retried
    recheck = 3.0
    result = run_scrapy(
        ["crawl", "targets", "-a", "urls=" + ",".join(urls), "-a", "short=1"]
        + ["-s", f"WALSH_RECHECK_INTERVAL={recheck}", "-s", "WALSH_BACKOFF_MAX_RETRIES=0"],
        cwd=project,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert stat(result.stderr, "walsh/checkpoint/timeout_raised") == 1
    pages = {r["path"]: r for r in demo_site.requests if r["path"].startswith("/page/")}
    first, second = pages["/page/1?latency=5.5"], pages["/page/2"]
    gave_up = first["mono"] + DOWNLOAD_TIMEOUT_FLOOR
    assert second["mono"] >= gave_up + recheck - CLOCK_TOLERANCE, (
        f"the next request went out {second['mono'] - first['mono']:.2f} s after the first: before the give-up "
        "plus the recheck interval"
    )
    assert second["mono"] >= first["end"], "the next request went out while the server was still answering"
    assert max(r["in_flight"] for r in demo_site.requests) == 1
    assert time.monotonic() >= second["mono"]


class DroppingServer(ResettingServer):
    """HTTP/1.1 keep-alive; the first request on a connection is answered, any later
    one is read, recorded, then the connection is closed without an answer (a server that
    drops idle keep-alive connections just as a request arrives)."""

    def _answer(self, conn: socket.socket, path: str, served: int) -> bool:
        self.times.append(time.monotonic())
        if served:
            return False  # closed (FIN) after reading the request: nothing answered
        body = b"<html><body>ok</body></html>"
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: keep-alive\r\nContent-Length: "
            + str(len(body)).encode()
            + b"\r\n\r\n"
            + body
        )
        return True


AIOHTTP = "scrapy.core.downloader.handlers._aiohttp.AiohttpDownloadHandler"
HANDLERS = {
    "default (Twisted HTTP/1.1)": "",
    "aiohttp via WALSH_DOWNLOAD_HANDLER": f"\nWALSH_DOWNLOAD_HANDLER = {AIOHTTP!r}\n",
    "aiohttp via DOWNLOAD_HANDLERS": f"\nDOWNLOAD_HANDLERS = {{'http': {AIOHTTP!r}, 'https': {AIOHTTP!r}}}\n",
}


@pytest.mark.parametrize("extra", HANDLERS.values(), ids=HANDLERS.keys())
def test_every_accepted_handler_sends_each_request_once(project, demo_site, extra):
    if "aiohttp" in extra:
        pytest.importorskip("aiohttp")
    server = DroppingServer()
    server.times = []
    try:
        settings = project / "plainproj" / "settings.py"
        settings.write_text(
            settings.read_text()
            + f"\nWALSH_ALLOW_PRIVATE_ADDRESSES = WALSH_ALLOW_PRIVATE_ADDRESSES + ['{RESET_IP}/32']\n"
            + extra
        )
        write_spider(project, "targets", SPIDER)
        base = f"http://{RESET_IP}:{server.port}"
        urls = ",".join(f"{base}/p{n}" for n in range(1, 5))
        result = run_scrapy(["crawl", "targets", "-a", f"urls={urls}"], cwd=project)
        assert result.returncode == 0, result.stderr[-3000:]
        assert "Traceback" not in result.stderr, result.stderr[-3000:]
        assert sorted(server.paths) == sorted(set(server.paths)), f"a request was sent twice: {server.paths}"
        assert {"/p1", "/p2", "/p3", "/p4"} <= set(server.paths), server.paths
        gaps = [b - a for a, b in zip(server.times, server.times[1:])]
        assert min(gaps) >= 1.0 - CLOCK_TOLERANCE, gaps
    finally:
        server.close()


def test_a_handler_whose_resend_cannot_be_turned_off_is_refused_in_one_message(project):
    write_spider(project, "targets", SPIDER)
    for value, words in (
        ("scrapy.core.downloader.handlers.file.FileDownloadHandler", "can't turn off this handler's automatic resend"),
        ("no.such.module.Handler", "can't be imported"),
        ("scrapy.core.downloader.handlers.http11.NoSuchHandler", "has no class NoSuchHandler"),
    ):
        result = run_scrapy(["crawl", "targets", "-s", f"WALSH_DOWNLOAD_HANDLER={value}"], cwd=project)
        assert result.returncode == 1, (value, result.stderr[-3000:])
        assert "Traceback" not in result.stderr, result.stderr[-3000:]
        assert result.stderr.count("WALSH_DOWNLOAD_HANDLER breaks") == 1, result.stderr[-3000:]
        assert words in result.stderr, result.stderr[-3000:]
