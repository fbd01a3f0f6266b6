"""``scrapy walsh publish DIR`` after a signed crawl of the demo site: the bot's page (rendered by
a real headless Chromium), the key directory and the card (against the schemas written from the
drafts), the signed journal heads; ``journal verify --published`` against the folder and against
it served over loopback HTTP, after the journal is cut or a file deleted; ``check`` warning when
the published page disagrees with the settings."""

from __future__ import annotations

import functools
import html
import json
import os
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import jsonschema
import pytest

from scrapy_walsh.identity import webbotauth
from scrapy_walsh.journal.chain import journal_files
from scrapy_walsh.settings import ROBOTS_TOKEN, USER_AGENT
from tests.e2e.browser import png_pixels_not_blank, render
from tests.e2e.test_journal_e2e import crawled  # noqa: F401 - the signed crawl, once per module
from tests.helpers import run_scrapy

DATA = Path(__file__).resolve().parent.parent / "data"


def walsh(crawled, *args):  # noqa: F811 - the fixture, imported above
    return run_scrapy(["walsh", *map(str, args)], cwd=crawled["project"])


@pytest.fixture(scope="module")
def folder(crawled):  # noqa: F811
    out = crawled["tmp"] / "public"
    operator = ["--operator", "Walsh Research", "--contact", "bots@example.org"]
    result = walsh(crawled, "publish", out, "--ip-range", "192.0.2.0/24", "--ip-range", "2001:db8::/32", *operator)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "deprecated" not in result.stderr and "note:" not in result.stderr, result.stderr
    return out


def schema_errors(name: str, document) -> list[str]:
    schema = json.loads((DATA / name).read_text())
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    return [e.message for e in validator.iter_errors(document)]


def test_publish_writes_the_page_the_directory_the_card_the_heads_and_the_networks(crawled, folder):  # noqa: F811
    key = webbotauth.load_private_key(crawled["key"])
    page = (folder / "index.html").read_text()
    assert f"User-agent: {ROBOTS_TOKEN}\nDisallow: /\n" in page.replace("</pre>", "\n")
    assert html.escape(USER_AGENT) in page and webbotauth.keyid(key) in page
    assert "At most one request every 1 s to each host" in page and "<code>192.0.2.0/24</code>" in page
    assert "operated by Walsh Research" in page and '<a href="mailto:bots@example.org">' in page
    directory = json.loads((folder / ".well-known/http-message-signatures-directory").read_text())
    assert schema_errors("http-message-signatures-directory.schema.json", directory) == []
    assert list(webbotauth.directory_keys(directory)) == [webbotauth.keyid(key)]
    card = json.loads((folder / ".well-known/signature-agent-card.json").read_text())
    assert schema_errors("signature-agent-card.schema.json", card) == []
    assert card["web_bot_auth"]["rfc9309-product-token"] == ROBOTS_TOKEN
    assert json.loads((folder / "ips.json").read_text())["prefixes"] == [
        {"ipv4Prefix": "192.0.2.0/24"},
        {"ipv6Prefix": "2001:db8::/32"},
    ]
    heads = json.loads((folder / "journal-heads.json").read_text())
    files = journal_files(crawled["journal"])
    assert heads["format"] == "walsh-journal-heads/v1" and len(heads["heads"]) == len(files)
    for head in heads["heads"]:
        entry = head["entry"]
        assert entry["kind"] == "head" and head["file"] in {str(f.relative_to(crawled["journal"])) for f in files}
        signed = {k: v for k, v in entry.items() if k != "sig"}
        assert webbotauth.verify_record(signed, entry["sig"], {webbotauth.keyid(key): key.public_key()})


def test_verify_published_passes_on_the_journal_and_fails_once_it_is_cut(crawled, folder, tmp_path):  # noqa: F811
    ok = walsh(crawled, "journal", "verify", crawled["journal"], "--published", folder)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    keyid = webbotauth.keyid(webbotauth.load_private_key(crawled["key"]))
    assert "published heads: the journal holds all" in ok.stdout and f"signed by key {keyid} (from" in ok.stdout
    copy = tmp_path / "journal"
    shutil.copytree(crawled["journal"], copy)
    victim = max(journal_files(copy), key=lambda f: f.stat().st_size)
    lines = victim.read_bytes().split(b"\n")[:-1]
    victim.write_bytes(b"\n".join(lines[:-2]) + b"\n")  # close and its signed head gone: it looks like a crash
    cut = walsh(crawled, "journal", "verify", copy, "--published", folder)
    assert cut.returncode == 1 and "before the published head (cut after publication)" in cut.stdout, cut.stdout
    victim.unlink()
    deleted = walsh(crawled, "journal", "verify", copy, "--published", folder)
    assert deleted.returncode == 1 and "(deleted after publication)" in deleted.stdout, deleted.stdout


OPENS = """
import atexit, json, os, sys

_counts = {}


def _count(event, args):
    # every open of a journal file, by its path: what the command reads, not what it says
    if event == "open" and isinstance(args[0], (str, os.PathLike)) and os.fspath(args[0]).endswith(".jsonl"):
        _counts[os.fspath(args[0])] = _counts.get(os.fspath(args[0]), 0) + 1


sys.addaudithook(_count)
atexit.register(lambda: open(os.environ["OPENS_OUT"], "w").write(json.dumps(_counts)))
"""


