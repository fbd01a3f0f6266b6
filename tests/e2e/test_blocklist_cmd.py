"""``scrapy walsh blocklist add|remove|validate``: deterministic, validated, atomic edits.

The pure edits (``scrapy_walsh.policy.blocklist.edit``) are tested directly; the command runs as
a user runs it, ``python -m scrapy walsh blocklist ...`` in a copy of ``example_project/``.
"""

from __future__ import annotations

import argparse
import json
import shutil
from datetime import datetime, timedelta, timezone

import pytest

from demo_site.content import blocklist_bytes, default_blocklist
from scrapy_walsh.commands import blocklist as command
from scrapy_walsh.commands.blocklist import json_path, problems
from scrapy_walsh.policy.blocklist import InvalidBlocklist
from scrapy_walsh.policy.blocklist.edit import add, new_document, remove, serialise
from tests.helpers import REPO, run_scrapy


def in_process(*argv, settings=None):
    """The subcommand's own parser and run(), as ``scrapy walsh`` calls them (no subprocess)."""
    from scrapy.settings import Settings

    parser = argparse.ArgumentParser(prog="scrapy walsh blocklist")
    command.add_arguments(parser)
    return command.run(parser.parse_args(argv), Settings(settings or {}))


NOW = datetime(2026, 11, 23, 3, 30, 15, 123456, tzinfo=timezone.utc)
EPOCH = str(int(NOW.timestamp()))
FIELDS = {"operator": "Walsh-Research", "contact": "optout@wal.sh", "policy": "https://wal.sh/bot/", "refresh": "PT6H"}


def doc(*entries):
    base = new_document(FIELDS, NOW - timedelta(days=30))
    base["blocked"] = [{"domain": d, "added": "2026-01-02", "reason": "r"} for d in entries]
    return base


# ------------------------------------------------------------------ pure edits


@pytest.mark.parametrize(
    "given, written",
    [
        ("Bücher.Example.", "xn--bcher-kva.example"),
        ("EXAMPLE.com.", "example.com"),
        ("[::1]", "::1"),
        ("127.1", "127.0.0.1"),
        (" www.Example.org ", "www.example.org"),
    ],
)
def test_add_writes_the_domain_as_the_gate_reads_it(given, written):
    result = add(doc(), given, "opt-out by email", NOW)
    assert result.changed
    assert result.document["blocked"] == [{"domain": written, "added": "2026-11-23", "reason": "opt-out by email"}]
    assert result.document["updated"] == "2026-11-23T03:30:15Z"  # timezone.utc, whole seconds


def test_added_is_todays_utc_date_whatever_the_local_zone():
    late_in_tokyo = datetime(2026, 11, 24, 8, 0, tzinfo=timezone(timedelta(hours=9)))  # 23:00 UTC the 23rd
    result = add(doc(), "a.example", "r", late_in_tokyo)
    assert result.document["blocked"][0]["added"] == "2026-11-23"
    assert result.document["updated"] == "2026-11-23T23:00:00Z"


def test_a_domain_already_listed_in_any_spelling_changes_nothing():
    listed = doc("bücher.example", "example.com")
    for spelling in ("xn--bcher-kva.example", "BÜCHER.example.", "Example.COM"):
        result = add(listed, spelling, "another reason", NOW)
        assert not result.changed and result.document == listed
        assert "already listed" in result.message


def test_serialisation_is_stable_sorted_and_in_the_contracts_key_order():
    messy = {
        "blocked": [
            {"reason": "z", "note": "kept", "added": "2026-01-01", "domain": "b.example"},
            {"domain": "A.example", "reason": "y", "added": "2026-01-01"},
        ],
        "x-extra": {"kept": True},
        "policy": "https://wal.sh/bot/",
        "contact": "c",
        "operator": "o",
        "updated": "2026-01-01T00:00:00Z",
        "contract": "walsh-research-blocklist/v1",
    }
    data = serialise(messy)
    assert data.endswith(b"}\n") and b"\r" not in data
    text = data.decode()
    assert list(json.loads(text)) == ["contract", "updated", "operator", "contact", "policy", "blocked", "x-extra"]
    assert [list(e) for e in json.loads(text)["blocked"]] == [
        ["domain", "added", "reason"],
        ["domain", "added", "reason", "note"],
    ]
    assert [e["domain"] for e in json.loads(text)["blocked"]] == ["A.example", "b.example"]  # by canonical form
    assert '\n  "blocked": [\n    {\n      "domain"' in text  # two-space indent
    assert serialise(json.loads(text)) == data  # a fixed point


