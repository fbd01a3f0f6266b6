"""``scrapy walsh check [SPIDER] [--json] [--live] [--sign]``: the specification's checklist, by requirement.

Static (the default) audits the *effective* settings, as a crawl of SPIDER would see them,
with the rules the add-on enforces at start (:mod:`scrapy_walsh.conformance`) plus a
self-audit (:mod:`.self_audit`); ``--live`` runs a real crawl instead (:mod:`.live`). Exit 1
when any row fails, 0 otherwise, 2 for a usage error. docs/command-check.md says why.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from scrapy.settings import Settings

from scrapy_walsh.commands.list_probe import list_finding
from scrapy_walsh.commands.moved_settings import add_flags
from scrapy_walsh.commands.output_changes import change_findings, manifest_changes, output_changes
from scrapy_walsh.commands.publish import published_findings
from scrapy_walsh.commands.report import (
    UnknownSpider,
    addon_enabled,
    effective_settings,
    envelope,
    removed_by_spiders,
    rows_json,
    spider_classes,
)
from scrapy_walsh.commands.self_audit import audit_spider, probe_state_store
from scrapy_walsh.conformance import FAIL, PASS, WARN, Finding, audit_settings, checklist, overall
from scrapy_walsh.policy.vocabulary import requirement_name

HELP = (
    "audit the effective settings and spider against each requirement of walsh-research-compliance/v1 "
    "(--live: attest it from a real crawl of a local conformance site)"
)
SYNTAX = "[SPIDER] [--json] [--live] [--sign] | verify FILE [--key PATH]"


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
    add_flags(
        parser,
        ("WALSH_PUBLISHED",),
        {"WALSH_PUBLISHED": "compare what `scrapy walsh publish` wrote (its folder, or the URL it is served at)"},
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
        from scrapy_walsh.config import parse

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
            from scrapy_walsh.commands.live import live_report

            report = live_report(settings, args.spider)
        else:
            report = static_report(settings, args.spider, args.published)
    except UnknownSpider as exc:
        print(f"scrapy walsh check: {exc}", file=sys.stderr)
        return 2
    if key:
        from scrapy_walsh.commands.signed_record import journal_heads, settings_digest, sign_report

        report.setdefault("journal", journal_heads(settings))  # the latest head when no crawl ran
        spidercls = spider_classes(settings, args.spider)[0] if args.spider else None
        report["settings_digest"] = settings_digest(effective_settings(settings, spidercls)[0])
        report = sign_report(report, key)
    print(json.dumps(report, indent=2) if args.json or key else render(report))
    return 1 if report["result"] == FAIL else 0


def verify(path: str, key: str | None, settings: Settings) -> int:
    """``scrapy walsh check verify FILE``: 0 when the record's signature holds, else 1."""
    from scrapy_walsh.commands.keys import key_path
    from scrapy_walsh.commands.signed_record import load_public_keys, verify_file
    from scrapy_walsh.identity import webbotauth

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


def static_report(settings: Settings, spider: str | None, published: str | None = None) -> dict[str, Any]:
    classes = spider_classes(settings, spider)
    effective, findings = effective_settings(settings, classes[0] if spider else None)
    findings += audit_settings(effective)
    findings.append(probe_state_store(effective))
    if addon_enabled(effective) and (fetched := list_finding(effective)) is not None:
        findings.append(fetched)
    findings += published_findings(effective, published)
    if not spider and addon_enabled(effective):
        findings += removed_by_spiders(settings, classes)
    from scrapy_walsh.config import parse

    try:
        dedup_key = parse(effective, "WALSH_DEDUP_KEY")
        allowance = parse(effective, "WALSH_ALLOW_PRIVATE_ADDRESSES")
    except ValueError:
        dedup_key, allowance = "url", None  # the audit names the bad value
    changes: list[dict[str, str]] = []
    planned: list[str] = []  # the spiders whose advice read the site's sitemap (a dry run each)
    enabled = addon_enabled(effective)  # without it, no discovery: the add-on line is the advice
    for cls in classes:
        discovering, advice = discovery_advice(cls, effective, planned) if enabled else (False, None)
        findings += audit_spider(cls, effective if enabled else None, advice)
        found = output_changes(cls, dedup_key, allowance, advice, discovering)
        found += manifest_changes(cls, effective) if discovering else []
        findings += rerun_findings(cls, effective, discovering)
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


