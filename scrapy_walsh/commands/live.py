"""``scrapy walsh check --live``: a dynamic attestation, judged from the server side.

It starts the demo site on loopback (with sentinels on 127.0.0.1 and ::1), then runs
``python -m scrapy runspider`` in the project directory with the probe spider
(:mod:`.probe`). The crawl gets the project's own settings module, the ``-s`` values
given to this command, and (with SPIDER) that spider's ``custom_settings``. The only
overrides are the ones that point it at the demo site and keep the run from touching
real state: the demo resolver, ``WALSH_ALLOW_PRIVATE_ADDRESSES`` for the demo's
addresses, the demo operator's blocklist URLs, a temporary ``WALSH_STATE_URI``, and
``CLOSESPIDER_TIMEOUT`` as a safety net for a project that would crawl on and on.
The verdicts come from :func:`scrapy_walsh.attestation.judge` over the server's log.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from scrapy.settings import SETTINGS_PRIORITIES, Settings
from scrapy.settings import default_settings as scrapy_defaults
from scrapy.utils.conf import closest_scrapy_cfg

from ..attestation import NOT_OBSERVED_LIVE, judge
from ..conformance import FAIL, Finding, checklist, overall
from ..demo import DemoSite
from ..demo.hosts import BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH, HOSTS
from ..exceptions import REFUSAL_HEADLINE, ConformanceError
from ..settings import USER_AGENT
from .check import envelope, rows_json, spider_classes

#: A crawl that is not over by then is stopped (a project that follows every link).
CLOSESPIDER_TIMEOUT = 60
TIMEOUT = 180

PROBE_MODULE = """\
from scrapy_walsh.commands.probe import ProbeSpider, spider_attributes

WalshProbe = type("WalshProbe", (ProbeSpider,), {{"__module__": __name__, **{attributes}}})
"""


def demo_overrides(site: DemoSite, state_dir: Path) -> dict[str, str]:
    """The only settings the live run changes: where the demo is, and a throwaway state."""
    resolver = "TWISTED_DNS_RESOLVER" if hasattr(scrapy_defaults, "TWISTED_DNS_RESOLVER") else "DNS_RESOLVER"
    return {
        resolver: "scrapy_walsh.demo.resolver.DemoResolver",
        "WALSH_ALLOW_PRIVATE_ADDRESSES": ",".join(f"{h.ip}/32" for h in HOSTS.values()),
        "WALSH_BLOCKLIST_URL": site.url("ops", BLOCKLIST_PATH),
        "WALSH_BLOCKLIST_SCHEMA_URL": site.url("ops", BLOCKLIST_SCHEMA_PATH),
        "WALSH_STATE_URI": f"sqlite:///{(state_dir / 'walsh-state.sqlite3').resolve()}",
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
    # the refusal is logged as its reasons (scrapy_walsh.refusal); a traceback ends the same way
    starts = [i for i, line in enumerate(lines) if line.startswith(error) or REFUSAL_HEADLINE in line]
    if starts:
        reasons = []
        for line in lines[starts[-1] + 1 :]:
            if not line.startswith("  - "):
                break
            reasons.append(line.strip()[2:])
        return "; ".join(reasons) or lines[starts[-1]]
    return lines[-1] if lines else "no output"


def crawl(site: DemoSite, workdir: Path, settings: Settings, spider: str | None) -> subprocess.CompletedProcess:
    attributes = f"spider_attributes({spider!r})" if spider else "{}"
    probe = workdir / "walsh_probe.py"
    probe.write_text(PROBE_MODULE.format(attributes=attributes))
    overrides = {**cmdline_settings(settings), **demo_overrides(site, workdir)}
    args = [sys.executable, "-m", "scrapy", "runspider", str(probe), "-a", f"port={site.port}"]
    for name, value in overrides.items():
        args += ["-s", f"{name}={value}"]
    cfg = closest_scrapy_cfg()
    cwd = Path(cfg).parent if cfg else Path.cwd()
    return subprocess.run(args, cwd=cwd, env=dict(os.environ), capture_output=True, text=True, timeout=TIMEOUT)


def live_report(settings: Settings, spider: str | None) -> dict[str, Any]:
    if spider:
        spider_classes(settings, spider)  # an unknown name is a usage error, before any crawl
    with DemoSite(sentinels=True) as site, tempfile.TemporaryDirectory(prefix="walsh-check-") as tmp:
        result = crawl(site, Path(tmp), settings, spider)
        records = site.requests
    findings, figures = judge(records, USER_AGENT)
    notes = [f"the probe crawl exited {result.returncode}; the demo site saw {len(records)} requests"]
    if not records:
        findings.insert(
            0, Finding("-", "configuration", FAIL, None, f"the crawl was refused at start: {refusal(result.stderr)}")
        )
    observed = [row for row in checklist(findings) if row.findings]
    report = envelope("live", settings, spider)
    report["notes"] = notes + [
        f"rows {', '.join(NOT_OBSERVED_LIVE)} are not observed live; the static check audits them"
    ]
    report["crawl_exit_status"] = result.returncode
    report["figures"] = figures
    report["rows"] = rows_json(observed)
    report["result"] = overall(observed)
    return report
