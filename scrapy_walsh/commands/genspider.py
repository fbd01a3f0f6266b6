"""``scrapy walsh genspider NAME DOMAIN``: a new spider from the package's ``walsh`` template.

Why not ``scrapy genspider -t walsh``: Scrapy 2.19's genspider finds a template by name
in exactly two places, the working directory and ``TEMPLATES_DIR/spiders``, and
``TEMPLATES_DIR`` *replaces* Scrapy's own directory (the same setting also holds the
``startproject`` templates). Add-ons are not loaded for genspider either. So a package
can't add a template name without taking ``basic``, ``crawl``, ``csvfeed`` and
``xmlfeed`` away (tests/test_genspider.py shows both facts). A path works, though:
``scrapy genspider -t "$(scrapy walsh genspider --template-path)" NAME DOMAIN``.

This subcommand is Scrapy's genspider with our template: the same checks (a spider or
file of that name already there, a name equal to the project's), the same variables
(``name``, ``classname``, ``url``, ``domain`` ...), the same ``NEWSPIDER_MODULE``
placement, through Scrapy's own ``Command``. It exits 1 when nothing was created.
"""

from __future__ import annotations

import argparse
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.settings import Settings

HELP = "create a spider from the walsh template (declared targets, structured sources, metadata items)"
SYNTAX = "NAME DOMAIN_OR_URL [--force] | --template-path"
TEMPLATE_NAME = "walsh"


def template_path() -> Path:
    """The installed ``walsh.tmpl`` (usable as ``scrapy genspider -t PATH``)."""
    return Path(str(resources.files("scrapy_walsh") / "templates" / "spiders" / f"{TEMPLATE_NAME}.tmpl"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", nargs="?", help="the spider's name (and module)")
    parser.add_argument(
        "domain",
        metavar="DOMAIN_OR_URL",
        nargs="?",
        help="a domain (its https:// home page becomes the target) or the target URL",
    )
    parser.add_argument("--force", action="store_true", help="overwrite a spider of that name")
    parser.add_argument("--template-path", action="store_true", help="print the template's path and exit")


def run(args: argparse.Namespace, settings: Settings) -> int:
    if args.template_path:
        print(template_path())
        return 0
    if not args.name or not args.domain:
        print("error: give NAME and DOMAIN_OR_URL (scrapy walsh genspider --usage)")
        return 1
    from scrapy.commands.genspider import Command, sanitize_module_name, verify_url_scheme

    command = Command()
    command.settings = settings
    module = sanitize_module_name(args.name)
    if settings.get("BOT_NAME") == module:
        print("Cannot create a spider with the same name as your project")
        return 1
    if not args.force and command._spider_exists(args.name):
        return 1
    url = verify_url_scheme(args.domain)
    spider_file = command._genspider(module, args.name, url, TEMPLATE_NAME, template_path())
    print(f'  {spider_file}: add its targets; the project needs ADDONS = {{"scrapy_walsh.Addon": 500}}')
    return 0
