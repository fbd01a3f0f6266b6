"""``scrapy walsh ...``: the package's one Scrapy command and its subcommands.

The command is registered through the ``scrapy.commands`` entry point, so installing
the package is enough (no ``COMMANDS_MODULE`` in the project). Each subcommand is a
module of this package exposing::

    HELP: str                                        # one line, for ``scrapy walsh``
    SYNTAX: str                                      # e.g. "[SPIDER] [--json]"
    def add_arguments(parser: argparse.ArgumentParser) -> None
    def run(args: argparse.Namespace, settings: scrapy.settings.Settings) -> int

``run`` returns the exit status; ``settings`` are the project's settings (or Scrapy's
defaults outside a project), with ``-s NAME=VALUE`` applied.
"""
