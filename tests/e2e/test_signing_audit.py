"""With signing on, a key or directory the crawl cannot use stops it at start, by name."""

from __future__ import annotations

import pytest

from tests.helpers import add_addon_line, crawl_targets


@pytest.mark.parametrize(
    ("setting", "value", "reason"),
    [
        ("WALSH_SIGNING_KEY", "{tmp}/garbage.pem", "WALSH_SIGNING_KEY breaks R1 User-Agent"),
        ("WALSH_SIGNATURE_AGENT", "http://wal.sh/.well-known/http-message-signatures-directory", "is not https"),
    ],
)
def test_an_unusable_key_or_directory_refuses_the_crawl(plain_project, demo_site, tmp_path, setting, value, reason):
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n")
    from scrapy_walsh.identity import webbotauth

    good = tmp_path / "good.pem"
    good.write_bytes(webbotauth.private_pem(webbotauth.generate_key()))
    values = {
        "WALSH_SIGNING_KEY": str(good),
        "WALSH_SIGNATURE_AGENT": "https://wal.sh/.well-known/http-message-signatures-directory",
        setting: value.format(tmp=tmp_path),
    }
    add_addon_line(plain_project, site=demo_site, extra="".join(f"\n{k} = {v!r}" for k, v in values.items()) + "\n")
    result, items = crawl_targets(plain_project, [demo_site.url("open", "/page/1")])
    assert result.returncode != 0
    assert result.stderr.count(reason) == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert demo_site.requests == []
