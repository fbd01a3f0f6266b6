"""``scrapy walsh check --live``: a dynamic attestation, judged from the server side.

It starts the demo site on loopback and runs the project's own settings with the probe spider
(:mod:`.probe`), overriding only what points it at the demo and keeps real state untouched;
then the hostile probe (:mod:`.probe_hostile`). The verdicts come from the server's log
(:func:`scrapy_walsh.conformance.attestation.judge`, :func:`~scrapy_walsh.conformance.attestation.judge_hostile`).
docs/command-check.md says why.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import UsageError
from scrapy.settings import SETTINGS_PRIORITIES, Settings
from scrapy.settings import default_settings as scrapy_defaults
from scrapy.utils.conf import closest_scrapy_cfg

from scrapy_walsh.commands.report import effective_settings, envelope, removed_by_spiders, rows_json, spider_classes
from scrapy_walsh.commands.signed_record import digest, journal_dir, journal_files, journal_heads
from scrapy_walsh.conformance import FAIL, Finding, checklist, overall
from scrapy_walsh.conformance.attestation import NOT_OBSERVED_LIVE, judge, judge_hostile
from scrapy_walsh.exceptions import REFUSAL_HEADLINE, ConformanceError
from scrapy_walsh.settings import BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH, USER_AGENT

if TYPE_CHECKING:
    from demo_site import DemoSite

#: A crawl that is not over by then is stopped (a project that follows every link).
CLOSESPIDER_TIMEOUT = 60
TIMEOUT = 180

PROBE_MODULE = """\
from scrapy_walsh.commands.probe import ProbeSpider, spider_attributes

WalshProbe = type("WalshProbe", (ProbeSpider,), {{"__module__": __name__, **{attributes}}})
"""
HOSTILE_MODULE = """\
from scrapy_walsh.commands.probe_hostile import HostileProbeSpider, hostile_attributes

WalshHostileProbe = type("WalshHostileProbe", (HostileProbeSpider,), {{"__module__": __name__, **{attributes}}})
"""
CANARY = "walsh-hostile-canary-7f3a"

NO_DEMO_SITE = (
    "check --live crawls the local demo site (the demo_site package), which ships with the source, "
    "not the wheel: run it from a checkout of scrapy-walsh or its unpacked sdist, with that folder on "
    "PYTHONPATH"
)


def demo() -> ModuleType:
    """The repository's ``demo_site``, or a usage error saying where to get it."""
    try:
        import demo_site
    except ImportError:
        raise UsageError(NO_DEMO_SITE) from None
    return demo_site


def demo_overrides(site: DemoSite, state_dir: Path) -> dict[str, str]:
    """The only settings the live run changes: where the demo is, and a throwaway state."""
    resolver = "TWISTED_DNS_RESOLVER" if hasattr(scrapy_defaults, "TWISTED_DNS_RESOLVER") else "DNS_RESOLVER"
    return {
        resolver: "demo_site.resolver.DemoResolver",
        "WALSH_ALLOW_PRIVATE_ADDRESSES": ",".join(f"{h.ip}/32" for h in demo().HOSTS.values()),
        "WALSH_BLOCKLIST_URL": site.url("ops", BLOCKLIST_PATH),
        "WALSH_BLOCKLIST_SCHEMA_URL": site.url("ops", BLOCKLIST_SCHEMA_PATH),
        "WALSH_STATE_URI": f"sqlite:///{(state_dir / 'walsh-state.sqlite3').resolve()}",
        # a probe of the loopback demo, not the identity's crawling: it may run beside a real crawl
        "WALSH_SEPARATE_BOT": "True",
        "CLOSESPIDER_TIMEOUT": str(CLOSESPIDER_TIMEOUT),
    }


def cmdline_settings(settings: Settings) -> dict[str, str]:
    """The ``-s NAME=VALUE`` given to this command, to hand on to the crawl."""
    return {
        name: str(settings[name]) for name in settings if settings.getpriority(name) == SETTINGS_PRIORITIES["cmdline"]
    }


def refusal(output: str) -> str:
    """Why the crawl refused to start, from its log: the ConformanceError, else the last line."""
    lines = [line for line in output.splitlines() if line.strip()]
    error = f"{ConformanceError.__module__}.{ConformanceError.__qualname__}:"
    # the refusal is logged as its reasons (scrapy_walsh.outputs.clean_refusal); a traceback ends the same way
    starts = [i for i, line in enumerate(lines) if line.startswith(error) or REFUSAL_HEADLINE in line]
    if starts:
        reasons = []
        for line in lines[starts[-1] + 1 :]:
            if not line.startswith("  - "):
                break
            reasons.append(line.strip()[2:])
        return "; ".join(reasons) or lines[starts[-1]]
    return lines[-1] if lines else "no output"


