"""Forgeries a site owner who distrusts us would try: a replayed or swapped file, a forged file
under ``verify --published`` alone, a publication that shrinks, and an honest crash (recovered,
not mistaken for a forgery). Each runs the real commands in a subprocess."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scrapy_walsh.identity import webbotauth
from scrapy_walsh.journal import reading
from scrapy_walsh.journal.chain import Chain, journal_files
from scrapy_walsh.journal.writer import JournalWriter
from tests.unit.test_journal import DAY, Clock, _killed_mid_write, send


def _cli(cwd: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scrapy", "walsh", *map(str, args)], capture_output=True, text=True, cwd=cwd
    )


def _keyfiles(tmp_path: Path, key) -> tuple[Path, Path]:
    pem, pub = tmp_path / "k.pem", tmp_path / "k.pub"
    pem.write_bytes(webbotauth.private_pem(key))
    pub.write_bytes(webbotauth.public_pem(key))
    return pem, pub


def _days(directory: Path, key, days: int = 3) -> list[Path]:
    """One crawl a day for ``days`` days, of one identity on this machine: one chain of files."""
    for day in range(days):
        writer = JournalWriter(directory, "W", key=key, clock=Clock(t=DAY + day * 86400, step=1.0))
        for i in range(3):
            send(writer, day * 10 + i)
        writer.close()
    files = journal_files(directory)
    assert len(files) == days
    return files


@pytest.fixture
def key():
    return webbotauth.generate_key()


@pytest.fixture
def days(tmp_path, key):
    _keyfiles(tmp_path, key)
    return _days(tmp_path / "j", key)


def _sends(directory: Path, key) -> int:
    return len(reading.read_journal(directory, {webbotauth.keyid(key): key.public_key()}, "a.test")[1].sends)


def _fails_naming(result: subprocess.CompletedProcess, *names: str) -> None:
    out = result.stdout + result.stderr
    assert result.returncode == 1 and "FAILED" in result.stdout, out
    failed = [line for line in result.stdout.splitlines() if "FAILED" in line or "chain" in line]
    assert any(all(name in line for name in names) for line in failed), out


def test_an_older_days_file_copied_in_as_an_extra_file_fails_and_is_counted_once(tmp_path, key, days):
    journal = tmp_path / "j"
    assert _sends(journal, key) == 9
    for older in days[:2]:  # the chain's first file, and one in its middle
        copy = days[-1].parent / f"99999-000000-abcdef{older.suffix}"
        shutil.copy(older, copy)
        result = _cli(tmp_path, "journal", "verify", journal, "--key", tmp_path / "k.pub")
        _fails_naming(result, copy.name, older.name)
        assert _sends(journal, key) == 9  # never an entry twice in show or report
        shown = _cli(tmp_path, "journal", "show", "--host", "a.test", "--journal", journal, "--key", tmp_path / "k.pub")
        assert sum(int(line.split()[1]) for line in shown.stdout.splitlines() if "requests  smallest" in line) == 9
        copy.unlink()


def test_the_newest_file_replaced_by_the_oldest_fails_naming_both(tmp_path, key, days):
    days[-1].write_bytes(days[0].read_bytes())
    result = _cli(tmp_path, "journal", "verify", tmp_path / "j", "--key", tmp_path / "k.pub")
    _fails_naming(result, days[0].name, days[-1].name)
    assert _sends(tmp_path / "j", key) == 6


def test_a_second_chain_on_one_machine_fails_unless_a_new_chain_tip_explains_it(tmp_path, key, days):
    journal = tmp_path / "j"
    # the chain's first file copied into a later day: on its own, a second chain of this machine
    copy = journal / "2026-11-30" / days[0].name
    copy.parent.mkdir()
    shutil.copy(days[0], copy)
    result = _cli(tmp_path, "journal", "verify", journal, "--key", tmp_path / "k.pub")
    _fails_naming(result, str(copy.relative_to(journal)), str(days[0].relative_to(journal)))
    shutil.rmtree(copy.parent)
    # a new chain tip (its state lost) starts a chain that says so: two chains, both ours, verified
    shutil.rmtree(journal / ".chains")
    writer = JournalWriter(journal, "W", key=key, clock=Clock(t=DAY + 5 * 86400, step=1.0))
    send(writer, 99)
    writer.close()
    result = _cli(tmp_path, "journal", "verify", journal, "--key", tmp_path / "k.pub")
    assert result.returncode == 0 and "2 chain(s)" in result.stdout, result.stdout + result.stderr
    assert "a new chain tip" in result.stdout


# ---------------------------------------------------------------------- the publication


def _publish(tmp_path: Path, *extra) -> subprocess.CompletedProcess:
    return _cli(
        tmp_path, "publish", tmp_path / "public", "--key", tmp_path / "k.pem", "--journal", tmp_path / "j", *extra
    )


def _forged_file(journal: Path, key=None) -> Path:
    """A file of 3 fake requests continuing the newest file, unsigned or signed by ``key``."""
    newest = max(journal_files(journal), key=lambda p: json.loads(p.read_bytes().split(b"\n")[0])["t"])
    last = newest.read_bytes().split(b"\n")[-2]
    entry = json.loads(last)
    path = newest.parent / "88888-235959-fedcba.jsonl"
    chain = Chain()
    rows = [
        chain.line(
            {
                "kind": "open",
                "t": entry["t"] + 10,
                "pid": 88888,
                "format": "walsh-journal/v1",
                "identity": "W",
                "machine": json.loads(newest.read_bytes().split(b"\n")[0])["machine"],
                "after": {"file": str(newest.relative_to(journal)), "seq": entry["seq"], "head": _hash(last)},
            }
        )
    ]
    for i in range(3):
        rows.append(chain.line({"kind": "send", "t": entry["t"] + 11 + i, "pid": 88888, "host": "a.test",
                                "method": "GET", "url": f"http://a.test/fake/{i}"}))  # fmt: skip
    rows.append(chain.line({"kind": "head", "t": entry["t"] + 20, "pid": 88888}, key))
    path.write_bytes(b"\n".join(rows) + b"\n")
    return path


def _hash(line: bytes) -> str:
    import hashlib

    return hashlib.sha256(line).hexdigest()


@pytest.mark.parametrize("signer", ["unsigned", "another key"])
def test_verify_published_alone_checks_every_signature(tmp_path, key, days, signer):
    assert _publish(tmp_path).returncode == 0
    ok = _cli(tmp_path, "journal", "verify", tmp_path / "j", "--published", tmp_path / "public")
    assert ok.returncode == 0 and "verified:" in ok.stdout, ok.stdout + ok.stderr
    forged = _forged_file(tmp_path / "j", webbotauth.generate_key() if signer == "another key" else None)
    result = _cli(tmp_path, "journal", "verify", tmp_path / "j", "--published", tmp_path / "public")
    _fails_naming(result, forged.name)


def test_verify_published_alone_finds_a_request_hidden_after_an_older_publication(tmp_path, key, days):
    assert _publish(tmp_path).returncode == 0
    writer = JournalWriter(tmp_path / "j", "W", key=key, clock=Clock(t=DAY + 3 * 86400, step=1.0))
    for i in range(3):
        send(writer, 30 + i)
    writer.close()
    (newest,) = journal_files(tmp_path / "j" / "2026-11-27")
    rows = [json.loads(x) for x in newest.read_bytes().splitlines()]
    kept = [e for e in rows if "sig" not in e and e["kind"] != "close" and e.get("url") != "http://a.test/p/31"]
    chain = Chain()
    newest.write_bytes(
        b"".join(chain.line({k: v for k, v in e.items() if k not in ("seq", "prev")}) + b"\n" for e in kept)
    )
    result = _cli(tmp_path, "journal", "verify", tmp_path / "j", "--published", tmp_path / "public")
    _fails_naming(result, newest.name)


def test_a_publication_only_grows_and_each_head_names_the_one_before(tmp_path, key, days):
    first = _publish(tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    published = json.loads((tmp_path / "public" / "journal-heads.json").read_text())
    heads = published["heads"]
    assert len(heads) == 3
    assert heads[0]["previous"] is None
    for before, head in zip(heads, heads[1:], strict=False):
        assert head["previous"] == _hash(webbotauth.canonical_json(before))
    saved = (tmp_path / "public" / "journal-heads.json").read_bytes()
    days[-1].unlink()
    (tmp_path / "j" / ".chains").rename(tmp_path / "chains-gone")  # the tip would name the deleted file
    again = _publish(tmp_path)
    assert again.returncode == 1 and days[-1].name in again.stderr, again.stdout + again.stderr
    assert (tmp_path / "public" / "journal-heads.json").read_bytes() == saved
    # from another folder, the heads published at a URL (here: a path) are the ones to grow
    elsewhere = _cli(tmp_path, "publish", tmp_path / "fresh", "--key", tmp_path / "k.pem", "--journal",
                     tmp_path / "j", "--previous", tmp_path / "public")  # fmt: skip
    assert elsewhere.returncode == 1 and days[-1].name in elsewhere.stderr, elsewhere.stdout + elsewhere.stderr


def test_a_publication_grows_with_a_later_crawl(tmp_path, key, days):
    assert _publish(tmp_path).returncode == 0
    before = json.loads((tmp_path / "public" / "journal-heads.json").read_text())["heads"]
    writer = JournalWriter(tmp_path / "j", "W", key=key, clock=Clock(t=DAY + 3 * 86400, step=1.0))
    send(writer, 40)
    writer.close()
    assert _publish(tmp_path).returncode == 0
    after = json.loads((tmp_path / "public" / "journal-heads.json").read_text())["heads"]
    assert after[: len(before)] == before and len(after) == len(before) + 1
    assert after[-1]["previous"] == _hash(webbotauth.canonical_json(before[-1]))


# ---------------------------------------------------------------------- a crash


RESTART = """
import sys
from scrapy_walsh.identity import webbotauth
from scrapy_walsh.journal.writer import JournalWriter
w = JournalWriter(sys.argv[1], "W", key=webbotauth.load_private_key(sys.argv[2]))
w.append("send", method="GET", url="http://a.test/after", host="a.test", status=200, bytes=1)
w.close()
"""


def test_a_crash_is_recovered_at_the_next_start_and_verify_names_it(tmp_path, key):
    pem, pub = _keyfiles(tmp_path, key)
    journal = tmp_path / "j"
    for _attempt in range(5):  # a kill right after a signed head leaves no tail: try again
        shutil.rmtree(journal, ignore_errors=True)
        _killed_mid_write(journal, pem)
        (crashed,) = journal_files(journal)
        failed = _cli(tmp_path, "journal", "verify", journal, "--key", pub)
        if "not covered by a head the key signed" in failed.stdout:
            break
    assert failed.returncode == 1, failed.stdout
    subprocess.run([sys.executable, "-c", RESTART, str(journal), str(pem)], check=True)
    result = _cli(tmp_path, "journal", "verify", journal, "--key", pub)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"entries \d+ to \d+ \(\d+ entries\) recovered after a crash at 20", result.stdout), result.stdout
    assert crashed.name in result.stdout
    # the recovery vouches for the tail it saw, not for one stripped of its signatures later
    rows = [json.loads(x) for x in crashed.read_bytes().split(b"\n")[:-1]]
    chain = Chain()
    stripped = [chain.line({k: v for k, v in e.items() if k not in ("seq", "prev", "sig")}) for e in rows]
    crashed.write_bytes(b"\n".join(stripped) + b"\n")
    again = _cli(tmp_path, "journal", "verify", journal, "--key", pub)
    assert again.returncode == 1 and "not covered by a head the key signed" in again.stdout, again.stdout


def test_a_saved_copy_of_the_publication_proves_it_was_not_shrunk_since(tmp_path, key, days):
    assert _publish(tmp_path).returncode == 0
    saved = tmp_path / "saved-heads.json"
    shutil.copy(tmp_path / "public" / "journal-heads.json", saved)
    # the operator drops the newest file, its published head, and points the chain tip back
    heads_file = tmp_path / "public" / "journal-heads.json"
    document = json.loads(heads_file.read_text())
    document["heads"] = document["heads"][:-1]
    heads_file.write_text(json.dumps(document))
    days[-1].unlink()
    (tip,) = [p for p in (tmp_path / "j" / ".chains").iterdir() if p.is_file()]
    name, chain = tip.read_text().split("\n")[:2]
    tip.write_text(f"{days[-2].relative_to(tmp_path / 'j')}\n{chain}\n")
    alone = _cli(tmp_path, "journal", "verify", tmp_path / "j", "--published", tmp_path / "public")
    assert alone.returncode == 0, alone.stdout  # the end of a journal is only proved by a copy kept elsewhere
    result = _cli(tmp_path, "journal", "verify", tmp_path / "j", "--published", tmp_path / "public", "--saved", saved)
    _fails_naming(result, str(days[-1].relative_to(tmp_path / "j")), str(saved))


def test_publish_refuses_a_journal_that_does_not_verify_between_files(tmp_path, key, days):
    assert _publish(tmp_path).returncode == 0
    writer = JournalWriter(tmp_path / "j", "W", key=key, clock=Clock(t=DAY + 3 * 86400, step=1.0))
    send(writer, 50)
    writer.close()
    writer = JournalWriter(tmp_path / "j", "W", key=key, clock=Clock(t=DAY + 4 * 86400, step=1.0))
    send(writer, 60)
    writer.close()
    (unpublished,) = journal_files(tmp_path / "j" / "2026-11-27")  # never published, then deleted
    unpublished.unlink()
    refused = _publish(tmp_path)
    assert refused.returncode == 1 and unpublished.name in refused.stderr, refused.stdout + refused.stderr
