"""No file of the package, the docs, the tests or the benches points at the issue tracker.

A bare tracker number tells a reader outside the tracker nothing: a comment, a docstring or a page
gives the reason itself, and CHANGELOG.md alone keeps the history by issue. A reference to
another project's tracker is written as ``owner/repo#N`` or as a link, which this allows.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import PACKAGE, REPO

#: An issue of ours named by number: the word "issue" or "issues", then a number, with a space, a
#: hyphen, an underscore, a "#" or nothing between (a test's name too; a letter before it makes it
#: another word, "tissue"); and a working branch named after one (an "i", two digits, a hyphen, a
#: word). The cases are at the end of this file.
TRACKER_REF = re.compile(r"(?<![a-z])issues?[ _-]?#?\d+|\bi\d{2}-[a-z]+\b", re.IGNORECASE)

#: Where the rule holds, from the repository's root.
CHECKED = ("scrapy_walsh", "docs", "tests", "bench", "example_project", "README.md", "setup.py", "pyproject.toml")
#: Not ours to reword, or not source: build output, third-party files kept as their authors wrote
#: them (a real robots.txt may well mention an issue of its site's, and a date), and the history.
SKIPPED_DIRS = {"_build", "__pycache__", ".google-robotstxt", "data"}
SKIPPED_FILES = {"CHANGELOG.md"}
#: Only text: a compiled extension or a picture may hold any bytes.
TEXT_SUFFIXES = {".py", ".md", ".txt", ".rst", ".toml", ".cfg", ".ini", ".json", ".html", ".css", ".svg", ".tmpl"}


def relative(path: Path) -> Path:
    """``path`` from the repository's root; the package's files as ``scrapy_walsh/...`` wherever it
    was imported from (a wheel's, in ``make test-wheels``)."""
    return path.relative_to(PACKAGE.parent) if path.is_relative_to(PACKAGE) else path.relative_to(REPO)


def checked_files() -> list[Path]:
    files: list[Path] = []
    for name in CHECKED:
        top = PACKAGE if name == "scrapy_walsh" else REPO / name
        candidates = [top] if top.is_file() else sorted(top.rglob("*"))
        for path in candidates:
            parts = relative(path).parts
            if (
                path.is_file()
                and path.suffix in TEXT_SUFFIXES
                and path.name not in SKIPPED_FILES
                and not SKIPPED_DIRS.intersection(parts[:-1])
            ):
                files.append(path)
    return files


def test_no_file_names_a_tracker_issue():
    found = []
    for path in checked_files():
        if TRACKER_REF.search(relative(path).as_posix()):
            found.append(f"{relative(path)}: the file's name")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in TRACKER_REF.finditer(line):
                found.append(f"{relative(path)}:{number}: {match.group(0)!r}")
    assert not found, "give the reason instead of the issue number (CHANGELOG.md keeps the history):\n" + "\n".join(
        found
    )


def test_the_walk_covers_every_part():
    """A rule over no files cannot fail: each part contributes files, this one included."""
    files = {relative(path).parts[0] for path in checked_files()}
    assert files == set(CHECKED)
    assert Path(__file__).resolve() in {path.resolve() for path in checked_files()}


# The cases are built from pieces so that this file holds none of the forms it looks for.
NUMBER = "2" + "7"


@pytest.mark.parametrize(
    "text",
    [
        "see issue " + NUMBER,
        "Issue " + NUMBER + ": a host that hangs",
        "(issue " + NUMBER + ")",
        "issue-" + NUMBER,
        "issues " + "20 and " + NUMBER,
        "Issues " + "26–33",
        "issue #" + NUMBER,
        "def test_issue" + NUMBER + "_resends():",
        "branch `i" + "44-fleet` against main",
    ],
)
def test_a_tracker_reference_is_found(text):
    assert TRACKER_REF.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "a 429 or a 503 answer pauses the host",
        "RFC 9309 §2.2.1: groups by product token",
        "RFC 3986 §6.2.2.2 (``%2F`` is not ``/``)",
        "#4   R4       pass  CONCURRENT_REQUESTS: 1: requests are serial",
        "breaks R4 (checklist #4)",
        "PKCS#8 PEM, unencrypted",
        "scrapy/scrapy#2014 reported the same",
        "https://github.com/scrapy/scrapy/issues/2014",
        "the key's issuer 2 days ago",
        "i18n and utf-8 hosts",
        "a tissue " + "12 mm thick",
    ],
)
def test_legitimate_text_is_not_flagged(text):
    assert not TRACKER_REF.search(text)
