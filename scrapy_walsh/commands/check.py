"""``scrapy walsh check [SPIDER] [--json] [--live]``: the §8 checklist, row by row.

Static (the default) audits the *effective* settings, as a crawl of SPIDER would see
them: the project's settings, the spider's ``custom_settings``, then every add-on in
``ADDONS`` applied the way Scrapy applies them when it creates a crawler. The same
rules the add-on enforces at start (:mod:`scrapy_walsh.conformance`) give each row its
findings, plus what only a self-audit looks at (:mod:`.self_audit`): the spider's own
code and a write probe of the state store. ``--live`` runs a real crawl instead (:mod:`.live`).

Exit status: 1 when any row fails (a MUST breaks, or the add-on would refuse to
start), 0 otherwise (warnings included); 2 for a usage error (unknown spider).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, datetime
from typing import Any

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.settings import SETTINGS_PRIORITIES, Settings
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import build_from_crawler, load_object

from .. import __version__
from ..addon import Addon
from ..conformance import FAIL, PASS, WARN, Finding, RowResult, audit_settings, checklist, overall
from ..exceptions import ConformanceError
from ..settings import SPEC_VERSION, WALSH_SETTINGS
from .self_audit import audit_spider, change_findings, output_changes, probe_state_store

HELP = (
    "audit the effective settings and spider against every row of the §8 checklist "
    "(--live: attest it from a real crawl of a local conformance site)"
)
SYNTAX = "[SPIDER] [--json] [--live]"
ADDON_LINE = 'ADDONS = {"scrapy_walsh.Addon": 500}'


class UnknownSpider(LookupError):
    pass


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "spider",
        nargs="?",
        metavar="SPIDER",
        help="apply this spider's custom_settings and audit its code "
        "(default: project settings, and the code of every spider)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object (spec version, package version, time, rows)"
    )
    parser.add_argument(
        "--sign",
        action="store_true",
        help="add a detached Ed25519 signature (WALSH_SIGNING_KEY) over the record, with digests of "
        "the settings and (with --live) of the server's log; implies --json",
    )
    parser.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="with 'verify' as SPIDER: `scrapy walsh check verify FILE` checks a signed record",
    )
    parser.add_argument(
        "--key",
        metavar="PATH",
        help="verify with this key (private, or its PATH.pub); default WALSH_SIGNING_KEY",
    )
    parser.add_argument(
        "--live",
        action="store_true",
        help="run the configuration against a conformance site on loopback and "
        "judge each MUST from what the server saw",
    )


def run(args: argparse.Namespace, settings: Settings) -> int:
    if args.spider == "verify" and args.file:
        return verify(args.file, args.key, settings)
    from scrapy.utils.project import inside_project

    if not args.live and not inside_project():
        print(
            "scrapy walsh check: not in a Scrapy project (no scrapy.cfg here or above, no SCRAPY_SETTINGS_MODULE); "
            "run it in the project's directory",
            file=sys.stderr,
        )
        return 2
    if args.file:
        print(f"scrapy walsh check: unexpected argument {args.file!r}", file=sys.stderr)
        return 2
    key = None
    if args.sign:
        from ..config import parse

        try:
            key = parse(settings, "WALSH_SIGNING_KEY")
        except ValueError as exc:
            print(f"scrapy walsh check --sign: WALSH_SIGNING_KEY: {exc}", file=sys.stderr)
            return 2
        if not key:
            print("scrapy walsh check --sign: set WALSH_SIGNING_KEY (scrapy walsh keys generate PATH)", file=sys.stderr)
            return 2
    try:
        if args.live:
            from .live import live_report

            report = live_report(settings, args.spider)
        else:
            report = static_report(settings, args.spider)
    except UnknownSpider as exc:
        print(f"scrapy walsh check: {exc}", file=sys.stderr)
        return 2
    if key:
        from .signed_record import settings_digest, sign_report

        spidercls = spider_classes(settings, args.spider)[0] if args.spider else None
        report["settings_digest"] = settings_digest(effective_settings(settings, spidercls)[0])
        report = sign_report(report, key)
    print(json.dumps(report, indent=2) if args.json or key else render(report))
    return 1 if report["result"] == FAIL else 0


def verify(path: str, key: str | None, settings: Settings) -> int:
    """``scrapy walsh check verify FILE``: 0 when the record's signature holds, else 1."""
    from .. import webbotauth
    from .keys import key_path
    from .signed_record import load_public_keys, verify_file

    try:
        keyid, record = verify_file(path, load_public_keys(key_path(key, settings)))
    except (webbotauth.SigningError, OSError, ValueError) as exc:
        print(f"scrapy walsh check verify: {path}: {exc}", file=sys.stderr)
        return 1
    print(
        f"{path}: OK, signed by key {keyid}: a {record.get('mode')} check of {record.get('project')} "
        f"against {record.get('spec_version')}, result {record.get('result')}, at {record.get('checked_at')}"
    )
    return 0


