"""Helpers for end-to-end tests: run real crawls, read what the demo server saw."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: Server-side clock tolerance for spacing assertions (the issue allows at most 20 ms).
CLOCK_TOLERANCE = 0.02


def run_scrapy(args, cwd, env=None, timeout=180) -> subprocess.CompletedProcess:
    """``python -m scrapy ARGS`` in ``cwd``; output captured as text."""
    full_env = dict(os.environ, **(env or {}))
    full_env.pop("SCRAPY_SETTINGS_MODULE", None)
    return subprocess.run(
        [sys.executable, "-m", "scrapy", *args],
        cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout,
    )


def add_addon_line(project: Path, extra: str = "") -> Path:
    """Turn the template's ``ADDONS = {}`` into the one line users add, plus ``extra``."""
    settings = project / "plainproj" / "settings.py"
    text = settings.read_text()
    assert "ADDONS = {}" in text
    text = text.replace("ADDONS = {}", 'ADDONS = {"scrapy_walsh.Addon": 500}')
    settings.write_text(text + extra)
    return settings


def write_spider(project: Path, name: str, source: str) -> None:
    (project / "plainproj" / "spiders" / f"{name}.py").write_text(source)


def gaps_by_host(records) -> dict[str, list[float]]:
    """Start-to-start gaps between consecutive requests to each host, server clock."""
    by_host = defaultdict(list)
    for record in records:
        by_host[record["host"]].append(record["mono"])
    return {
        host: [b - a for a, b in zip(sorted(times), sorted(times)[1:])]
        for host, times in by_host.items()
    }


def summary_value(log: str, label: str) -> str:
    """A value from the compliance summary block in a crawl log."""
    match = re.search(rf"^\s+{re.escape(label)}\s+(.+)$", log, re.MULTILINE)
    assert match, f"{label!r} not in the compliance summary:\n{log[-3000:]}"
    return match.group(1).strip()
