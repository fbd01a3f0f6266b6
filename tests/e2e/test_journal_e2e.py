"""The request journal end to end: a signed crawl of the demo site, then what a site
owner runs: ``journal verify``, ``show``, ``match`` against the site's access log (the demo's, and
a real nginx's), ``report`` rendered by a real headless Chromium; and the Signature Agent Card."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from demo_site import DemoSite
from demo_site.access_log import combined_log
from demo_site.content import ROBOTS
from scrapy_walsh.identity import webbotauth
from scrapy_walsh.journal.chain import entries, journal_files
from scrapy_walsh.settings import USER_AGENT
from tests import nginx_server
from tests.e2e.browser import png_pixels_not_blank, render
from tests.helpers import add_addon_line, crawl_targets, new_project, run_scrapy

HOST = "open.walsh-demo.test"


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    """One signed crawl of two demo hosts (a robots.txt refusal included), journal in the project."""
    tmp = tmp_path_factory.mktemp("journal")
    key = tmp / "walsh.pem"
    assert run_scrapy(["walsh", "keys", "generate", str(key)], cwd=tmp).returncode == 0
    with DemoSite() as site:
        agent = site.publish_directory(webbotauth.directory([webbotauth.load_private_key(key)]))
        project = new_project(tmp)
        journal = tmp / "journal"
        add_addon_line(
            project,
            site=site,
            extra=f"\nWALSH_SIGNING_KEY = {str(key)!r}\nWALSH_SIGNATURE_AGENT = {agent!r}\n"
            f"WALSH_JOURNAL_DIR = {str(journal)!r}\n",
        )
        urls = [site.url("open", f"/page/{i}") for i in (1, 2, 3)] + [
            site.url("open", "/private/x"),
            site.url("named", "/page/1"),
        ]
        result, items = crawl_targets(project, urls)
        assert result.returncode == 0, result.stderr[-3000:]
        records = site.requests
        robots_body = ROBOTS["open"].format(base=site.url("open", "")[:-1]).encode()
        yield {
            "project": project,
            "journal": journal,
            "records": records,
            "key": key,
            "site": site,
            "robots": robots_body,
            "tmp": tmp,
        }


def sends(journal: Path) -> list[dict]:
    return [e for f in journal_files(journal) for e in entries(f.read_bytes()) if e["kind"] == "send"]


def walsh(crawled, *args, cwd=None):
    return run_scrapy(["walsh", "journal", *map(str, args)], cwd=cwd or crawled["project"])


def test_every_request_the_server_saw_is_in_the_journal_and_nothing_else(crawled):
    ours = Counter((e["method"], urlsplit(e["url"]).path, e["host"]) for e in sends(crawled["journal"]))
    seen = Counter((r["method"], r["path"], r["host"]) for r in crawled["records"])
    assert ours == seen
    outcomes = {
        e["id"]: e for f in journal_files(crawled["journal"]) for e in entries(f.read_bytes()) if e["kind"] == "outcome"
    }
    for entry in sends(crawled["journal"]):
        assert entry["ua"] == USER_AGENT and entry["keyid"] and outcomes[entry["id"]]["status"]
        assert entry["interval"] >= 1 and entry["why"] in ("floor", "crawl-delay")


def test_the_journal_verifies_with_the_public_key_and_the_published_directory(crawled):
    pub = crawled["key"].with_name("walsh.pem.pub")
    result = walsh(crawled, "verify", crawled["journal"], "--key", pub)
    signed = "every entry covered by a head signed by key"
    assert result.returncode == 0 and signed in result.stdout, result.stdout + result.stderr
    directory = crawled["tmp"] / "directory.json"
    directory.write_text(json.dumps(webbotauth.directory([webbotauth.load_private_key(crawled["key"])])))
    assert walsh(crawled, "verify", crawled["journal"], "--directory", directory).returncode == 0


def test_show_is_the_site_owners_view(crawled):
    result = walsh(crawled, "show", "--host", HOST)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    count = sum(r["host"] == HOST for r in crawled["records"])
    assert re.search(rf"\d{{4}}-\d\d-\d\d\s+{count} requests\s+smallest gap 1\.\d+ s", out), out
    digest = "sha256:" + hashlib.sha256(crawled["robots"]).hexdigest()
    assert digest in out  # the robots.txt version the verdicts were decided on
    assert "/private/x: not fetched, robots.txt of" in out and "[robots/disallowed_explicit]" in out


def test_match_finds_every_request_in_the_demo_access_log_and_flags_an_injected_one(crawled, tmp_path):
    log = tmp_path / "access.log"
    log.write_text(combined_log(crawled["records"], HOST))
    result = walsh(crawled, "match", "--host", HOST, log)
    count = sum(r["host"] == HOST for r in crawled["records"])
    assert result.returncode == 0 and f"{count} requests with our User-Agent" in result.stdout, result.stdout
    stamp = time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime())
    with log.open("a") as f:
        f.write(f'127.0.0.9 - - [{stamp}] "GET /wp-login.php HTTP/1.1" 200 12 "-" "{USER_AGENT}"\n')
    result = walsh(crawled, "match", "--host", HOST, log)
    assert result.returncode == 1
    assert "1 with our User-Agent are NOT in the journal" in result.stdout and "/wp-login.php" in result.stdout


def test_the_report_renders_in_a_real_browser_with_its_timeline(crawled, tmp_path):
    page = tmp_path / "report.html"
    result = walsh(crawled, "report", "--host", HOST, "--html", page)
    assert result.returncode == 0 and "verified" in result.stdout, result.stdout + result.stderr
    dom, png = render(page, tmp_path, "1000,900")
    assert f"Requests to {HOST}" in dom and "<svg" in dom and "<circle" in dom
    assert "verified:" in dom and "/private/x" in dom
    assert png_pixels_not_blank(png)
    (crawled["tmp"] / "report.png").write_bytes(png)


def test_the_card_from_the_settings_passes_keys_verify_and_a_looser_crawl_is_a_finding(crawled, tmp_path):
    card = run_scrapy(["walsh", "keys", "card"], cwd=crawled["project"])
    assert card.returncode == 0, card.stderr
    path = tmp_path / "card.json"
    document = json.loads(card.stdout)
    # a card promising more than the crawl keeps
    document["web_bot_auth"]["rate-expectation"] = "max=0.333333rps;per=host;interval=3s"
    path.write_text(json.dumps(document))
    result = run_scrapy(["walsh", "keys", "verify", "--card", str(path)], cwd=crawled["project"])
    assert result.returncode == 1 and "looser than the card's rate expectation" in result.stderr
    ok = run_scrapy(
        ["walsh", "keys", "verify", "--card", str(path), "-s", "WALSH_MIN_INTERVAL=3"], cwd=crawled["project"]
    )
    assert ok.returncode == 0, ok.stderr


# ---------------------------------------------------------------------- a real nginx

NGINX_HTTP = """
    access_log {root}/access.log combined;
    server {{
        listen 127.0.0.1:{port};
        root {root}/www;
    }}