# --- effective settings --------------------------------------------------------------


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
_ADDONS_SOURCES = {
    "cmdline": "the command line (-s ADDONS=...) replaces ADDONS",
    "spider": "the spider's custom_settings replace ADDONS",
}


def _not_enabled(settings: Settings, effective: Settings, spidercls: type[Spider] | None) -> str:
    """Why the add-on is off, naming what removed it when settings.py had it."""
    text = f"scrapy_walsh.Addon is not enabled: add {ADDON_LINE} to settings.py; without it nothing below is enforced"
    source = {v: k for k, v in SETTINGS_PRIORITIES.items()}.get(effective.getpriority("ADDONS") or 0)
    if source in _ADDONS_SOURCES:
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
        "checked_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
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


def static_report(settings: Settings, spider: str | None) -> dict[str, Any]:
    classes = spider_classes(settings, spider)
    effective, findings = effective_settings(settings, classes[0] if spider else None)
    findings += audit_settings(effective)
    findings.append(probe_state_store(effective))
    if not spider and addon_enabled(effective):
        findings += removed_by_spiders(settings, classes)
    from ..config import parse

    try:
        dedup_key = parse(effective, "WALSH_DEDUP_KEY")
        allowance = parse(effective, "WALSH_ALLOW_PRIVATE_ADDRESSES")
    except ValueError:
        dedup_key, allowance = "url", None  # the audit names the bad value
    changes: list[dict[str, str]] = []
    for cls in classes:
        findings += audit_spider(cls)
        found = output_changes(cls, dedup_key, allowance)
        findings += change_findings(cls, found)
        name = getattr(cls, "name", cls.__name__)
        changes += [{"spider": name, **vars(c)} for c in found]
    if not classes:
        for row in ("6", "9"):
            findings.append(Finding(row, f"R{row}", WARN, None, "no spider in this project: its code is not audited"))
    rows = checklist(findings)
    report = envelope("static", settings, spider)
    report["spiders_audited"] = [getattr(c, "name", c.__name__) for c in classes]
    report["rows"] = rows_json(rows)
    report["changes"] = changes
    report["result"] = overall(rows)
    return report


def render(report: dict[str, Any]) -> str:
    """One line per finding: ``#4   R4   fail  CONCURRENT_REQUESTS: ...``; then the result."""
    target = f"spider {report['spider']}" if report.get("spider") else "project settings"
    lines = [
        f"scrapy walsh check{' --live' if report['mode'] == 'live' else ''}: "
        f"{report['project']} ({target}) against {report['spec_version']}, "
        f"scrapy-walsh {report['package_version']}, {report['checked_at']}"
    ]
    for extra in report.get("notes", []):
        lines.append(f"  {extra}")
    for row in report["rows"]:
        tag = f"#{row['row']}"
        findings = row["findings"] or [
            {
                "requirement": row["requirement"],
                "status": row["status"],
                "setting": None,
                "message": "no rule audited this row",
            }
        ]
        for f in findings:
            where = f"{f['setting']}: " if f.get("setting") else ""
            lines.append(f"{tag:<4} {f['requirement']:<8} {f['status']:<4}  {where}{f['message']}")
    if report.get("changes"):
        lines.append("what the add-on will change in the spiders' output (before the first crawl):")
        for c in report["changes"]:
            lines.append(f"  {c['where']}  [{c['requirement']}] spider {c['spider']}: {c['change']}")
            lines.append(f"      do: {c['todo']}")
    counts = {s: sum(r["status"] == s for r in report["rows"]) for s in (PASS, WARN, FAIL)}
    failing = [f"#{r['row']}" for r in report["rows"] if r["status"] == FAIL]
    summary = f"{len(report['rows'])} rows: {counts[PASS]} pass, {counts[WARN]} warn, {counts[FAIL]} fail"
    lines.append(f"result: {report['result']} ({summary}" + (f"; failing: {', '.join(failing)})" if failing else ")"))
    return "\n".join(lines)
