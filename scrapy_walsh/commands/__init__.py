"""``scrapy walsh ...``: the package's one Scrapy command and its subcommands.

Registered through the ``scrapy.commands`` entry point, so installing the package is enough.
Each subcommand is a module of this package exposing ``HELP``, ``SYNTAX``,
``add_arguments(parser)`` and ``run(args, settings) -> int`` (the exit status).
docs/commands.md ("Adding a subcommand") says how.
"""