def test_non_ascii_reasons_are_written_as_themselves():
    result = add(doc(), "a.example", "demande par courriel: «retirez-moi»", NOW)
    assert "«retirez-moi»".encode() in serialise(result.document)


def test_remove_and_its_refusals():
    listed = doc("example.com", "www.example.com")
    result = remove(listed, "WWW.example.com.", NOW)
    assert [e["domain"] for e in result.document["blocked"]] == ["example.com"]
    assert result.document["updated"] == "2026-11-23T03:30:15Z"
    with pytest.raises(LookupError, match="shop.example.com is not listed; it stays blocked by example.com"):
        remove(result.document, "shop.example.com", NOW)


@pytest.mark.parametrize("bad", ["http://x.com", "x.com:8080", "a b.example", "", "-x-.example"])
def test_bad_domains_are_refused(bad):
    with pytest.raises(ValueError):
        add(doc(), bad, "r", NOW)


def test_an_invalid_document_is_never_edited():
    broken = doc("example.com") | {"contract": "walsh-research-blocklist/v2"}
    with pytest.raises(InvalidBlocklist, match="contract"):
        add(broken, "a.example", "r", NOW)
    with pytest.raises(ValueError, match="policy"):
        new_document({"operator": "o", "contact": "c"}, NOW)


def test_problems_name_every_error_with_its_json_path():
    bad = {
        "contract": "x",
        "updated": "yesterday",
        "operator": "",
        "policy": "nope",
        "blocked": [
            {"domain": "http://x.com", "added": "2026-13-01"},
            {"domain": "ok.example", "added": "2026-01-01", "reason": 3},
            5,
        ],
    }
    found = problems(json.dumps(bad).encode())
    paths = [line.split(": ", 1)[0] for line in found]
    assert paths == [
        "$",
        "$.blocked[0]",
        "$.blocked[0].added",
        "$.blocked[0].domain",
        "$.blocked[1].reason",
        "$.blocked[2]",
        "$.contract",
        "$.operator",
        "$.policy",
        "$.updated",
    ]
    assert "'contact' is a required property" in found[0]
    assert "'http://x.com' is not a 'hostname'" in found[3]
    assert problems(b"{")[0].startswith("$: not JSON: ")
    assert problems(blocklist_bytes(default_blocklist())) == []
    assert json_path(["blocked", 3, "domain"]) == "$.blocked[3].domain"
    assert json_path(["a b"]) == '$["a b"]'


