"""``scrapy walsh keys generate|directory|verify`` as real ``python -m scrapy`` subprocesses.

``verify`` fetches from this test's own loopback HTTP server, which records the User-Agent
each fetch carried and serves the directory right, with the wrong media type, without our
key, behind a redirect, or not at all.
"""

from __future__ import annotations

import argparse
import json
import stat
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from scrapy.settings import Settings

from scrapy_walsh.commands import keys as command
from scrapy_walsh.identity import webbotauth
from scrapy_walsh.settings import USER_AGENT
from tests.helpers import run_scrapy

WELL_KNOWN = webbotauth.WELL_KNOWN_PATH


def keys(*args, cwd, env=None):
    return run_scrapy(["walsh", "keys", *args], cwd=cwd, env=env)


def in_process(*argv) -> int:
    """The subcommand's own parser and run(), as ``scrapy walsh`` calls them (no subprocess)."""
    parser = argparse.ArgumentParser(prog="scrapy walsh keys")
    command.add_arguments(parser)
    return command.run(parser.parse_args(argv), Settings())


class DirectoryServer:
    """A loopback server: path -> (status, content type, body, extra headers); it logs each request."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, str, bytes, dict[str, str]]] = {}
        self.seen: list[tuple[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.seen.append((self.path, self.headers.get("User-Agent", "")))
                status, content_type, body, extra = outer.routes.get(self.path, (404, "text/plain", b"no", {}))
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"


@pytest.fixture(scope="module")
def server() -> Iterator[DirectoryServer]:
    site = DirectoryServer()
    site.thread.start()
    yield site
    site.httpd.shutdown()
    site.httpd.server_close()


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """A key pair made by ``keys generate``, and the directory ``keys directory`` prints for it."""
    root = tmp_path_factory.mktemp("keys")
    made = keys("generate", str(root / "walsh.pem"), cwd=root)
    assert made.returncode == 0, made.stderr
    printed = keys("directory", "--key", str(root / "walsh.pem"), cwd=root)
    assert printed.returncode == 0, printed.stderr
    return root, made.stdout, json.loads(printed.stdout)


def test_generate_writes_a_0600_key_and_its_public_key(pair):
    root, stdout, _ = pair
    private, public = root / "walsh.pem", root / "walsh.pem.pub"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    key = webbotauth.load_private_key(private)
    assert public.read_bytes() == webbotauth.public_pem(key)
    assert b"PRIVATE" not in public.read_bytes()
    assert f"keyid:       {webbotauth.keyid(key)}" in stdout


def test_generate_never_overwrites_a_key_without_force(pair):
    root, _, _ = pair
    before = (root / "walsh.pem").read_bytes()
    refused = keys("generate", str(root / "walsh.pem"), cwd=root)
    assert refused.returncode == 1
    assert "already exists" in refused.stderr
    assert (root / "walsh.pem").read_bytes() == before
    replaced = keys("generate", str(root / "other.pem"), cwd=root)
    assert replaced.returncode == 0, replaced.stderr
    again = keys("generate", str(root / "other.pem"), "--force", cwd=root)
    assert again.returncode == 0, again.stderr
    assert stat.S_IMODE((root / "other.pem").stat().st_mode) == 0o600


def test_directory_prints_our_jwks_from_the_option_or_the_setting(pair):
    root, _, document = pair
    key = webbotauth.load_private_key(root / "walsh.pem")
    assert document == webbotauth.directory([key])
    assert document["keys"][0]["kid"] == webbotauth.keyid(key)
    from_setting = keys("directory", "-s", f"WALSH_SIGNING_KEY={root / 'walsh.pem'}", cwd=root)
    assert from_setting.returncode == 0, from_setting.stderr
    assert json.loads(from_setting.stdout) == document


def test_directory_refuses_a_missing_or_malformed_key_naming_it(tmp_path):
    absent = keys("directory", "--key", str(tmp_path / "absent.pem"), cwd=tmp_path)
    assert absent.returncode == 1
    assert "absent.pem" in absent.stderr
    (tmp_path / "bad.pem").write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    bad = keys("directory", "--key", str(tmp_path / "bad.pem"), cwd=tmp_path)
    assert bad.returncode == 1
    assert "bad.pem" in bad.stderr and "not a PEM private key" in bad.stderr
    none = keys("directory", cwd=tmp_path)
    assert none.returncode == 1
    assert "WALSH_SIGNING_KEY" in none.stderr


def test_verify_finds_our_key_fetching_with_our_exact_user_agent(pair, server):
    root, _, document = pair
    server.routes[WELL_KNOWN] = (200, webbotauth.DIRECTORY_MEDIA_TYPE, json.dumps(document).encode(), {})
    before = len(server.seen)
    result = keys("verify", server.url(WELL_KNOWN), "--key", str(root / "walsh.pem"), cwd=root)
    assert result.returncode == 0, result.stderr
    assert "OK, holds our key" in result.stdout
    assert server.seen[before:] == [(WELL_KNOWN, USER_AGENT)]


def test_verify_fetches_with_the_configured_user_agent(pair, server):
    """``WALSH_USER_AGENT`` is the identity every request carries, the command's own fetches
    of the directory and the card included: the server sees the configured one."""
    root, _, document = pair
    ours = "OtherOperator-Research/2.0 (+https://other.example/bot)"
    card = keys("card", "--key", str(root / "walsh.pem"), "-s", f"WALSH_USER_AGENT={ours}", cwd=root)
    assert card.returncode == 0, card.stderr
    server.routes[WELL_KNOWN] = (200, webbotauth.DIRECTORY_MEDIA_TYPE, json.dumps(document).encode(), {})
    server.routes["/card.json"] = (200, "application/json", card.stdout.encode(), {})
    before = len(server.seen)
    result = keys(
        "verify",
        server.url(WELL_KNOWN),
        "--card",
        server.url("/card.json"),
        "--key",
        str(root / "walsh.pem"),
        "-s",
        f"WALSH_USER_AGENT={ours}",
        cwd=root,
    )
    assert result.returncode == 0, result.stderr
    assert server.seen[before:] == [(WELL_KNOWN, ours), ("/card.json", ours)]


@pytest.mark.parametrize(
    "path, route, reason",
    [
        (WELL_KNOWN + "?type", (200, "application/json", None, {}), "must be application/http-message-signatures"),
        ("/other-key.json", (200, "application/json", "other", {}), "is not in the directory"),
        ("/moved", (301, "text/plain", b"", {"Location": WELL_KNOWN}), "HTTP 301"),
        ("/absent", None, "HTTP 404"),
        ("/not-json", (200, "application/json", b"{keys", {}), "Expecting property name"),
        ("/mislabelled", (200, "application/json", "mislabelled", {}), "is not its thumbprint"),
    ],
)
def test_verify_fails_on_a_directory_a_site_would_not_accept(pair, server, path, route, reason, capsys):
    """In process (the subprocess wiring is the test above): a real fetch from the loopback server."""
    root, _, document = pair
    if route is not None:
        status, content_type, body, extra = route
        if body is None:
            body = json.dumps(document).encode()
        elif body == "other":
            body = json.dumps(webbotauth.directory([webbotauth.generate_key()])).encode()
        elif body == "mislabelled":
            body = json.dumps({"keys": [{**document["keys"][0], "kid": "not-the-thumbprint"}]}).encode()
        server.routes[path] = (status, content_type, body, extra)
    assert in_process("verify", server.url(path), "--key", str(root / "walsh.pem")) == 1
    out, err = capsys.readouterr()
    assert reason in err
    assert "OK" not in out
    assert server.seen[-1] == (path, USER_AGENT)


@pytest.mark.parametrize(
    "setting, value",
    [
        ("WALSH_MIN_INTERVAL", "0.5"),
        ("WALSH_MIN_INTERVAL", "0"),
        ("WALSH_MIN_INTERVAL", "nan"),
        ("WALSH_ROBOTS_TOKEN", "Walsh Bot/1.0"),
        ("WALSH_MAX_CRAWL_DELAY", "0.5"),
        ("WALSH_PURPOSES", "[1, 2]"),
    ],
)
def test_card_with_a_setting_a_crawl_refuses_is_one_clean_message(pair, setting, value):
    """The card would promise what no crawl keeps: one line naming the setting and the requirement."""
    root, _, _ = pair
    result = keys("card", "--key", str(root / "walsh.pem"), "-s", f"{setting}={value}", cwd=root)
    assert result.returncode == 1 and result.stdout == ""
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: refused setting: ") and setting in line and " breaks " in line, line
