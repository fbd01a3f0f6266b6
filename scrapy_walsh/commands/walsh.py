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
from types import ModuleType

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

#: subcommand name -> module (imported on use, so one broken subcommand can't hide the others)
SUBCOMMANDS: dict[str, str] = {
    "check": "scrapy_walsh.commands.check",
    "explain": "scrapy_walsh.commands.explain",
    "blocklist": "scrapy_walsh.commands.blocklist",
    "genspider": "scrapy_walsh.commands.genspider",
}


def load(name: str) -> ModuleType:
    try:
        path = SUBCOMMANDS[name]
    except KeyError:
        raise UsageError(f"unknown subcommand {name!r}; choose one of: {', '.join(SUBCOMMANDS)}") from None
    return importlib.import_module(path)


class Command(ScrapyCommand):
    requires_project = False
    #: Subcommands build what they need (a crawl for ``check --live`` runs in a subprocess).
    requires_crawler_process = False
    default_settings = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return "SUBCOMMAND [options]"

    def short_desc(self) -> str:
        return "scrapy-walsh tools: check, explain, blocklist, genspider"

    def long_desc(self) -> str:
        lines = ["scrapy-walsh tools (walsh-research-compliance/v1). Subcommands:", ""]
        for name in SUBCOMMANDS:
            try:
                module = load(name)
                lines.append(f"  scrapy walsh {name} {getattr(module, 'SYNTAX', '')}".rstrip())
                lines.append(f"      {getattr(module, 'HELP', '')}")
            except Exception as exc:  # noqa: BLE001 - listed as unavailable, with the reason
                lines.append(f"  scrapy walsh {name}: unavailable ({exc})")
        lines += ["", "Run 'scrapy walsh SUBCOMMAND --usage' for a subcommand's options."]
        return "\n".join(lines)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if not args:
            raise UsageError("name a subcommand: " + ", ".join(SUBCOMMANDS))
        name, rest = args[0], args[1:]
        module = load(name)
        parser = argparse.ArgumentParser(
            prog=f"scrapy walsh {name}", description=getattr(module, "HELP", None), add_help=False
        )
        parser.add_argument("--usage", action="help", help="show this subcommand's options and exit")
        module.add_arguments(parser)
        sub_args = parser.parse_args(rest)
        assert self.settings is not None
        self.exitcode = int(module.run(sub_args, self.settings) or 0)