# ------------------------------------------------------------------ the command


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A copy of example_project/ (its settings as shipped) to run the command in."""
    root = tmp_path_factory.mktemp("blocklist-cmd") / "example_project"
    shutil.copytree(REPO / "example_project", root, ignore=shutil.ignore_patterns("output", ".scrapy"))
    return root


def walsh(project, *args, epoch=EPOCH):
    return run_scrapy(["walsh", "blocklist", *args], cwd=project, env={"SOURCE_DATE_EPOCH": epoch})


OPERATOR = ["--operator", "Walsh-Research", "--contact", "optout@wal.sh", "--policy", "https://wal.sh/bot/"]


def test_add_twice_gives_identical_files_and_the_second_writes_nothing(project):
    path = project / "twice.json"
    first = walsh(project, "add", "Bücher.example", "--reason", "opt-out by email", "--file", str(path), *OPERATOR)
    assert first.returncode == 0, first.stderr
    before, stat = path.read_bytes(), path.stat()
    second = walsh(
        project,
        "add",
        "Bücher.example",
        "--reason",
        "opt-out by email",
        "--file",
        str(path),
        *OPERATOR,
        epoch=str(int(NOW.timestamp()) + 86400),
    )  # a day later: still nothing to change
    assert second.returncode == 0, second.stderr
    assert "xn--bcher-kva.example is already listed" in second.stdout
    assert path.read_bytes() == before
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (stat.st_ino, stat.st_mtime_ns)  # not even rewritten
    assert json.loads(before)["blocked"] == [
        {"domain": "xn--bcher-kva.example", "added": "2026-11-23", "reason": "opt-out by email"}
    ]
    # the same input (file, arguments, clock) always gives the same bytes
    other = project / "again.json"
    walsh(project, "add", "Bücher.example", "--reason", "opt-out by email", "--file", str(other), *OPERATOR)
    assert other.read_bytes() == before


def test_a_new_file_takes_its_operator_fields_from_the_old_settings_warned_and_a_broken_one_is_never_written(
    project, tmp_path
):
    broken = tmp_path / "broken_project"
    shutil.copytree(project, broken)
    settings = broken / "demo_project" / "settings.py"
    settings.write_text(
        settings.read_text() + '\nWALSH_BLOCKLIST_OPERATOR = "Walsh-Research"\n'
        'WALSH_BLOCKLIST_CONTACT = "optout@wal.sh"\nWALSH_BLOCKLIST_POLICY = "not a uri"\n'
    )
    refused = walsh(broken, "add", "a.example", "--reason", "r", "--file", "new.json")
    assert refused.returncode == 1
    assert "policy" in refused.stderr and "'not a uri' is not a 'uri'" in refused.stderr
    assert not (broken / "new.json").exists()
    assert [p.name for p in broken.iterdir() if p.name.startswith(".new.json")] == []  # no temp file left
    made = walsh(
        broken, "add", "a.example", "--reason", "r", "--file", "new.json", "--policy", "https://wal.sh/bot/"
    )  # the option wins over the setting
    assert made.returncode == 0, made.stderr
    # the settings still apply for one release, each one that stood in for its flag said once
    deprecated = [line for line in made.stderr.splitlines() if "is deprecated (no crawl reads it)" in line]
    assert len(deprecated) == 2, made.stderr
    assert (
        "WALSH_BLOCKLIST_OPERATOR" in deprecated[0]
        and "pass --operator to `scrapy walsh blocklist add`" in deprecated[0]
    )
    assert "WALSH_BLOCKLIST_CONTACT" in deprecated[1] and "WALSH_BLOCKLIST_POLICY" not in made.stderr
    assert {k: v for k, v in json.loads((broken / "new.json").read_text()).items() if k != "blocked"} == {
        "contract": "walsh-research-blocklist/v1",
        "updated": "2026-11-23T03:30:15Z",
        "operator": "Walsh-Research",
        "contact": "optout@wal.sh",
        "policy": "https://wal.sh/bot/",
    }


def test_malformed_input_leaves_the_file_as_it_was(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    path = tmp_path / "v2.json"
    data = serialise(doc("example.com") | {"contract": "walsh-research-blocklist/v2"})
    path.write_bytes(data)
    assert in_process("add", "a.example", "--reason", "r", "--file", str(path)) == 1
    err = capsys.readouterr().err
    assert "contract" in err and "left as it was" in err
    path.write_bytes(data.replace(b"/v2", b"/v1"))
    assert in_process("remove", "http://x.com", "--file", str(path)) == 1
    assert "not a hostname" in capsys.readouterr().err
    assert in_process("remove", "other.example", "--file", str(path)) == 1
    assert "other.example is not listed" in capsys.readouterr().err
    assert path.read_bytes() == data.replace(b"/v2", b"/v1")
    assert in_process("add", "a.example", "--reason", "r", "--file", str(tmp_path / "nobody.json")) == 1
    assert "give --operator, --contact, --policy" in capsys.readouterr().err
    assert not (tmp_path / "nobody.json").exists()


def test_validate_prints_every_error_with_its_path(tmp_path, capsys):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_bytes(blocklist_bytes(default_blocklist()))
    bad.write_text(
        json.dumps(
            {
                "contract": "walsh-research-blocklist/v1",
                "updated": "2026-11-01T00:00:00Z",
                "operator": "o",
                "contact": "c",
                "policy": "https://wal.sh/",
                "blocked": [
                    {"domain": "ok.example", "added": "2026-01-01", "reason": "r"},
                    {"domain": "x.com:80", "added": "2026-01-01"},
                ],
            }
        )
    )
    assert in_process("validate", str(good)) == 0
    assert "valid walsh-research-blocklist/v1, 1 domains" in capsys.readouterr().out
    assert in_process("validate", str(bad)) == 1
    out = capsys.readouterr()
    assert out.out.splitlines() == [
        f"{bad}: $.blocked[1]: 'reason' is a required property",
        f"{bad}: $.blocked[1].domain: 'x.com:80' is not valid under any of the given schemas ('x.com:80' is not a "
        "'hostname'; 'x.com:80' is not a 'idn-hostname'; 'x.com:80' is not a 'ipv4'; 'x.com:80' is not a 'ipv6')",
    ]
    assert "INVALID, 2 errors" in out.err


def test_validate_runs_from_the_example_project(project):
    """Once through Scrapy's command line, in the shipped project."""
    path = project / "demo.json"
    path.write_bytes(blocklist_bytes(default_blocklist()).replace(b'"demo opt-out by email"', b"7"))
    result = walsh(project, "validate", str(path))
    assert result.returncode == 1
    assert result.stdout == f"{path}: $.blocked[0].reason: 7 is not of type 'string'\n"
