"""Every ``scrapy walsh`` command, subcommand and flag the README or the docs name exists.

A reader copies a command from a page; if the page names a flag the command does not have, the
first thing they meet is an argparse error. Each command line on a page (in a code block or in
inline code) is checked against the real command's ``--help``, run as a reader would run it.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

from tests.helpers import REPO, run_scrapy

DOCS = REPO / "docs"
#: A page's command line: ``scrapy walsh`` then its words, up to the end of the code span or line.
COMMAND = re.compile(r"scrapy walsh ((?:[^`\n#]|#(?! ))*)")


def pages():
    return [REPO / "README.md", *(p for p in sorted(DOCS.rglob("*.md")) if "_build" not in p.parts)]


@cache
def named_commands() -> dict[tuple[str, ...], set[str]]:
    """(command, subcommand...) -> the flags the pages give it, from every page."""
    found: dict[tuple[str, ...], set[str]] = {}
    for page in pages():
        for line in page.read_text().splitlines():
            for match in COMMAND.finditer(line):
                words = match.group(1).split()
                if not words or not re.fullmatch(r"[a-z][a-z-]*(\|[a-z][a-z-]*)*", words[0]):
                    continue  # a placeholder (SUB, SUBCOMMAND) or a sentence's end
                for name in words[0].split("|"):
                    found.setdefault((name,), set())
                    rest = words[1:]
                    sub = subcommands(name)
                    if rest and rest[0].split("|")[0] in sub:
                        for each in rest[0].split("|"):
                            found.setdefault((name, each), set())
                        key = (name, rest[0].split("|")[0])
                        rest = rest[1:]
                    else:
                        key = (name,)
                    for word in rest:
                        flag = re.match(r"\[?(--[a-z][a-z-]*)", word)
                        if flag:
                            found[key].add(flag.group(1))
    return found


@cache
def walsh_help() -> str:
    result = run_scrapy(["walsh", "--help"], cwd=REPO / "example_project")
    assert result.returncode == 0, result.stderr
    return result.stdout


@cache
def help_of(command: tuple[str, ...]) -> str:
    result = run_scrapy(["walsh", *command, "--help"], cwd=REPO / "example_project")
    assert result.returncode == 0, f"scrapy walsh {' '.join(command)} --help: {result.stderr[-2000:]}"
    return result.stdout


@cache
def subcommands(command: str) -> frozenset[str]:
    """The subcommands a command lists in its help (``{generate,directory,card,verify}``)."""
    if f"scrapy walsh {command}" not in walsh_help():
        return frozenset()
    braces = re.findall(r"\{([a-z,-]+)\}", help_of((command,)))
    special = {"verify"} if command == "check" else set()  # `check verify FILE`: a positional, not a subparser
    return frozenset(name for group in braces for name in group.split(",")) | special


def test_the_pages_name_commands_and_flags():
    """A check over nothing cannot fail: the pages name most commands, with flags."""
    found = named_commands()
    assert {("check",), ("explain",), ("state", "forget"), ("journal", "verify")} <= set(found)
    assert sum(len(flags) for flags in found.values()) > 15


@pytest.mark.parametrize("command", sorted(named_commands()), ids=" ".join)
def test_every_named_command_and_flag_exists(command):
    assert f"scrapy walsh {command[0]} " in walsh_help() or f"scrapy walsh {command[0]}\n" in walsh_help(), (
        f"`scrapy walsh {command[0]}` is named in the docs but not in `scrapy walsh --help`"
    )
    if command == ("check", "verify"):  # a positional of `check`, so `check --help` lists its flags
        assert "check verify" in help_of(("check",)) and "verify FILE" in walsh_help()
        shown = help_of(("check",))
    else:
        shown = help_of(command)
    missing = sorted(flag for flag in named_commands()[command] if not re.search(rf"{flag}\b", shown))
    assert not missing, f"`scrapy walsh {' '.join(command)} --help` does not list {missing}"
