"""``scrapy walsh docs TOPIC`` from an installed wheel: every pointer in every message resolves.

The wheel is built from the checkout (pure Python, ``WALSH_MYPYC=0``: what is tested here is its
package data) and unpacked into a directory of its own, which is all the import path holds of
scrapy-walsh: the command runs where no docs/ folder exists, from the package's resources alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.helpers import REPO, docs_pointers


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The wheel's files, unpacked as pip would install them (a site directory of its own)."""
    out = tmp_path_factory.mktemp("wheel")
    build = [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(out), str(REPO)]
    built = subprocess.run(build, env={**os.environ, "WALSH_MYPYC": "0"}, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, (built.stdout + built.stderr)[-3000:]
    (wheel,) = out.glob("*.whl")
    site = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def _docs(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "SCRAPY_SETTINGS_MODULE"}}
    env["PYTHONPATH"] = str(site)  # the wheel's files, ahead of anything else of scrapy-walsh
    command = [sys.executable, "-m", "scrapy", "walsh", "docs", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_the_wheel_ships_the_help_and_the_command_reads_it(installed, tmp_path):
    assert sorted(p.name for p in (installed / "scrapy_walsh" / "help").iterdir()) == [
        "journal-proof.md",
        "troubleshooting.md",
        "verifiable-identity.md",
    ]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run(
        [sys.executable, "-c", "import scrapy_walsh; print(scrapy_walsh.__file__)"],
        env={**env, "PYTHONPATH": str(installed)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(installed), "imported from the wheel, not the checkout"
    listing = _docs(installed, tmp_path)
    assert listing.returncode == 0, listing.stderr[-2000:]
    assert "refused-at-start" in listing.stdout and "journal-proof" in listing.stdout
    unknown = _docs(installed, tmp_path, "no-such-topic")
    assert unknown.returncode == 1 and "no topic 'no-such-topic'" in unknown.stderr


@pytest.mark.parametrize("topic", sorted(docs_pointers()))
def test_every_pointer_in_a_message_prints_from_the_wheel(installed, tmp_path, topic):
    shown = _docs(installed, tmp_path, topic)
    assert shown.returncode == 0, shown.stderr[-2000:]
    first = shown.stdout.splitlines()[0]
    assert first.startswith("#") and len(shown.stdout.splitlines()) > 3, shown.stdout[:300]
    assert "{setting}" not in shown.stdout, "MyST roles print as their text"
