"""``scrapy walsh publish`` and ``scrapy walsh journal`` on bad input: one line, a non-zero exit.

Real commands in a project with the add-on. A folder that is a file, one the kernel won't let be
made, an empty name, a key or key directory that is missing or garbage, a journal that is missing
or holds no journal file (an empty folder, a FIFO, ``/dev/zero``): each is said in one line, never
a traceback and never "intact in 0 files"."""

from __future__ import annotations

import os

import pytest

from tests.helpers import run_scrapy


@pytest.fixture(scope="module")
def bad(tmp_path_factory):
    """The project, and bad inputs for it."""
    from tests.helpers import add_addon_line, new_project

    root = tmp_path_factory.mktemp("bad_input")
    project = new_project(root)
    add_addon_line(project)
    (root / "regular").write_text("a file, not a folder\n")
    (root / "garbage.pem").write_text("not a key\n")
    (root / "garbage.json").write_text("{not json\n")
    (root / "empty").mkdir()
    os.mkfifo(root / "fifo")
    return {"project": project, "root": root}


def one_line_failure(result) -> str:
    assert result.returncode != 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr[-3000:]
    return lines[0]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["{root}/regular"], "not a folder"),
        (["/proc/walsh-published"], "/proc/walsh-published"),
        (["", "--key", "{root}/garbage.pem"], "no folder"),
        ([""], "no folder"),
        (["{out}", "--key", "{root}/garbage.pem"], "garbage.pem"),
        (["{out}", "--key", "{root}/missing.pem"], "missing.pem"),
        (["{out}", "--journal", "/nonexistent"], "no journal at /nonexistent"),
        (["{out}", "--journal", "{root}/empty"], "no journal file"),
        (["{out}", "--journal", "/dev/zero"], "/dev/zero"),
    ],
    ids=[
        "a-file",
        "under-proc",
        "empty-name-bad-key",
        "empty-name",
        "garbage-key",
        "missing-key",
        "no-journal",
        "empty-journal",
        "dev-zero-journal",
    ],
)
def test_publish_refuses_bad_input_in_one_line(bad, args, said, tmp_path):
    project, out = bad["project"], tmp_path / "out"
    before = sorted(os.listdir(project))
    result = run_scrapy(["walsh", "publish", *(a.format(root=bad["root"], out=out) for a in args)], cwd=project)
    line = one_line_failure(result)
    assert said in line, line
    assert sorted(os.listdir(project)) == before, "publish wrote into the current folder"
    assert not out.exists(), "a refused publish wrote its folder"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["{root}/empty"], "no journal file"),
        (["{root}/fifo"], "not a journal file or folder"),
        (["/dev/zero"], "not a journal file or folder"),
        (["/nonexistent"], "no journal at /nonexistent"),
        (["{root}/empty", "--key", "{root}/garbage.pem"], "garbage.pem"),
        (["{root}/empty", "--key", "{root}/missing.pem"], "missing.pem"),
        (["{root}/empty", "--directory", "{root}/garbage.json"], "garbage.json"),
        (["{root}/empty", "--directory", "{root}/missing.json"], "missing.json"),
        (["{root}/empty", "--directory", "http://127.0.0.1:9/dir.json"], "127.0.0.1:9"),
    ],
    ids=[
        "empty-folder",
        "fifo",
        "dev-zero",
        "missing",
        "garbage-key",
        "missing-key",
        "garbage-directory",
        "missing-directory",
        "unreachable-directory",
    ],
)
def test_journal_verify_refuses_bad_input_in_one_line(bad, args, said):
    result = run_scrapy(["walsh", "journal", "verify", *(a.format(root=bad["root"]) for a in args)], cwd=bad["project"])
    line = one_line_failure(result)
    assert said in line, line
    assert "intact in 0 file" not in result.stdout, result.stdout


def test_journal_show_of_an_empty_folder_is_an_error_too(bad):
    result = run_scrapy(
        ["walsh", "journal", "show", "--host", "example.org", "--journal", str(bad["root"] / "empty")],
        cwd=bad["project"],
    )
    assert "no journal file" in one_line_failure(result)
