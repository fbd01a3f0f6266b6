"""The verifiers sites deploy accept our signatures: a signed crawl of a real nginx that logs the
Signature, Signature-Input and Signature-Agent headers (JSON), each logged request then verified
by the npm libraries ``web-bot-auth`` and ``http-message-sig`` (latest, installed from the
registry) in Node, and by our own strict RFC 9421 verifier."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from demo_site import DemoSite
from scrapy_walsh.identity import webbotauth
from tests import nginx_server
from tests.helpers import add_addon_line, crawl_targets, new_project, run_scrapy

VERIFY = r"""
import { readFileSync } from "node:fs";
import { createPublicKey, verify as edVerify } from "node:crypto";
import { verify as wbaVerify } from "web-bot-auth";
import { verifierFromJWK } from "web-bot-auth/crypto";
import { verifySignature } from "http-message-sig";

const jwk = JSON.parse(readFileSync(process.argv[2], "utf8"));
const publicKey = createPublicKey({ key: jwk, format: "jwk" });
const lines = readFileSync(process.argv[3], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const out = [];
for (const line of lines) {
  const url = `http://${line.host}${line.uri}`;
  const headers = { signature: line.signature, "signature-input": line.signature_input,
                    "signature-agent": line.signature_agent };
  const result = { uri: line.uri };
  try {
    await wbaVerify({ method: line.method, url, headers }, await verifierFromJWK(jwk));
    result["web-bot-auth"] = "ok";
  } catch (e) { result["web-bot-auth"] = String(e.message || e); }
  try {
    const fields = Object.entries(headers).map(([name, value]) => ({ name, value }));
    await verifySignature({ kind: "request", method: line.method, targetUri: url, fields }, {
      policy: { algorithms: ["ed25519"], requiredComponents: ["@authority"],
                requiredParameters: ["created", "expires", "keyid"], clockSkew: 60 },
      resolveVerifier: async () => ({ algorithm: "ed25519", verify: (d, s) => edVerify(null, d, publicKey, s) }),
    });
    result["http-message-sig"] = "ok";
  } catch (e) { result["http-message-sig"] = String(e.message || e); }
  out.push(result);
}
console.log(JSON.stringify(out));
"""

NGINX_HTTP = """
    log_format signed escape=json '{{"msec":$msec,"method":"$request_method","uri":"$request_uri",'
        '"host":"$http_host","status":$status,"ua":"$http_user_agent","signature":"$http_signature",'
        '"signature_input":"$http_signature_input","signature_agent":"$http_signature_agent"}}';
    access_log {root}/signed.log signed;
    server {{
        listen 127.0.0.1:{port};
        root {root}/www;
    }}
"""


@pytest.fixture(scope="module")
def npm_libraries(tmp_path_factory) -> Path:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are not installed")
    where = tmp_path_factory.mktemp("npm")
    (where / "package.json").write_text('{"private": true, "type": "module"}')
    installed = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--silent", "web-bot-auth@latest", "http-message-sig@latest"],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if installed.returncode != 0:
        pytest.skip(f"npm install failed (no registry?): {installed.stderr[-500:]}")
    (where / "verify.mjs").write_text(VERIFY)
    return where


def _signed_crawl(tmp_path: Path, form: str | None) -> tuple[list[dict], Path]:
    """A signed crawl of three pages and robots.txt on a real nginx: what nginx logged (also in
    ``tmp_path/nginx/signed.log``), and the key; the project is ``tmp_path/plainproj``."""
    root = tmp_path / "nginx"
    (root / "www").mkdir(parents=True)
    (root / "www" / "robots.txt").write_text("User-agent: *\nAllow: /\n")
    for i in (1, 2, 3):
        (root / "www" / f"p{i}.html").write_text(f"<html><title>p{i}</title><body>page {i}</body></html>")
    key = tmp_path / "walsh.pem"
    assert run_scrapy(["walsh", "keys", "generate", str(key)], cwd=tmp_path).returncode == 0
    port = nginx_server.free_port()
    with nginx_server.running(root, NGINX_HTTP.format(root=root, port=port), port), DemoSite(hosts=["ops"]) as site:
        agent = site.publish_directory(webbotauth.directory([webbotauth.load_private_key(key)]))
        project = new_project(tmp_path)
        extra = (
            "\nWALSH_ALLOW_PRIVATE_ADDRESSES = WALSH_ALLOW_PRIVATE_ADDRESSES + ['127.0.0.1/32']\n"
            f"WALSH_SIGNING_KEY = {str(key)!r}\nWALSH_SIGNATURE_AGENT = {agent!r}\n"
            f"WALSH_JOURNAL_DIR = {str(tmp_path / 'journal')!r}\n"
        )
        if form is not None:
            extra += f"WALSH_SIGNATURE_AGENT_FORM = {form!r}\n"
        add_addon_line(project, site=site, extra=extra)
        result, _ = crawl_targets(project, [f"http://127.0.0.1:{port}/p{i}.html" for i in (1, 2, 3)])
    assert result.returncode == 0, result.stderr[-3000:]
    logged = [json.loads(line) for line in (root / "signed.log").read_text().splitlines()]
    assert len(logged) == 4 and all(line["signature"] for line in logged), logged
    return logged, key


def _npm_verdicts(npm_libraries: Path, tmp_path: Path, logged: list[dict], key: Path) -> list[dict]:
    jwk = tmp_path / "key.jwk"
    jwk.write_text(json.dumps(webbotauth.public_jwk(webbotauth.load_private_key(key))))
    log = tmp_path / "signed.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in logged))
    run = subprocess.run(
        ["node", "verify.mjs", str(jwk), str(log)], cwd=npm_libraries, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def _ours(logged: list[dict], key: Path) -> list[str]:
    public = webbotauth.load_private_key(key)
    keys = {webbotauth.keyid(public): public.public_key()}
    found = []
    for line in logged:
        headers = {k.replace("_", "-"): line[k] for k in ("signature", "signature_input", "signature_agent")}
        found.append(
            webbotauth.verify_request(line["method"], f"http://{line['host']}{line['uri']}", headers, keys).label
        )
    return found


def test_every_request_of_a_crawl_verifies_under_the_deployed_npm_libraries(npm_libraries, tmp_path):
    logged, key = _signed_crawl(tmp_path, None)  # the default form
    verdicts = _npm_verdicts(npm_libraries, tmp_path, logged, key)
    assert [(v["web-bot-auth"], v["http-message-sig"]) for v in verdicts] == [("ok", "ok")] * 4, verdicts
    assert _ours(logged, key) == ["sig1"] * 4
    assert all(line["signature_agent"].startswith('"http') for line in logged)


def test_the_drafts_dictionary_form_is_one_setting_away(npm_libraries, tmp_path):
    logged, key = _signed_crawl(tmp_path, "dictionary")
    assert all(line["signature_agent"].startswith('sig1="http') for line in logged)
    assert all('"signature-agent";key="sig1"' in line["signature_input"] for line in logged)
    verdicts = _npm_verdicts(npm_libraries, tmp_path, logged, key)
    # RFC 9421's member of a Dictionary: http-message-sig (0.3) verifies it, web-bot-auth (0.1, on
    # http-message-sig 0.2) signs the whole field whatever the key parameter, and rejects it
    assert [v["http-message-sig"] for v in verdicts] == ["ok"] * 4, verdicts
    assert [v["web-bot-auth"] for v in verdicts] == ["invalid signature"] * 4, verdicts
    assert _ours(logged, key) == ["sig1"] * 4


def test_match_pairs_by_signature_and_names_an_impostor_inside_our_window(npm_libraries, tmp_path):
    logged, key = _signed_crawl(tmp_path, None)
    log = tmp_path / "nginx" / "signed.log"
    project = tmp_path / "plainproj"
    match = ["walsh", "journal", "match", "--host", "127.0.0.1", str(log)]
    paired = run_scrapy(match, cwd=project)
    assert paired.returncode == 0, paired.stdout + paired.stderr
    assert "4 requests with our User-Agent in the log are in the journal" in paired.stdout, paired.stdout
    # an impostor with our User-Agent, the same page, the same second, logged before ours: unsigned,
    # then with a signature of its own
    real = json.loads(log.read_text().splitlines()[-1])
    lines = log.read_text().splitlines()
    for forged in ("", "sig1=:" + "A" * 86 + "==:"):
        impostor = json.dumps({**real, "signature": forged, "signature_agent": ""})
        log.write_text("\n".join([*lines[:-1], impostor, lines[-1]]) + "\n")
        result = run_scrapy(match, cwd=project)
        assert result.returncode == 1, result.stdout
        assert "4 requests with our User-Agent in the log are in the journal" in result.stdout, result.stdout
        assert "1 with our User-Agent are NOT in the journal" in result.stdout
        assert f"log line 4: {impostor}" in result.stdout, result.stdout
