"""http and https only: any other scheme could read local files or reach unpoliced servers.

A ``file://`` or ``ftp://`` start URL reads and sends nothing (refused, counted as a denial),
and a robots.txt redirected to a ``file://`` URL is unreachable, unread.
"""

from __future__ import annotations

import socket
import threading

import pytest

from tests.helpers import crawl_targets, stat

FTP_IP = "127.0.0.41"
SECRET = "walsh-secret-marker-0451"


@pytest.fixture
def ftp_listener():
    """A TCP listener where an FTP server would be: it records every connection."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((FTP_IP, 0))
    sock.listen(4)
    accepted: list[str] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            accepted.append("connection")
            conn.sendall(b"220 ready\r\n")
            conn.close()

    threading.Thread(target=accept, daemon=True).start()
    yield sock.getsockname()[1], accepted
    sock.close()


def test_file_and_ftp_start_urls_read_and_send_nothing(project, demo_site, ftp_listener, tmp_path):
    port, accepted = ftp_listener
    secret = tmp_path / "passwd"
    secret.write_text(f"root:x:0:0:{SECRET}\n")
    settings = project / "plainproj" / "settings.py"
    settings.write_text(
        settings.read_text() + f"\nWALSH_ALLOW_PRIVATE_ADDRESSES = WALSH_ALLOW_PRIVATE_ADDRESSES + ['{FTP_IP}/32']\n"
    )
    urls = [secret.as_uri(), f"ftp://{FTP_IP}:{port}/pub/file.txt", demo_site.url("open", "/page/1")]
    result, items = crawl_targets(project, urls)
    assert result.returncode == 0, result.stderr[-3000:]
    assert SECRET not in (project / "items.jsonl").read_text(), "a local file was read into an item"
    assert accepted == [], "ftp:// connected"
    assert items[secret.as_uri()]["verdict"] == "scheme_not_allowed"
    assert items[f"ftp://{FTP_IP}:{port}/pub/file.txt"]["verdict"] == "scheme_not_allowed"
    assert stat(result.stderr, "walsh/denied/checkpoint/scheme_not_allowed") == 2
    assert items[demo_site.url("open", "/page/1")]["status"] == 200


def test_a_robots_txt_redirected_to_a_file_is_unreachable_unread(project, demo_site, tmp_path):
    local = tmp_path / "robots.txt"
    local.write_text("User-agent: *\nAllow: /\n")
    demo_site.override("gone", "/robots.txt", 302, headers=[("Location", local.as_uri())])
    url = demo_site.url("gone", "/page/1")
    result, items = crawl_targets(project, [url])
    assert result.returncode == 0, result.stderr[-3000:]
    assert items[url]["denied"] == "robots" and items[url]["verdict"] == "unknown_unreachable", items[url]
    assert stat(result.stderr, "walsh/robots/redirect_scheme_refused") == 1
    assert [r["path"] for r in demo_site.requests if r["host_key"] == "gone"] == ["/robots.txt"]
