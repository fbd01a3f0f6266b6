"""``scrapy walsh --help`` lists one subcommand per line; ``scrapy walsh SUB --help`` is SUB's help.

Both run as real ``scrapy`` commands: Scrapy parses ``--help`` itself, before the
subcommand runs, which is where the old help went wrong (one reflowed paragraph, and the
top-level text for every subcommand).
"""

from __future__ import annotations

import pytest

from scrapy_walsh.commands.walsh import EXAMPLES, SUBCOMMANDS, help_parser
from tests.helpers import run_scrapy


def test_top_level_help_lists_one_subcommand_per_line(tmp_path):
    result = run_scrapy(["walsh", "--help"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    for name in SUBCOMMANDS:
        assert any(line.startswith(f"  scrapy walsh {name}") for line in lines), (name, result.stdout)


@pytest.mark.parametrize("flag", ["--help", "-h"])
@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_subcommand_help_is_its_own(tmp_path, name, flag):
    result = run_scrapy(["walsh", name, flag], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Usage\n=====\n  scrapy walsh {name}"), result.stdout
    assert "Subcommands:" not in result.stdout


#: every command at every depth: ``check``, ``blocklist add``, ``state forget`` ...
COMMANDS = sorted(EXAMPLES)


def test_every_command_has_an_example():
    for name in SUBCOMMANDS:
        parser = help_parser([name])
        nested = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
        paths = [name] + [f"{name} {child}" for a in nested for child in a.choices]
        assert set(paths) <= set(EXAMPLES), paths


@pytest.mark.parametrize("command", COMMANDS)
def test_help_at_any_depth_is_that_commands_own_with_an_example(tmp_path, command):
    result = run_scrapy(["walsh", *command.split(), "--help"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Usage\n=====\n  scrapy walsh {command} "), result.stdout
    assert "Examples:" in result.stdout and EXAMPLES[command][0] in result.stdout
    parser = help_parser(command.split())
    for action in parser._actions:
        for option in action.option_strings:
            if option.startswith("--"):
                assert option in result.stdout, (command, option)


def test_blocklist_add_help_shows_adds_own_options(tmp_path):
    """A subcommand's ``--help`` shows its own options, not the parent's help."""
    result = run_scrapy(["walsh", "blocklist", "add", "--help"], cwd=tmp_path)
    assert "--reason" in result.stdout and "scrapy walsh blocklist add" in result.stdout
    usage = run_scrapy(["walsh", "blocklist", "add", "--usage"], cwd=tmp_path)
    assert "--reason" in usage.stdout, "--usage still works"
