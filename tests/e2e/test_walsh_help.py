"""``scrapy walsh --help`` lists one subcommand per line; ``scrapy walsh SUB --help`` is SUB's help.

Both run as real ``scrapy`` commands: Scrapy parses ``--help`` itself, before the
subcommand runs, which is where the old help went wrong (one reflowed paragraph, and the
top-level text for every subcommand).
"""

from __future__ import annotations

import pytest

from scrapy_walsh.commands.walsh import SUBCOMMANDS

from ..helpers import run_scrapy


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
    assert result.stdout.startswith(f"usage: scrapy walsh {name}"), result.stdout
    assert "Subcommands:" not in result.stdout
