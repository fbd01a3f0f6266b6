"""Helpers for end-to-end tests: run real crawls, read what the demo server saw."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import scrapy_walsh

#: The repository (or the unpacked sdist): the docs, the tests, the demo site.
REPO = Path(__file__).resolve().parent.parent
#: The package under test, where it was imported from: the checkout's, or a wheel's
#: (``make test-wheels`` runs the tests from a tree without one).
PACKAGE = Path(scrapy_walsh.__file__).resolve().parent
#: Server-side clock tolerance for spacing assertions: 20 ms of timer and scheduling jitter, small
#: beside the 1 s floor it is measured against.
CLOCK_TOLERANCE = 0.02


def run_scrapy(args, cwd, env=None, timeout=180) -> subprocess.CompletedProcess:
    """``python -m scrapy ARGS`` in ``cwd``; output captured as text."""
    full_env = dict(os.environ, **(env or {}))
    full_env.pop("SCRAPY_SETTINGS_MODULE", None)
    return subprocess.run(
        [sys.executable, "-m", "scrapy", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def new_project(root: Path) -> Path:
    """``scrapy startproject plainproj`` under ``root`` (for module-scoped fixtures)."""
    made = run_scrapy(["startproject", "plainproj", str(root / "plainproj")], cwd=root)
    assert made.returncode == 0, made.stderr
    return root / "plainproj"


def demo_settings(site) -> str:
    """Settings that keep a test crawl on the demo site: its resolver, its addresses, and
    its operator blocklist instead of https://wal.sh/ (tests never leave loopback)."""
    from demo_site.hosts import BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH, HOSTS

    return f"""
from scrapy.settings import default_settings as _defaults
if hasattr(_defaults, "TWISTED_DNS_RESOLVER"):
    TWISTED_DNS_RESOLVER = "demo_site.resolver.DemoResolver"
else:
    DNS_RESOLVER = "demo_site.resolver.DemoResolver"
WALSH_ALLOW_PRIVATE_ADDRESSES = {[f"{h.ip}/32" for h in HOSTS.values()]!r}
WALSH_BLOCKLIST_URL = {site.url("ops", BLOCKLIST_PATH)!r}
WALSH_BLOCKLIST_SCHEMA_URL = {site.url("ops", BLOCKLIST_SCHEMA_PATH)!r}
"""


def add_addon_line(project: Path, extra: str = "", site=None) -> Path:
    """Turn the template's ``ADDONS = {}`` into the one line users add, plus ``extra``;
    with ``site``, also the settings that keep the crawl on that demo site."""
    settings = project / "plainproj" / "settings.py"
    text = settings.read_text()
    assert "ADDONS = {}" in text
    text = text.replace("ADDONS = {}", 'ADDONS = {"scrapy_walsh.Addon": 500}')
    settings.write_text(text + (demo_settings(site) if site is not None else "") + extra)
    return settings


def write_spider(project: Path, name: str, source: str) -> None:
    (project / "plainproj" / "spiders" / f"{name}.py").write_text(source)


def gaps_by_host(records) -> dict[str, list[float]]:
    """Start-to-start gaps between consecutive requests to each host, server clock."""
    by_host = defaultdict(list)
    for record in records:
        by_host[record["host"]].append(record["mono"])
    return {host: [b - a for a, b in zip(sorted(times), sorted(times)[1:])] for host, times in by_host.items()}


def wait_for_pages(site, count: int, process, host_key: str | None = None, timeout: float = 120) -> None:
    """Until the demo ``site`` answered ``count`` ``/page/...`` requests (of ``host_key``) while
    ``process`` (a crawl started with ``subprocess.Popen``) runs."""
    import time

    deadline = time.monotonic() + timeout
    while len(site.requests_for(host_key, prefix="/page/")) < count:
        assert time.monotonic() < deadline and process.poll() is None, "the crawl did not get going"
        time.sleep(0.02)


def summary_value(log: str, label: str) -> str:
    """A value from the compliance summary block in a crawl log."""
    match = re.search(rf"^\s+{re.escape(label)}\s+(.+)$", log, re.MULTILINE)
    assert match, f"{label!r} not in the compliance summary:\n{log[-3000:]}"
    return match.group(1).strip()


def stat(log: str, key: str, default=None):
    """A numeric or string stat from the "Dumping Scrapy stats" block of a crawl log."""
    match = re.search(rf"'{re.escape(key)}': ('[^']*'|[-\d.e]+)", log)
    if not match:
        return default
    raw = match.group(1)
    return raw.strip("'") if raw.startswith("'") else (float(raw) if "." in raw else int(raw))


def round_trips_by_kind(log: str) -> dict[str, int]:
    """A fleet crawl's ``walsh/store/round_trips/<kind>``, by kind (they add up to the total)."""
    found = {kind: int(n) for kind, n in re.findall(r"'walsh/store/round_trips/([^']+)': (\d+)", log)}
    assert sum(found.values()) == stat(log, "walsh/store/round_trips"), "every round trip has its kind"
    return found


