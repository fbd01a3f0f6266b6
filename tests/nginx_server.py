"""A real Debian nginx on loopback for e2e tests: the ``http`` block is the test's, the rest is here.

Tests skip cleanly when nginx is not installed (``make debian-packages`` installs it).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CONF = """
worker_processes 1;
daemon off;
{user}
pid {root}/nginx.pid;
error_log {root}/error.log;
events {{ worker_connections 64; }}
http {{
    client_body_temp_path {root}/tmp; proxy_temp_path {root}/tmp; fastcgi_temp_path {root}/tmp;
    uwsgi_temp_path {root}/tmp; scgi_temp_path {root}/tmp;
{http}
}}
"""


def binary() -> str:
    """The nginx binary; skips the test when there is none."""
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if found is None:
        pytest.skip("nginx is not installed (make debian-packages)")
    return found


def free_port(addresses: tuple[str, ...] = ("127.0.0.1",)) -> int:
    """A port free on every one of ``addresses`` (loopback), for one nginx to listen on all of them."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind((addresses[0], 0))
            port = s.getsockname()[1]
        try:
            for address in addresses[1:]:
                with socket.socket() as s:
                    s.bind((address, port))
        except OSError:
            continue
        return port
    raise RuntimeError(f"no port free on all of {addresses}")


@contextmanager
def running(root: Path, http: str, port: int, addresses: tuple[str, ...] = ("127.0.0.1",)) -> Iterator[None]:
    """nginx with ``http`` as its http block, run from ``root`` (pid, error log, temp files there)
    until the block ends; it has started once ``port`` accepts on every address."""
    executable = binary()
    (root / "tmp").mkdir(parents=True, exist_ok=True)
    conf = root / "nginx.conf"
    user = "user root;" if os.geteuid() == 0 else ""
    conf.write_text(CONF.format(root=root, http=http, user=user))
    proc = subprocess.Popen([executable, "-c", str(conf), "-p", str(root)], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 10
        for address in addresses:
            while True:
                try:
                    socket.create_connection((address, port), timeout=0.2).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        proc.kill()
                        pytest.fail(f"nginx did not start: {proc.stderr.read().decode() if proc.stderr else ''}")
                    time.sleep(0.05)
        yield
    finally:
        proc.terminate()
        proc.wait(timeout=10)