"""


@pytest.fixture
def nginx(tmp_path):
    root = tmp_path / "nginx"
    (root / "www").mkdir(parents=True)
    (root / "www" / "robots.txt").write_text("User-agent: *\nDisallow: /private/\n")
    for i in (1, 2, 3):
        (root / "www" / f"p{i}.html").write_text(f"<html><title>p{i}</title><body>page {i}</body></html>")
    port = nginx_server.free_port()
    with nginx_server.running(root, NGINX_HTTP.format(root=root, port=port), port):
        yield port, root / "access.log"


def test_match_against_a_real_nginx_access_log(nginx, tmp_path):
    port, access_log = nginx
    with DemoSite(hosts=["ops"]) as site:  # the operator blocklist only
        project = new_project(tmp_path)
        journal = tmp_path / "journal"
        add_addon_line(
            project,
            site=site,
            extra="\nWALSH_ALLOW_PRIVATE_ADDRESSES = WALSH_ALLOW_PRIVATE_ADDRESSES + ['127.0.0.1/32']\n"
            f"WALSH_JOURNAL_DIR = {str(journal)!r}\n",
        )
        urls = [f"http://127.0.0.1:{port}/p{i}.html" for i in (1, 2, 3)] + [f"http://127.0.0.1:{port}/private/x"]
        result, items = crawl_targets(project, urls)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = access_log.read_text().splitlines()
    assert len(lines) == 4 and all(USER_AGENT in line for line in lines)  # robots.txt and three pages
    match = run_scrapy(["walsh", "journal", "match", "--host", "127.0.0.1", str(access_log)], cwd=project)
    assert match.returncode == 0 and "4 requests with our User-Agent in the log are in the journal" in match.stdout, (
        match.stdout + match.stderr
    )
    with access_log.open("a") as f:  # an impostor with our User-Agent
        f.write(lines[-1].replace("/p", "/impostor/p") + "\n")
    match = run_scrapy(["walsh", "journal", "match", "--host", "127.0.0.1", str(access_log)], cwd=project)
    assert match.returncode == 1 and "1 with our User-Agent are NOT in the journal" in match.stdout
    assert "/impostor/p" in match.stdout


def last_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes().splitlines()[-1]).hexdigest()


def test_check_sign_quotes_the_journals_signed_head(crawled):
    signed = run_scrapy(["walsh", "check", "gates", "--sign"], cwd=crawled["project"])
    assert signed.returncode in (0, 1), signed.stderr[-2000:]
    record = json.loads(signed.stdout)
    (head,) = record["journal"]["heads"]
    path = crawled["journal"] / head["file"]
    assert head["head"] == last_hash(path) and head["signed"] and head["intact"]
    out = crawled["tmp"] / "record.json"
    out.write_text(signed.stdout)
    verified = run_scrapy(["walsh", "check", "verify", str(out)], cwd=crawled["project"])
    assert verified.returncode == 0, verified.stderr


def test_check_live_journals_its_probe_crawls_and_quotes_their_heads(crawled):
    before = set(journal_files(crawled["journal"]))
    live = run_scrapy(["walsh", "check", "gates", "--live", "--sign"], cwd=crawled["project"], timeout=400)
    assert live.stdout.startswith("{"), live.stderr[-3000:]
    record = json.loads(live.stdout)
    heads = record["journal"]["heads"]
    added = set(journal_files(crawled["journal"])) - before
    assert heads and {crawled["journal"] / h["file"] for h in heads} == added
    for head in heads:
        path = crawled["journal"] / head["file"]
        assert head["head"] == last_hash(path) and head["signed"] and head["intact"]
    sent = sum(e["kind"] == "send" for p in added for e in entries(p.read_bytes()))
    hostile = record["figures"].get("hostile") or {}
    assert sent == record["figures"]["requests"] + hostile.get("requests", 0), (sent, record["figures"])
