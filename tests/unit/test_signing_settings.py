"""WALSH_SIGNING_KEY and WALSH_SIGNATURE_AGENT are read at start; a bad one is refused by name."""

from __future__ import annotations

import pytest

from scrapy_walsh.config import signature_agent, signing_key
from scrapy_walsh.identity import webbotauth


def test_a_readable_ed25519_key_is_accepted(tmp_path):
    path = tmp_path / "k.pem"
    path.write_bytes(webbotauth.private_pem(webbotauth.generate_key()))
    assert signing_key(str(path)) == str(path)
    assert signing_key(None) is None and signing_key("  ") is None


@pytest.mark.parametrize(
    "content", [b"", b"not a key", b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"]
)
def test_a_malformed_or_missing_key_is_refused(tmp_path, content):
    path = tmp_path / "k.pem"
    path.write_bytes(content)
    with pytest.raises(ValueError, match="k.pem"):
        signing_key(str(path))
    with pytest.raises(ValueError, match="nonexistent"):
        signing_key(str(tmp_path / "nonexistent.pem"))
    with pytest.raises(ValueError):
        signing_key(42)


@pytest.mark.parametrize(
    "url",
    [
        "https://wal.sh/.well-known/http-message-signatures-directory",
        "http://127.0.0.15:8787/.well-known/http-message-signatures-directory",
        "http://ops.walsh-demo.test:8787/.well-known/http-message-signatures-directory",
        "http://localhost/dir",
    ],
)
def test_https_or_a_local_test_directory_is_accepted(url):
    assert signature_agent(url) == url


@pytest.mark.parametrize(
    "url",
    ["http://wal.sh/.well-known/http-message-signatures-directory", "ftp://wal.sh/x", "/relative", "https://", 7],
)
def test_a_plain_http_public_or_odd_directory_is_refused(url):
    with pytest.raises(ValueError):
        signature_agent(url)