#: A fleet crawl's own round trips, by kind, on a store it creates: the store's id (read, created,
#: read again), its clock, the blocklist's read and its two writes, the pacing ledger's and the kept
#: items' scans, the sealing key.
CRAWLS_OWN_ROUND_TRIPS = {
    "GET": 2,
    "SET NX": 1,
    "TIME": 1,
    "SCAN": 2,
    "MGET blocklist": 1,
    "SET blocklist": 2,
    "SET NX+GET admission": 1,
    "GET+SET NX blocklist,fetching": 1,  # the list's fetch claimed for the identity
    "SET+DEL fetching": 1,  # and given back
}


def timed_round_trips(log: str, by_kind: dict[str, int], answers: int, hosts: int) -> dict[str, int]:
    """Check the round trips of ``by_kind`` whose count timing decides against what bounds them,
    whatever the timing, and return the others (which the crawl's content decides) and the
    reservations. ``answers``: the crawl's answered pages; ``hosts``: its pages' hosts.

    An answer's record rides on the next round trip or is written alone by its deadline
    (``kept``: at most one per answer); a settle no reservation came to carry is written by its
    lease's end (``advance``: at most one per answer, in a crawl without pauses); a request written
    late pays a confirmation (exactly ``confirmed_late`` and ``stamped_after_write``); a
    reservation that found its slot taken sent nothing (the request reserves again); a pop reads
    each host at most once between two reservations; a request that went through the gates
    again re-reads its claim and R7's validators; the heartbeat is a cost per 5 s."""
    left = dict(by_kind)
    assert left.pop("confirm pacing", 0) == stat(log, "walsh/pacing/confirmed_late", 0) + stat(
        log, "walsh/pacing/stamped_after_write", 0
    )
    rode, alone = stat(log, "walsh/store/kept/rode"), stat(log, "walsh/store/kept/alone")
    assert rode + alone <= answers, "each answer's record is written once, riding or alone"
    assert left.pop("kept", 0) <= alone
    assert not stat(log, "walsh/backoff/count", 0), "no pause: every advance is a settle"
    assert left.pop("advance pacing", 0) <= answers
    sent = stat(log, "walsh/requests/sent")
    again = stat(log, "walsh/checkpoint/slot_taken", 0) + stat(log, "walsh/checkpoint/not_written", 0)
    reservations = left.pop("reserve pacing")
    assert reservations == sent + again, "one reservation per request sent, and one per slot found taken"
    assert left.pop("MGET pacing", 0) <= hosts * (reservations + 1)
    again += stat(log, "walsh/pacing/requeued", 0)
    again += sum(int(n) for n in re.findall(r"'walsh/checkpoint/redone/[^']+': (\d+)", log))
    assert left.pop("MGET fetched", 0) <= again and left.pop("MGET validators", 0) <= again
    assert left.pop("SET crawls") >= 1, "its registration, then a heartbeat every 5 s"
    return left


#: A spider of declared targets given on the command line (``-a urls=u1,u2``). It yields
#: one item per target: the response's verdicts, or the gate and verdict that refused it.
GATES_SPIDER = """
import scrapy


class GatesSpider(scrapy.Spider):
    name = "gates"

    async def start(self):
        # earlier targets first within a host (Scrapy's queues are LIFO among equals)
        for index, url in enumerate(self.urls.split(",")):
            yield scrapy.Request(url, errback=self.failed, dont_filter=True, priority=-index)

    def parse(self, response):
        yield {"url": response.url, "status": response.status, "walsh": response.meta.get("walsh")}

    def failed(self, failure):
        exc = failure.value
        # "target", not "url": the dedup pipeline (R7) only remembers emitted page URLs
        yield {"target": failure.request.url, "denied": getattr(exc, "gate", type(exc).__name__),
               "verdict": getattr(exc, "verdict", None), "reason": getattr(exc, "reason", str(exc)),
               "details": getattr(exc, "details", {})}
"""


def crawl_targets(project: Path, urls, *args, timeout=180):
    """Run the gates spider on ``urls``; return (completed process, items by URL)."""
    import json

    spider = project / "plainproj" / "spiders" / "gates.py"
    if not spider.exists():
        spider.write_text(GATES_SPIDER)
    out = project / "items.jsonl"
    out.unlink(missing_ok=True)
    result = run_scrapy(
        ["crawl", "gates", "-a", "urls=" + ",".join(urls), "-O", str(out), *args], cwd=project, timeout=timeout
    )
    items = {}
    if out.exists():
        for line in out.read_text().splitlines():
            item = json.loads(line)
            items[item.get("url") or item["target"]] = item
    return result, items


def docs_pointers() -> set[str]:
    """Every ``scrapy walsh docs TOPIC`` the package's messages point to: the topics its source names
    (``docs_topic("...")`` or the command spelled out) and those of the denial hints, built at import."""
    from scrapy_walsh.exceptions import _HINT_SECTIONS, HINTS

    found = set(_HINT_SECTIONS.values())
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        found |= set(re.findall(r"""docs_topic\(\s*["']([\w#-]+)["']""", text))
        found |= set(re.findall(r"scrapy walsh docs ([a-z0-9][\w#-]*)", text))
    for hint in HINTS.values():
        found |= set(re.findall(r"scrapy walsh docs ([\w#-]+)", hint))
    return found


def pyproject() -> dict:
    """The repository's pyproject.toml, read on any Python the package supports."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10: pip vendors a TOML reader
        from pip._vendor import tomli as tomllib
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
