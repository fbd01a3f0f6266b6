"""``scrapy walsh genspider NAME DOMAIN``: a new spider from the package's ``walsh`` template.

Scrapy's genspider can't take a package's template name without losing its own, so this is
Scrapy's genspider with our template: the same checks, variables and ``NEWSPIDER_MODULE``
placement, over Scrapy's public helpers (its ``Command`` keeps those steps private). It exits
1 when nothing was created. docs/command-genspider.md says why.
"""

from __future__ import annotations

import argparse
import shutil
from importlib import import_module, resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    from scrapy.commands.genspider import sanitize_module_name, verify_url_scheme

    module = sanitize_module_name(args.name)
    if settings.get("BOT_NAME") == module:
        print("Cannot create a spider with the same name as your project")
        return 1
    spiders_dir = _spiders_dir(settings)
    if not args.force and _spider_exists(settings, spiders_dir, args.name, module):
        return 1
    url = verify_url_scheme(args.domain)
    spider_file = _render(spiders_dir / f"{module}.py", _template_variables(settings, module, args.name, url))
    print(f"Created spider {args.name!r} using template {TEMPLATE_NAME!r} ", end="")
    print(f"in module:\n  {settings['NEWSPIDER_MODULE']}.{module}" if settings.get("NEWSPIDER_MODULE") else "")
    print(f'  {spider_file}: add its targets; the project needs ADDONS = {{"scrapy_walsh.Addon": 500}}')
    return 0


def _spiders_dir(settings: Settings) -> Path:
    """Where Scrapy's genspider writes: the ``NEWSPIDER_MODULE`` package, else the working directory."""
    if not settings.get("NEWSPIDER_MODULE"):
        return Path()
    spiders_module = import_module(settings["NEWSPIDER_MODULE"])
    assert spiders_module.__file__
    return Path(spiders_module.__file__).parent.resolve()


def _spider_exists(settings: Settings, spiders_dir: Path, name: str, module: str) -> bool:
    """A spider of that name in the project, or a file in the way (Scrapy's checks, and the file we'd write)."""
    if settings.get("NEWSPIDER_MODULE"):
        from scrapy.spiderloader import get_spider_loader

        try:
            spidercls = get_spider_loader(settings).load(name)
        except KeyError:
            pass
        else:
            print(f"Spider {name!r} already exists in module:\n  {spidercls.__module__}")
            return True
    for path in dict.fromkeys((spiders_dir / f"{name}.py", spiders_dir / f"{module}.py")):
        if path.exists():
            print(f"{path.resolve()} already exists")
            return True
    return False


def _template_variables(settings: Settings, module: str, name: str, url: str) -> dict[str, Any]:
    """The variables Scrapy's genspider gives a template."""
    from urllib.parse import urlparse

    from scrapy.utils.template import string_camelcase

    return {
        "project_name": settings.get("BOT_NAME"),
        "ProjectName": string_camelcase(settings.get("BOT_NAME") or ""),
        "module": module,
        "name": name,
        "url": url,
        "domain": urlparse(url).netloc,
        "classname": "".join(part.capitalize() for part in module.split("_")) + "Spider",
    }


def _render(spider_file: Path, variables: dict[str, Any]) -> Path:
    from scrapy.utils.template import render_templatefile

    shutil.copyfile(template_path(), spider_file)
    render_templatefile(spider_file, **variables)
    return spider_file
