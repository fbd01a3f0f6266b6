"""``check --sign`` and ``check verify FILE``: a record anyone with our key can check."""

from __future__ import annotations

import json

from tests.helpers import REPO, run_scrapy

EXAMPLE = REPO / "example_project"


def test_a_signed_record_verifies_and_a_tampered_one_does_not(tmp_path):
    key = tmp_path / "signing.pem"
    assert run_scrapy(["walsh", "keys", "generate", str(key)], cwd=tmp_path).returncode == 0
    agent = "https://wal.sh/.well-known/http-message-signatures-directory"
    signing = ["-s", f"WALSH_SIGNING_KEY={key}", "-s", f"WALSH_SIGNATURE_AGENT={agent}"]
    signed = run_scrapy(["walsh", "check", "demo", "--sign", *signing], cwd=EXAMPLE)
    assert signed.returncode == 0, signed.stderr[-2000:]
    record = json.loads(signed.stdout)
    assert record["spec_version"] == "walsh-research-compliance/v1" and record["package_version"]
    assert record["settings_digest"].startswith("sha256:")
    assert record["attestation_signature"]["alg"] == "ed25519"
    path = tmp_path / "record.json"
    path.write_text(signed.stdout)

    for verifier in (str(key), f"{key}.pub"):
        ok = run_scrapy(["walsh", "check", "verify", str(path), "--key", verifier], cwd=tmp_path)
        assert ok.returncode == 0, ok.stderr
        assert f"signed by key {record['attestation_signature']['keyid']}" in ok.stdout

    tampered = dict(record, result="pass" if record["result"] != "pass" else "fail")
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(tampered))
    refused = run_scrapy(["walsh", "check", "verify", str(bad), "--key", str(key)], cwd=tmp_path)
    assert refused.returncode == 1
    assert "does not verify: it was altered or signed otherwise" in refused.stderr

    other = tmp_path / "other.pem"
    run_scrapy(["walsh", "keys", "generate", str(other)], cwd=tmp_path)
    stranger = run_scrapy(["walsh", "check", "verify", str(path), "--key", str(other)], cwd=tmp_path)
    assert stranger.returncode == 1 and "unknown key" in stranger.stderr


def test_sign_without_a_key_is_a_usage_error():
    result = run_scrapy(["walsh", "check", "--sign"], cwd=EXAMPLE)
    assert result.returncode == 2 and "set WALSH_SIGNING_KEY" in result.stderr