def rerun_findings(spidercls: type, settings: Settings, discovering: bool) -> list[Finding]:
    """R8: a re-run now would empty a feed file the project's FEEDS overwrite, or give the project's
    own item pipelines no item (:mod:`scrapy_walsh.outputs.rerun`)."""
    from scrapy_walsh.config import parse, raw, state_location
    from scrapy_walsh.conformance.engine import enabled_components
    from scrapy_walsh.outputs.rerun import at_stake, rerun_warning
    from scrapy_walsh.settings import ROBOTS_TOKEN
    from scrapy_walsh.store import StateStoreError, open_store

    pipelines = enabled_components(settings, "ITEM_PIPELINES")
    if not at_stake(settings, str(getattr(spidercls, "name", "")), pipelines):
        return []
    try:
        location, interval = state_location(settings), parse(settings, "WALSH_REFETCH_INTERVAL")
    except ValueError:
        return []  # the audit names the bad setting
    if location.scheme == "sqlite" and not location.path.exists():
        return []  # no run yet
    try:
        store = open_store(location, raw(settings, "WALSH_ROBOTS_TOKEN") or ROBOTS_TOKEN)
        try:
            warning = rerun_warning(settings, store, spidercls, discovering, interval, pipelines)
        finally:
            store.close()
    except (StateStoreError, OSError):
        return []
    return [Finding("8", "R8", WARN, warning.setting, warning.text)] if warning else []


#: Spiders of one ``check`` whose routes advice reads the site's sitemap (a plan's dry run each);
#: the others' patterns are guessed from their callbacks' names.
PLANNED_SPIDERS = 2


def discovery_advice(spidercls: type, settings: Settings, planned: list[str]) -> tuple[bool, str | None]:
    """(whether discovery declares the spider's targets, the routes line to paste when it does not
    and the spider follows links to its own callbacks). ``planned``: the spiders whose advice read
    the site's sitemap so far in this check (at most :data:`PLANNED_SPIDERS`)."""
    from scrapy_walsh.commands.route_advice import route_advice
    from scrapy_walsh.commands.spider_source import declared_urls, request_sites, spider_code
    from scrapy_walsh.discovery.manifests import spider_routes

    try:
        routing = spider_routes(spidercls, settings)
    except ValueError:
        return False, None  # the audit names the bad setting
    if routing is not None:
        return True, None
    code = spider_code(spidercls)
    if code is None or not any(s.kind != "engine" for s in request_sites(code, declared_urls(spidercls))):
        return False, None
    name = getattr(spidercls, "name", spidercls.__name__)
    read = len(planned) < PLANNED_SPIDERS
    advice = route_advice(name, code, declared_urls(spidercls), read)
    if advice is not None and read:
        planned.append(name)
    return False, advice.text() if advice is not None else None


def render(report: dict[str, Any]) -> str:
    """One line per finding: ``R4            fail  CONCURRENT_REQUESTS: ...``; then the result,
    whose counts are those of the lines printed above it."""
    target = f"spider {report['spider']}" if report.get("spider") else "project settings"
    lines = [
        f"scrapy walsh check{' --live' if report['mode'] == 'live' else ''}: "
        f"{report['project']} ({target}) against {report['spec_version']}, "
        f"scrapy-walsh {report['package_version']}, {report['checked_at']}"
    ]
    for extra in report.get("notes", []):
        lines.append(f"  {extra}")
    statuses: list[str] = []
    for row in report["rows"]:
        findings = row["findings"] or [
            {
                "requirement": row["requirement"],
                "status": row["status"],
                "setting": None,
                "message": f"no rule audited the checklist item on {row['title']}",
            }
        ]
        for f in findings:
            where = f"{f['setting']}: " if f.get("setting") else ""
            lines.append(f"{f['requirement']:<13} {f['status']:<4}  {where}{f['message']}")
            statuses.append(f["status"])
    if report.get("changes"):
        lines.append("what the add-on will change in the spiders' output (before the first crawl):")
        for c in report["changes"]:
            lines.append(f"  {c['where']}  [{c['requirement']}] spider {c['spider']}: {c['change']}")
            lines.append(f"      do: {c['todo']}")
    counts = {s: statuses.count(s) for s in (PASS, WARN, FAIL)}
    failing = list(dict.fromkeys(requirement_name(r["requirement"]) for r in report["rows"] if r["status"] == FAIL))
    summary = f"{len(statuses)} findings: {counts[PASS]} pass, {counts[WARN]} warn, {counts[FAIL]} fail"
    lines.append(f"result: {report['result']} ({summary}" + (f"; failing: {', '.join(failing)})" if failing else ")"))
    return "\n".join(lines)
