"""``scrapy walsh explain URL``: the gate-by-gate decision for one URL, with its reasons.

It asks the crawl itself: a one-request crawl of ``URL`` through the add-on's own components,
in a dry run (:meth:`scrapy_walsh.context.CrawlContext.explain`), so no step has a second
copy here. This module holds the arguments and that crawl; ``explain_sections`` reads what
the crawl decided, ``explain_render`` writes it for people. docs/command-explain.md says why.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import scrapy
from scrapy.resolver import CachingThreadedResolver
from scrapy.settings import SETTINGS_PRIORITIES
from twisted.internet import defer
from twisted.internet.error import DNSLookupError

from scrapy_walsh.commands.explain_render import render
from scrapy_walsh.commands.explain_sections import describe, gate_of
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.middlewares.blocklist import BlocklistMiddleware
from scrapy_walsh.middlewares.robots_gate import RobotsMiddleware
from scrapy_walsh.policy.addresses import parse_ip
from scrapy_walsh.policy.blocklist import Blocklist, InvalidBlocklist
from scrapy_walsh.policy.gates import AVAILABLE, OriginRobots, origin_of
from scrapy_walsh.policy.hostkey import url_problem
from scrapy_walsh.policy.robots import RobotsTxt

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from scrapy.settings import Settings

HELP = "show the gate-by-gate decision for one URL: blocklist, robots.txt group and line, pace"
SYNTAX = "URL [--robots-file F] [--blocklist-file F] [--offline] [--json]"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", metavar="URL", help="an absolute http(s) URL")
    parser.add_argument("--robots-file", metavar="F", help="read this robots.txt instead of fetching the origin's")
    parser.add_argument("--blocklist-file", metavar="F", help="read this blocklist instead of WALSH_BLOCKLIST_URL")
    parser.add_argument(
        "--offline", action="store_true", help="send nothing: use the given files and the state store's copies only"
    )
    parser.add_argument("--json", action="store_true", help="print the explanation as one JSON object")


def _demo_names() -> dict[str, str]:
    """The demo site's names and addresses, when its package is importable (a checkout): none else."""
    try:
        from demo_site.hosts import BY_NAME
        from demo_site.resolver import LOOPBACK_NAMES
    except ImportError:
        return {}
    return {**{name: host.ip for name, host in BY_NAME.items()}, **LOOPBACK_NAMES}


class OfflineResolver(CachingThreadedResolver):
    """``--offline``: IP literals and the demo site's table only; no name is looked up."""

    def getHostByName(self, name: str, timeout: Sequence[int] = ()) -> defer.Deferred[str]:  # noqa: N802 - Twisted's
        key = name.lower().rstrip(".")
        if parse_ip(key) is not None:
            return super().getHostByName(name, timeout)
        if (address := _demo_names().get(key)) is not None:
            return defer.succeed(address)
        return defer.fail(DNSLookupError(f"{name}: not resolved (--offline)"))


# --------------------------------------------------------------------- the one-request crawl


class ExplainSpider(scrapy.Spider):
    """Declares ``url`` and hands it to the gates; the outcome is written into ``report``."""

    name = "walsh-explain"
    walsh_command_spider = True  # the URL typed: discovery never applies (discovery.COMMAND_SPIDER)

    def __init__(self, url: str, report: dict[str, Any], files: dict[str, Any], offline: bool, **kwargs: Any):
        super().__init__(**kwargs)
        self.url, self.report, self.files, self.offline = url, report, files, offline

    async def start(self) -> AsyncIterator[scrapy.Request]:
        if "robots" in self.files:  # the crawl's robots gate reads the file as this origin's robots.txt
            origin = origin_of(self.url)
            robots = RobotsTxt.parse(self.files["robots"])
            known = OriginRobots(origin, AVAILABLE, time.time(), 200, robots=robots, source="file")
            gate_of(self.crawler, RobotsMiddleware).know(known)
        if "blocklist" in self.files:  # and the operator's list as the fetched one, not refreshed
            gate_of(self.crawler, BlocklistMiddleware).adopt_given(self.files["blocklist"])
        yield scrapy.Request(self.url, callback=self.sent, errback=self.decided, dont_filter=True)

    def sent(self, response: Any) -> None:  # never called: the checkpoint sends no target in a dry run
        raise AssertionError(f"explain's dry run sent {response.url}")

    def decided(self, failure: Any) -> None:
        self.report.update(describe(self.crawler, self.url, failure.value, failure.request, self.files, self.offline))


def crawl_settings(project: Settings, offline: bool) -> Settings:
    """The project's settings with the add-on, quiet (the report is the output)."""
    settings = project.copy()
    addons = dict(settings.getdict("ADDONS"))
    if not any(str(getattr(k, "__qualname__", k)).endswith("Addon") and "scrapy_walsh" in str(k) for k in addons):
        addons["scrapy_walsh.Addon"] = 500
        settings.set("ADDONS", addons, priority="command")
    cmdline = SETTINGS_PRIORITIES["cmdline"]
    if (settings.getpriority("LOG_LEVEL") or 0) < cmdline:  # -L / --loglevel still win
        settings.set("LOG_LEVEL", "ERROR", priority="cmdline")
    settings.set("LOGSTATS_INTERVAL", 0, priority="cmdline")
    settings.set("TELNETCONSOLE_ENABLED", False, priority="cmdline")
    if offline:
        for name in ("TWISTED_DNS_RESOLVER", "DNS_RESOLVER"):
            settings.set(name, f"{OfflineResolver.__module__}.{OfflineResolver.__qualname__}", priority="cmdline")
    return settings


def run(args: argparse.Namespace, settings: Settings) -> int:
    from scrapy.crawler import CrawlerProcess

    from scrapy_walsh.addon import Addon
    from scrapy_walsh.outputs.clean_refusal import refusal_reported

    if problem := url_problem(args.url):
        print(f"error: {problem}", file=sys.stderr)
        return 1
    files: dict[str, Any] = {}
    try:
        if args.robots_file:
            files.update(robots=Path(args.robots_file).read_bytes(), robots_path=args.robots_file)
        if args.blocklist_file:
            listed = Blocklist.from_document(Path(args.blocklist_file).read_bytes())
            files.update(blocklist=listed, blocklist_path=args.blocklist_file)
    except (OSError, InvalidBlocklist) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    project = crawl_settings(settings, args.offline)
    try:
        Addon().update_settings(project.copy())  # the crawl's own audit, before anything starts
    except ValueError as exc:
        print(f"error: these settings would not start a crawl, so there is nothing to explain:\n{exc}", file=sys.stderr)
        return 2
    report: dict[str, Any] = {}
    process = CrawlerProcess(project)
    crawler = process.create_crawler(ExplainSpider)
    CrawlContext.of(crawler).explain(offline=args.offline)
    crawl = process.crawl(crawler, url=args.url, report=report, files=files, offline=args.offline)
    crawl.addErrback(refusal_reported)  # a refusal was said once
    process.start()
    if not report:
        print(f"error: the crawl of {args.url} ended without reaching a decision (see the log above)", file=sys.stderr)
        return 1
    report["explained_at"] = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0