def test_verify_published_reads_each_journal_file_once(crawled, folder, tmp_path):  # noqa: F811
    """The published heads are read first, so the one read of the journal serves the chain's
    check and theirs: a journal of a year is not read twice."""
    (tmp_path / "sitecustomize.py").write_text(OPENS)
    out = tmp_path / "opens.json"
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]), "OPENS_OUT": str(out)}
    args = ["walsh", "journal", "verify", str(crawled["journal"]), "--published", str(folder)]
    result = run_scrapy(args, cwd=crawled["project"], env=env)
    assert result.returncode == 0 and "published heads: the journal holds all" in result.stdout, result.stdout
    opens = json.loads(out.read_text())
    files = {str(f) for f in journal_files(crawled["journal"])}
    assert files and set(opens) == files, (opens, files)
    assert max(opens.values()) == 1, opens


def test_verify_published_fails_cleanly_on_a_heads_document_that_is_not_one(crawled, folder, tmp_path):  # noqa: F811
    forged = tmp_path / "forged"
    shutil.copytree(folder, forged)
    heads = json.loads((forged / "journal-heads.json").read_text())
    (forged / "journal-heads.json").write_text(json.dumps({**heads, "heads": 5}))
    result = walsh(crawled, "journal", "verify", crawled["journal"], "--published", forged)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "FAILED: not a published heads document (walsh-journal-heads/v1)" in result.stdout, result.stdout


def test_verify_published_reads_the_folder_over_http(crawled, folder):  # noqa: F811
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        ok = walsh(crawled, "journal", "verify", crawled["journal"], "--published", url)
        assert ok.returncode == 0 and "published heads: the journal holds all" in ok.stdout, ok.stdout + ok.stderr
        other = webbotauth.generate_key()
        (crawled["tmp"] / "other.pem").write_bytes(webbotauth.private_pem(other))
        wrong = walsh(
            crawled, "journal", "verify", crawled["journal"], "--published", url, "--key", crawled["tmp"] / "other.pem"
        )
        assert wrong.returncode == 1 and "signed by an unknown key" in wrong.stdout, wrong.stdout
    finally:
        server.shutdown()
        server.server_close()


def test_check_warns_when_the_published_page_disagrees_with_the_settings(crawled, folder):  # noqa: F811
    same = walsh(crawled, "check", "--published", folder)
    assert "--published: " in same.stdout and "agrees with the settings" in same.stdout, same.stdout
    assert "deprecated" not in same.stderr, same.stderr
    slower = walsh(crawled, "check", "--published", folder, "-s", "WALSH_MIN_INTERVAL=2")
    warned = [line for line in slower.stdout.splitlines() if "--published" in line]
    assert any("warn" in line and "WALSH_MIN_INTERVAL is 2 s" in line for line in warned), slower.stdout
    other = webbotauth.generate_key()
    (crawled["tmp"] / "rotated.pem").write_bytes(webbotauth.private_pem(other))
    rotated = walsh(
        crawled, "check", "--published", folder, "-s", f"WALSH_SIGNING_KEY={crawled['tmp'] / 'rotated.pem'}"
    )
    assert webbotauth.keyid(other) in rotated.stdout and "the page lists keys" in rotated.stdout, rotated.stdout


def test_the_old_settings_still_apply_for_one_release_each_warned(crawled, folder, tmp_path):  # noqa: F811
    """The settings the flags replaced: the same folder, a deprecation warning naming each one's flag."""
    old = [
        *("-s", "WALSH_BLOCKLIST_OPERATOR=Walsh Research", "-s", "WALSH_BLOCKLIST_CONTACT=bots@example.org"),
        *("-s", "WALSH_IP_RANGES=192.0.2.0/24,2001:db8::/32"),
    ]
    result = walsh(crawled, "publish", tmp_path / "old", *old)
    assert result.returncode == 0, result.stdout + result.stderr
    for name, flag in (
        ("WALSH_BLOCKLIST_OPERATOR", "--operator"),
        ("WALSH_BLOCKLIST_CONTACT", "--contact"),
        ("WALSH_IP_RANGES", "--ip-range"),
    ):
        assert f"{name} is deprecated (no crawl reads it): pass {flag} to `scrapy walsh publish`" in result.stderr
    for name in ("index.html", ".well-known/signature-agent-card.json"):
        assert (tmp_path / "old" / name).read_text() == (folder / name).read_text(), name
    prefixes = [json.loads((f / "ips.json").read_text())["prefixes"] for f in (tmp_path / "old", folder)]
    assert prefixes[0] == prefixes[1]
    checked = walsh(crawled, "check", "-s", f"WALSH_PUBLISHED={folder}")
    assert "agrees with the settings" in checked.stdout, checked.stdout
    assert "WALSH_PUBLISHED is deprecated (no crawl reads it): pass --published to `scrapy walsh check`" in (
        checked.stderr
    )
    card = walsh(crawled, "keys", "card", "--contact", "bots@example.org", "--policy", "https://example.org/bot")
    assert card.returncode == 0 and "deprecated" not in card.stderr, card.stderr
    assert json.loads(card.stdout)["client_uri"] == "https://example.org/bot"
    assert json.loads(card.stdout)["contacts"] == ["mailto:bots@example.org"]


def test_publish_refuses_a_setting_a_crawl_refuses_in_one_line(crawled, tmp_path):  # noqa: F811
    result = walsh(crawled, "publish", tmp_path / "out", "-s", "WALSH_MIN_INTERVAL=0.5")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "WALSH_MIN_INTERVAL" in line and not (tmp_path / "out").exists()


def test_the_bot_page_renders_in_a_real_browser(crawled, folder, tmp_path):  # noqa: F811
    dom, png = render(folder / "index.html", tmp_path, "1000,1400")
    assert f"User-agent: {ROBOTS_TOKEN}" in dom and "Disallow: /" in dom
    assert "How to block it" in dom and "journal-heads.json" in dom
    assert png_pixels_not_blank(png)
    (crawled["tmp"] / "bot-page.png").write_bytes(png)
