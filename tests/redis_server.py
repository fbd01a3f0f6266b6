"""A real ``redis-server`` (the Debian package) on a free loopback port, in a temp dir.

It runs with ``--appendonly yes --appendfsync always``: every acknowledged write is on
disk, so a server killed and restarted on the same directory has lost nothing (the
durability fleet mode documents). ``kill()`` / ``start()`` simulate an outage, ``pause()`` /
``resume()`` a server that hangs; :class:`RedisProxy` a link that loses or delays replies.
"""

from __future__ import annotations

import queue
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    def __init__(self, directory: Path, port: int | None = None, password: str | None = None, persist: bool = True):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        #: ``requirepass``: clients must give it (in the URL, ``redis://:password@host``)
        self.password = password
        #: False: no append-only file, nothing saved: a restart comes back empty (Redis without persistence)
        self.persist = persist
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        secret = f":{self.password}@" if self.password else ""
        return f"redis://{secret}127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (make test installs it: apt-get install redis-server)")
        self.process = subprocess.Popen(
            [
                binary,
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--dir",
                str(self.directory),
                "--appendonly",
                "yes" if self.persist else "no",
                "--appendfsync",
                "always",
                "--save",
                "",
                "--protected-mode",
                "yes",
                "--daemonize",
                "no",
                "--logfile",
                str(self.directory / "redis.log"),
                *(["--requirepass", self.password] if self.password else []),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        # a loaded machine (the suite beside other work) can take more than 10 s to start it
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.ping():
                return self
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start: {(self.directory / 'redis.log').read_text()[-2000:]}")

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                # with requirepass, PING is refused (NOAUTH) by a server that runs
                return sock.recv(16).startswith((b"+PONG", b"-NOAUTH"))
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL, as a crash would: only what the AOF holds survives."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None

    def outage(self, seconds: float) -> tuple[float, float]:
        """SIGKILL now, back ``seconds`` later: ``(killed, restarted)``, ``time.monotonic()``."""
        killed = time.monotonic()
        self.kill()
        time.sleep(seconds)
        restarted = time.monotonic()
        self.start()
        return killed, restarted

    def pause(self) -> None:
        """SIGSTOP: the server keeps its connections and answers nothing (a hang, a partition)."""
        if self.process is not None:
            self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGCONT)  # a paused server must be able to stop
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class RedisProxy:
    """A loopback proxy to a Redis server, for a link that misbehaves on the way back:

    * ``cut``: set, it loses the next reply. The command reaches Redis, which runs it, and the
      connection is closed before the answer comes back (a server killed as it answered, a
      connection cut on the way back);
    * ``delay``: every reply reaches the client that many seconds after Redis sent it, in order
      (a far or busy server: what Redis did, it did when the command came). It can be changed
      while clients are connected."""

    def __init__(self, upstream_port: int, delay: float = 0.0):
        self.upstream_port = upstream_port
        self.delay = delay
        self.cut = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._sockets: list[socket.socket] = [self._listener]
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            self._sockets += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, True), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, replies: bool) -> None:
        held: queue.SimpleQueue[tuple[float, bytes]] = queue.SimpleQueue()
        if replies:
            threading.Thread(target=self._hold, args=(held, sink), daemon=True).start()
        try:
            while data := source.recv(65536):
                if not replies:
                    sink.sendall(data)
                elif self.cut.is_set():
                    self.cut.clear()
                    for sock in (source, sink):
                        sock.shutdown(socket.SHUT_RDWR)  # the client sees the connection closed now
                        sock.close()
                    return
                else:
                    held.put((time.monotonic() + self.delay, data))
        except OSError:
            pass

    @staticmethod
    def _hold(held: queue.SimpleQueue[tuple[float, bytes]], sink: socket.socket) -> None:
        """Send each reply once its time has come (the queue keeps their order)."""
        try:
            while True:
                due, data = held.get()
                time.sleep(max(0.0, due - time.monotonic()))
                sink.sendall(data)
        except OSError:
            pass

    def __enter__(self) -> RedisProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        for sock in self._sockets:
            try:
                sock.close()
            except OSError:
                pass
