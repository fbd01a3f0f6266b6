"""The ``scrapy walsh`` command: dispatches to the subcommands in this package.

Scrapy parses its own global options (``-s``, ``--logfile``, ``-L`` ...) with one
argparse parser per command and hands every argument it does not know back as
``args``. The subcommand name and its own options arrive there, in order, and are
parsed here by the subcommand's parser, so ``scrapy walsh -s X=1 check --json`` and
``scrapy walsh check SPIDER --json -s X=1`` both work.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType
from typing import Any

from scrapy.commands import ScrapyCommand, ScrapyHelpFormatter
from scrapy.exceptions import UsageError

#: subcommand name -> module (imported on use, so one broken subcommand can't hide the others)
SUBCOMMANDS: dict[str, str] = {
    "check": "scrapy_walsh.commands.check",
    "explain": "scrapy_walsh.commands.explain",
    "blocklist": "scrapy_walsh.commands.blocklist",
    "genspider": "scrapy_walsh.commands.genspider",
    "state": "scrapy_walsh.commands.state",
    "keys": "scrapy_walsh.commands.keys",
    "journal": "scrapy_walsh.commands.journal",
}


def load(name: str) -> ModuleType:
    try:
        path = SUBCOMMANDS[name]
    except KeyError:
        raise UsageError(f"unknown subcommand {name!r}; choose one of: {', '.join(SUBCOMMANDS)}") from None
    return importlib.import_module(path)


def subcommand_parser(name: str) -> tuple[ModuleType, argparse.ArgumentParser]:
    """The subcommand's module and its own parser (``--help`` and ``--usage`` show it)."""
    module = load(name)
    parser = argparse.ArgumentParser(prog=f"scrapy walsh {name}", description=getattr(module, "HELP", None))
    parser.add_argument("--usage", action="help", help="show this subcommand's options and exit")
    module.add_arguments(parser)
    return module, parser


class _LineFormatter(ScrapyHelpFormatter):
    """Scrapy's help layout, but the description keeps its lines (one subcommand per line)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in text.splitlines())


class _Help(argparse.Action):
    """``-h``/``--help``: the subcommand's help when one is named, else the list of subcommands.

    Scrapy parses ``--help`` before the subcommand runs, so the subcommand is looked up in the
    command line itself (Scrapy has already taken ``walsh`` out of it): the first argument
    that names one.
    """

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: Any = None) -> None:
        name = next((arg for arg in sys.argv[1:] if arg in SUBCOMMANDS), None)
        if name is None:
            parser.print_help()
        else:
            subcommand_parser(name)[1].print_help()
        parser.exit()


class Command(ScrapyCommand):
    requires_project = False
    #: Subcommands build what they need (a crawl for ``check --live`` runs in a subprocess).
    requires_crawler_process = False
    default_settings = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return "SUBCOMMAND [options]"

    def short_desc(self) -> str:
        return "scrapy-walsh tools: " + ", ".join(SUBCOMMANDS)

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.formatter_class = _LineFormatter
        parser.add_argument("-h", "--help", action=_Help, nargs=0, help="show this help (or a subcommand's) and exit")

    def long_desc(self) -> str:
        lines = ["scrapy-walsh tools (walsh-research-compliance/v1). Subcommands:", ""]
        for name in SUBCOMMANDS:
            try:
                module = load(name)
                lines.append(f"  scrapy walsh {name} {getattr(module, 'SYNTAX', '')}".rstrip())
                lines.append(f"      {getattr(module, 'HELP', '')}")
            except Exception as exc:  # noqa: BLE001 - listed as unavailable, with the reason
                lines.append(f"  scrapy walsh {name}: unavailable ({exc})")
        lines += ["", "Run 'scrapy walsh SUBCOMMAND --help' for a subcommand's options."]
        return "\n".join(lines)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if not args:
            raise UsageError("name a subcommand: " + ", ".join(SUBCOMMANDS))
        name, rest = args[0], args[1:]
        module, parser = subcommand_parser(name)
        sub_args = parser.parse_args(rest)
        assert self.settings is not None
        self.exitcode = int(module.run(sub_args, self.settings) or 0)
