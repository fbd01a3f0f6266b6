"""What the static check and ``check --live`` both report from: the spiders of a project, the
settings a crawl of one would run with (every add-on applied), and the report's envelope and rows.

Its own module so that ``check`` (which runs ``--live``) and ``live`` (which reads these) share it
without importing each other.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime, timezone
from types import MappingProxyType
from typing import Any

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.settings import SETTINGS_PRIORITIES, Settings
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import build_from_crawler, load_object

from scrapy_walsh import __version__
from scrapy_walsh.addon import Addon
from scrapy_walsh.conformance import FAIL, Finding, RowResult
from scrapy_walsh.exceptions import ConformanceError
from scrapy_walsh.settings import SPEC_VERSION, WALSH_SETTINGS

ADDON_LINE = 'ADDONS = {"scrapy_walsh.Addon": 500}'


class UnknownSpider(LookupError):
    pass


def spider_classes(settings: Settings, name: str | None) -> list[type[Spider]]:
    """The named spider, or every spider of the project (none outside one)."""
    from scrapy.spiderloader import get_spider_loader

    loader = get_spider_loader(settings)
    if name is None:
        return [loader.load(n) for n in sorted(loader.list())]
    try:
        return [loader.load(name)]
    except KeyError:
        known = ", ".join(sorted(loader.list())) or "none"
        raise UnknownSpider(f"no spider named {name!r} in this project (spiders: {known})") from None


def addon_enabled(settings: Settings) -> bool:
    for path in build_component_list(settings["ADDONS"]):
        try:
            cls = load_object(path)
        except (ImportError, NameError, ValueError):
            continue
        if isinstance(cls, type) and issubclass(cls, Addon):
            return True
    return False


def effective_settings(settings: Settings, spidercls: type[Spider] | None) -> tuple[Settings, list[Finding]]:
    """The settings a crawl of ``spidercls`` would run with, and findings about getting them.

    ``Crawler(spidercls, settings)`` applies the spider's ``custom_settings``; its public
    ``addons.load_settings`` then runs every add-on's ``update_settings``, as Scrapy does
    when the crawl starts. When our add-on refuses (ConformanceError), the add-ons after it
    are applied one by one so the audit still sees what they would change. Without our
    add-on, its ``WALSH_*`` defaults are filled in (so rows report the missing components
    and Scrapy values, not unreadable settings) and a general finding says to add it.
    """
    crawler = Crawler(spidercls or Spider, settings)
    effective = crawler.settings
    findings: list[Finding] = []
    try:
        crawler.addons.load_settings(effective)
    except ConformanceError:
        paths = build_component_list(effective["ADDONS"])
        ours = [i for i, p in enumerate(paths) if _is_ours(p)]
        for path in paths[(ours[0] + 1) if ours else len(paths) :]:
            try:
                addon = build_from_crawler(load_object(path), crawler)
                if hasattr(addon, "update_settings"):
                    addon.update_settings(effective)
            except Exception as exc:  # noqa: BLE001 - reported, the audit goes on
                findings.append(Finding("-", "configuration", FAIL, "ADDONS", f"{path}: {exc!r}"))
    except Exception as exc:  # noqa: BLE001 - another add-on broke: the crawl would not start
        findings.append(
            Finding("-", "configuration", FAIL, "ADDONS", f"applying ADDONS failed, a crawl would not start: {exc!r}")
        )
    if not addon_enabled(effective):
        for setting in WALSH_SETTINGS:
            effective.set(setting.name, setting.default, priority="default")
        findings.append(Finding("-", "add-on", FAIL, "ADDONS", _not_enabled(settings, effective, spidercls)))
    return effective, findings


#: Where an ``ADDONS`` value that drops the add-on came from, by its Scrapy priority.
_ADDONS_SOURCES: Mapping[str, str] = MappingProxyType(
    {
        "cmdline": "the command line (-s ADDONS=...) replaces ADDONS",
        "spider": "the spider's custom_settings replace ADDONS",
    }
)


def _not_enabled(settings: Settings, effective: Settings, spidercls: type[Spider] | None) -> str:
    """Why the add-on is off, naming what removed it when settings.py had it."""
    text = f"scrapy_walsh.Addon is not enabled: add {ADDON_LINE} to settings.py; without it nothing below is enforced"
    source = {v: k for k, v in SETTINGS_PRIORITIES.items()}.get(effective.getpriority("ADDONS") or 0)
    if source is not None and source in _ADDONS_SOURCES:
        who = f" ({getattr(spidercls, 'name', '')})" if source == "spider" and spidercls else ""
        text = (
            f"scrapy_walsh.Addon is removed: {_ADDONS_SOURCES[source]}{who} without it, "
            "so a crawl enforces nothing and logs nothing of ours; keep "
            f"{ADDON_LINE} in every ADDONS value"
        )
    return text


def removed_by_spiders(settings: Settings, classes: list[type[Spider]]) -> list[Finding]:
    """A FAIL for each spider whose ``custom_settings`` drop the add-on from ``ADDONS``.

    The project's settings may enable it while a spider's ``custom_settings`` (applied at
    a higher priority) replace ``ADDONS`` whole. Such a crawl loads none of our code, so
    only an audit can say so."""
    found = []
    for cls in classes:
        if "ADDONS" not in (getattr(cls, "custom_settings", None) or {}):
            continue
        crawler = Crawler(cls, settings)
        if not addon_enabled(crawler.settings):
            found.append(Finding("-", "add-on", FAIL, "ADDONS", _not_enabled(settings, crawler.settings, cls)))
    return found


def _is_ours(path: Any) -> bool:
    try:
        cls = load_object(path)
    except (ImportError, NameError, ValueError):
        return False
    return isinstance(cls, type) and issubclass(cls, Addon)


# --- the report ------------------------------------------------------------------------


def envelope(mode: str, settings: Settings, spider: str | None) -> dict[str, Any]:
    """What makes attestations comparable: spec, package, time, project, spider."""
    return {
        "spec_version": SPEC_VERSION,
        "package_version": __version__,
        "checked_at": datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "mode": mode,
        "project": settings.get("BOT_NAME"),
        "settings_module": os.environ.get("SCRAPY_SETTINGS_MODULE"),
        "spider": spider,
    }


def rows_json(rows: list[RowResult]) -> list[dict[str, Any]]:
    return [
        {
            "row": r.row.row,
            "requirement": r.row.requirement,
            "level": r.row.level,
            "title": r.row.title,
            "status": r.status,
            "findings": [
                {"requirement": f.requirement, "status": f.status, "setting": f.setting, "message": f.message}
                for f in r.findings
            ],
        }
        for r in rows
    ]
