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
from collections.abc import Mapping
from types import MappingProxyType, ModuleType
from typing import Any

from scrapy.commands import ScrapyCommand, ScrapyHelpFormatter
from scrapy.exceptions import UsageError

#: subcommand name -> module (imported on use, so one broken subcommand can't hide the others)
SUBCOMMANDS: Mapping[str, str] = MappingProxyType(
    {
        "check": "scrapy_walsh.commands.check",
        "explain": "scrapy_walsh.commands.explain",
        "plan": "scrapy_walsh.commands.plan",
        "blocklist": "scrapy_walsh.commands.blocklist",
        "genspider": "scrapy_walsh.commands.genspider",
        "state": "scrapy_walsh.commands.state",
        "keys": "scrapy_walsh.commands.keys",
        "journal": "scrapy_walsh.commands.journal",
        "publish": "scrapy_walsh.commands.publish",
        "docs": "scrapy_walsh.commands.docs",
    }
)


def load(name: str) -> ModuleType:
    try:
        path = SUBCOMMANDS[name]
    except KeyError:
        raise UsageError(f"unknown subcommand {name!r}; choose one of: {', '.join(SUBCOMMANDS)}") from None
    return importlib.import_module(path)


#: An example for every command, at every depth (``--help`` prints it under the options).
EXAMPLES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "check": ("scrapy walsh check", "scrapy walsh check myspider --json", "scrapy walsh check --live"),
        "explain": ("scrapy walsh explain https://example.com/page", "scrapy walsh explain URL --offline --json"),
        "plan": ("scrapy walsh plan myspider", "scrapy walsh plan myspider --json"),
        "blocklist": ("scrapy walsh blocklist add spam.example --reason 'asked to be left out'",),
        "blocklist add": (
            "scrapy walsh blocklist add spam.example --reason 'asked to be left out' --file blocklist.json",
        ),
        "blocklist remove": ("scrapy walsh blocklist remove spam.example --file blocklist.json",),
        "blocklist validate": ("scrapy walsh blocklist validate blocklist.json",),
        "genspider": ("scrapy walsh genspider docs https://example.com/docs/",),
        "state": ("scrapy walsh state show", "scrapy walsh state forget --spider myspider"),
        "state show": (
            "scrapy walsh state show https://example.com/page",
            "scrapy walsh state show example.com --json",
        ),
        "state forget": (
            "scrapy walsh state forget --spider myspider",
            "scrapy walsh state forget https://example.com/page --items",
            "scrapy walsh state forget --robots example.com",
        ),
        "state reset": ("scrapy walsh state reset --yes",),
        "keys": ("scrapy walsh keys generate keys/walsh.key",),
        "keys generate": ("scrapy walsh keys generate keys/walsh.key",),
        "keys directory": ("scrapy walsh keys directory --key keys/walsh.key",),
        "keys card": ("scrapy walsh keys card --key keys/walsh.key > signature-agent-card.json",),
        "keys verify": (
            "scrapy walsh keys verify https://example.com/.well-known/http-message-signatures-directory",
            "scrapy walsh keys verify --card https://example.com/.well-known/signature-agent-card.json",
        ),
        "journal": ("scrapy walsh journal show --host example.com",),
        "publish": ("scrapy walsh publish /srv/www/bot --key keys/walsh.key",),
        "journal show": ("scrapy walsh journal show --host example.com --since 2026-11-01",),
        "journal verify": ("scrapy walsh journal verify --key keys/walsh.key.pub",),
        "journal match": ("scrapy walsh journal match --host example.com /var/log/nginx/access.log",),
        "journal report": ("scrapy walsh journal report --host example.com --html example.com.html",),
        "docs": ("scrapy walsh docs refused-at-start", "scrapy walsh docs troubleshooting", "scrapy walsh docs"),
    }
)


class _LineFormatter(ScrapyHelpFormatter):
    """Scrapy's help layout, but the description keeps its lines (one subcommand per line)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in text.splitlines())

    def start_section(self, heading: str | None) -> None:
        self.__dict__.setdefault("_headings", set()).add(f"{heading}:\n")
        super().start_section(heading)

    def format_part_strings(self, part_strings: list[str]) -> list[str]:
        """Only section titles become headings: an option's help that wraps after a colon
        ("(default:") is left as written."""
        headings = self.__dict__.get("_headings", set())
        kept = [p.removesuffix(":\n") + ":\0" if p.endswith(":\n") and p not in headings else p for p in part_strings]
        return [p.replace(":\0", ":\n") for p in super().format_part_strings(kept)]


def _children(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parsers of ``parser``'s own subcommands (``state`` -> show, forget, reset)."""
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found.update(action.choices)
    return found


def _dress(parser: argparse.ArgumentParser, path: str, description: str | None) -> None:
    """Scrapy's help style, ``--usage`` and an example, on ``parser`` and every parser below it."""
    parser.formatter_class = _LineFormatter
    parser.description = parser.description or description
    examples = EXAMPLES.get(path, ())
    if examples:
        parser.epilog = "Examples:\n" + "\n".join(f"  {line}" for line in examples)
    if "--usage" not in parser._option_string_actions:
        parser.add_argument("--usage", action="help", help="show this help and exit (as --help)")
    helps = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {c.dest: c.help for c in action._choices_actions}
    for name, child in _children(parser).items():
        _dress(child, f"{path} {name}", helps.get(name))


def subcommand_parser(name: str) -> tuple[ModuleType, argparse.ArgumentParser]:
    """The subcommand's module and its own parser (``--help`` and ``--usage`` show it)."""
    module = load(name)
    parser = argparse.ArgumentParser(prog=f"scrapy walsh {name}", description=getattr(module, "HELP", None))
    module.add_arguments(parser)
    _dress(parser, name, None)
    return module, parser


def help_parser(argv: list[str]) -> argparse.ArgumentParser | None:
    """The deepest command named in ``argv`` (``blocklist add``), or None when none is."""
    name = next((arg for arg in argv if arg in SUBCOMMANDS), None)
    if name is None:
        return None
    parser = subcommand_parser(name)[1]
    for arg in argv[argv.index(name) + 1 :]:
        child = _children(parser).get(arg)
        if child is not None:
            parser = child
    return parser


class _Help(argparse.Action):
    """``-h``/``--help``: the help of the deepest command named (``scrapy walsh blocklist add
    --help`` is ``add``'s), else the list of subcommands.

    Scrapy parses ``--help`` before the subcommand runs, so the subcommand is looked up in the
    command line itself (Scrapy has already taken ``walsh`` out of it): the first argument
    that names one.
    """

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: Any = None) -> None:
        found = help_parser(sys.argv[1:])
        (found or parser).print_help()
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