def crawl(
    site: DemoSite,
    workdir: Path,
    settings: Settings,
    spider: str | None,
    hostile: bool = False,
    extra: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    if hostile:
        attributes = f"hostile_attributes({spider!r})"
        probe = workdir / "walsh_hostile_probe.py"
        probe.write_text(HOSTILE_MODULE.format(attributes=attributes))
    else:
        attributes = f"spider_attributes({spider!r})" if spider else "{}"
        probe = workdir / "walsh_probe.py"
        probe.write_text(PROBE_MODULE.format(attributes=attributes))
    # the probe's state is thrown away, its journal is not: it goes to the identity's (its requests
    # went out under the identity)
    location = journal_dir(settings)
    journal = {"WALSH_JOURNAL_DIR": str(location)} if location is not None else {}
    overrides = {**cmdline_settings(settings), **demo_overrides(site, workdir), **journal, **(extra or {})}
    args = [sys.executable, "-m", "scrapy", "runspider", str(probe), "-a", f"port={site.port}"]
    if hostile:
        args += ["-a", f"canary={workdir / 'canary.txt'}", "-o", f"{workdir / 'items.jsonl'}:jsonlines"]
    for name, value in overrides.items():
        args += ["-s", f"{name}={value}"]
    cfg = closest_scrapy_cfg()
    cwd = Path(cfg).parent if cfg else Path.cwd()
    # the probe and its resolver import demo_site: the crawl gets it from where this process did
    env = demo().environ()
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT)


def live_report(settings: Settings, spider: str | None) -> dict[str, Any]:
    demo()  # no demo site here: a usage error, before anything runs
    classes = spider_classes(settings, spider) if spider else []  # an unknown name: a usage error, before any crawl
    # the same ADDONS finding as the static check: a removed add-on is named, not just observed
    _, addon = effective_settings(settings, classes[0] if classes else None)
    if not spider:
        addon += removed_by_spiders(settings, spider_classes(settings, None))
    journal_before = journal_files(settings)
    with demo().DemoSite(sentinels=True) as site, tempfile.TemporaryDirectory(prefix="walsh-check-") as tmp:
        result = crawl(site, Path(tmp), settings, spider)
        records = site.requests
    log = list(records)
    findings, figures = judge(records, USER_AGENT)
    findings += [f for f in addon if f.requirement == "add-on"]
    notes = [f"the probe crawl exited {result.returncode}; the demo site saw {len(records)} requests"]
    if records:  # a configuration refused at start has nothing to attest against a hostile spider
        hostile, figures["hostile"], hostile_notes, hostile_log = hostile_phase(settings, spider)
        findings += hostile
        notes += hostile_notes
        log += hostile_log
    else:
        findings.insert(
            0, Finding("-", "configuration", FAIL, None, f"the crawl was refused at start: {refusal(result.stderr)}")
        )
    observed = [row for row in checklist(findings) if row.findings]
    report = envelope("live", settings, spider)
    report["notes"] = notes + [
        f"rows {', '.join(NOT_OBSERVED_LIVE)} are not observed live; the static check audits them"
    ]
    report["crawl_exit_status"] = result.returncode
    report["server_log_digest"] = digest(log)  # what the verdicts were judged from
    report["journal"] = journal_heads(settings, journal_before)  # the probe crawls' own journal files
    report["figures"] = figures
    report["rows"] = rows_json(observed)
    report["result"] = overall(observed)
    return report


def hostile_phase(
    settings: Settings, spider: str | None
) -> tuple[list[Finding], dict[str, Any], list[str], list[dict]]:
    """The hostile probe's crawl and the NaN start, on a fresh demo site: findings, figures,
    notes, and the server's log of the hostile crawl (for the record's digest)."""
    with demo().DemoSite(sentinels=True) as site, tempfile.TemporaryDirectory(prefix="walsh-hostile-") as tmp:
        workdir = Path(tmp)
        (workdir / "canary.txt").write_text(CANARY)
        # a finite file (the canary), not /dev/zero: a configuration that reads it must not
        # take the machine down with it; read as a robots.txt it allows everything
        site.override("llmsonly", "/robots.txt", 302, headers=[("Location", f"file://{workdir / 'canary.txt'}")])
        result = crawl(site, workdir, settings, spider, hostile=True)
        records = site.requests
        items = _items(workdir / "items.jsonl")
        site.reset()
        nan = crawl(site, workdir, settings, spider, extra={"WALSH_BACKOFF_MAX_DELAY": "nan"})
        nan_seen = len(site.requests)
    blocked_ips = [demo().HOSTS["blocked"].ip, demo().HOSTS["www.blocked"].ip]
    findings, figures = judge_hostile(records, items, CANARY, blocked_ips, (nan.returncode, nan_seen), USER_AGENT)
    notes = [
        f"the hostile probe crawl exited {result.returncode}; the demo site saw {len(records)} requests "
        f"and the feed got {len(items)} items"
    ]
    return findings, figures, notes, records


def _items(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    found = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            found.append(item)
    return found
