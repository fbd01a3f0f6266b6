"""The standalone verifier, ``python -m scrapy_walsh.verify``, in a virtual environment that holds
only ``cryptography`` (no Scrapy, no Twisted), with the package on PYTHONPATH, and as one file
handed out: it agrees with ``scrapy walsh journal verify`` on an intact journal and on each
forgery, with a key and against a publication."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from scrapy_walsh.identity import webbotauth
from scrapy_walsh.journal.chain import Chain, journal_files
from scrapy_walsh.journal.writer import JournalWriter
from tests.unit.test_journal import DAY, Clock, send
from tests.unit.test_journal_forgeries import _forged_file

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(scope="module")
def bare(tmp_path_factory) -> Path:
    """A venv with cryptography from PyPI and nothing else of ours or Scrapy's."""
    where = tmp_path_factory.mktemp("bare") / "venv"
    venv.create(where, with_pip=True, system_site_packages=False)
    python = where / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "-q", "cryptography"], check=True, capture_output=True)
    probe = "import importlib.util as u; print([m for m in ('scrapy', 'twisted', 'http_sf') if u.find_spec(m)])"
    assert subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True).stdout.strip() == "[]"
    return python


def _journal(directory: Path, key) -> None:
    for day in range(3):
        writer = JournalWriter(directory, "W", key=key, clock=Clock(t=DAY + day * 86400, step=1.0))
        for i in range(3):
            send(writer, day * 10 + i)
        writer.close()


def _replay(j: Path) -> None:
    files = journal_files(j)
    shutil.copy(files[0], files[-1].parent / "99999-000000-abcdef.jsonl")


def _swap(j: Path) -> None:
    files = journal_files(j)
    files[-1].write_bytes(files[0].read_bytes())


def _stripped(j: Path) -> None:
    victim = journal_files(j)[1]
    rows = [json.loads(x) for x in victim.read_bytes().splitlines()]
    chain = Chain()
    kept = [e for e in rows if "sig" not in e and e["kind"] != "close"]
    victim.write_bytes(
        b"".join(chain.line({k: v for k, v in e.items() if k not in ("seq", "prev")}) + b"\n" for e in kept)
    )


def _edited(j: Path) -> None:
    victim = journal_files(j)[1]
    victim.write_bytes(victim.read_bytes().replace(b"/p/11", b"/p/77"))


def _deleted(j: Path) -> None:
    journal_files(j)[1].unlink()


FORGERIES = {
    "intact": lambda j: None,
    "an older file replayed": _replay,
    "the newest replaced by the oldest": _swap,
    "a file rebuilt without its signatures": _stripped,
    "an entry edited": _edited,
    "a file deleted": _deleted,
    "a forged file, unsigned": lambda j: _forged_file(j),
    "a forged file, another key": lambda j: _forged_file(j, webbotauth.generate_key()),
}


def _scrapy(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scrapy", "walsh", "journal", "verify", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
    )


def _standalone(python: Path, *args, cwd: Path, single: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if single is None:
        env["PYTHONPATH"] = str(ROOT)
        command = [python, "-m", "scrapy_walsh.verify", *map(str, args)]
    else:
        command = [python, single, *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env)


def _failures(out: str) -> list[str]:
    return sorted(line for line in out.splitlines() if line.startswith("FAILED"))


@pytest.mark.parametrize("forgery", list(FORGERIES))
def test_the_standalone_verifier_agrees_with_journal_verify(bare, tmp_path, forgery):
    key = webbotauth.generate_key()
    pub = tmp_path / "k.pub"
    pub.write_bytes(webbotauth.public_pem(key))
    (tmp_path / "k.pem").write_bytes(webbotauth.private_pem(key))
    journal = tmp_path / "j"
    _journal(journal, key)
    public = tmp_path / "public"
    published = subprocess.run(
        [sys.executable, "-m", "scrapy", "walsh", "publish", public, "--key", tmp_path / "k.pem", "--journal", journal],
        capture_output=True,
        cwd=tmp_path,
    )
    assert published.returncode == 0, published.stderr
    FORGERIES[forgery](journal)
    single = tmp_path / "walsh_verify.py"  # the module handed out as one file
    shutil.copy(ROOT / "scrapy_walsh" / "verify.py", single)
    for args in (["--key", pub], ["--published", public]):
        ours = _scrapy(journal, *args, cwd=tmp_path)
        theirs = _standalone(bare, journal, *args, cwd=tmp_path)
        alone = _standalone(bare, journal, *args, cwd=tmp_path, single=single)
        assert "Traceback" not in theirs.stderr + alone.stderr, theirs.stderr + alone.stderr
        assert ours.returncode == theirs.returncode == alone.returncode == (0 if forgery == "intact" else 1), (
            ours.stdout + "\n---\n" + theirs.stdout + theirs.stderr
        )
        assert _failures(ours.stdout) == _failures(theirs.stdout) == _failures(alone.stdout)
