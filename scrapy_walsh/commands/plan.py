"""``scrapy walsh plan SPIDER``: every target a crawl would fetch, every skip with its reason, and
the time the pacing bound gives for the whole crawl.

The plan is the crawl in explain's dry run: each target meets the add-on's own gates and the
checkpoint, which sends it nothing, so the plan and the crawl cannot disagree. Targets skip the
scheduler and the scraper, which decide nothing. docs/plan.md says how, and what each exit status means.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from scrapy import Request, signals
from twisted.python.failure import Failure

from scrapy_walsh.commands.explain import crawl_settings
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.discovery.manifests import Discovery, DiscoveryMiddleware
from scrapy_walsh.outputs import made_by
from scrapy_walsh.policy.hostkey import url_host
from scrapy_walsh.policy.pacing import crawl_duration
from scrapy_walsh.sending.checkpoint import NotSent
from scrapy_walsh.sending.pacer import SharedPacer

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from scrapy.crawler import Crawler
    from scrapy.settings import Settings

HELP = "list the targets a crawl of SPIDER would fetch and skip (with reasons) and its time; sends no target"
SYNTAX = "SPIDER [-a NAME=VALUE ...] [--json]"
#: Between the discovery middleware (995) and the R6 gate (990): it sees every target, declared after.
PRIORITY = 993
#: The evaluator's, at most: closest to the engine, below every spider middleware of the crawl.
EVALUATOR_PRIORITY = 0
#: The reason a skip is listed under, by the gate that refused it.
REASONS: Mapping[str, str] = MappingProxyType(
    {
        "robots": "robots.txt",
        "blocklist": "blocklist",
        "frequency": "R8",
        "scope": "scope",
        "address": "address rule",
        "admission": "scope",
        "usage": "usage preferences",
        "backoff": "backoff",
        "pacing": "pacing",
    }
)
#: Discovery's own skips, by what it recorded.
DISCOVERY_REASONS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "not_routed": ("scope", "no route of the spider names it (R6)"),
        "other_host": ("scope", "listed by another host's manifest"),
        "unsafe_url": ("scope", "not an http(s) URL, or parsers read different hosts in it"),
        "lastmod_unchanged": ("lastmod", "the manifest's lastmod is not newer than our last fetch (R7)"),
        "over_bound": ("scope", "past the number of targets one run takes from manifests"),
    }
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spider", metavar="SPIDER", help="a spider of this project")
    parser.add_argument(
        "-a", dest="spargs", action="append", default=[], metavar="NAME=VALUE", help="a spider argument, as for crawl"
    )
    parser.add_argument("--json", action="store_true", help="print the plan as one JSON object")


def _not_this_spider(found: Any, spider: str) -> str:
    """For a page dated no later than a fetch another spider (or a command, or another project)
    made: who, and how this spider fetches it all the same (R7 and R8 are the identity's)."""
    by = found.fetched_by
    if by is None or made_by.made_by(by, spider, made_by.project()) is not False:
        return ""
    where = "" if by.get("project") == made_by.project() or by.get("command") else " of another project"
    return (
        f"; that fetch was by {made_by.described(by)}{where}, not by spider {spider}: "
        f"`scrapy walsh state forget {found.url}` lets the next crawl fetch it"
    )


class PlanRecorder:
    """Takes each target's callback and errback for the plan: the dry run's decision lands here."""

    def __init__(self, crawler: Crawler):
        self.crawler = crawler
        self.decisions: dict[str, dict[str, Any]] = {}
        #: seconds each answer the dry run did get took (robots.txt, manifests): the crawl's likely latency
        self.latencies: list[float] = []
        crawler.signals.connect(self.response_downloaded, signal=signals.response_downloaded)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PlanRecorder:
        return cls(crawler)

    def response_downloaded(self, response: Any, request: Any, spider: Any = None) -> None:
        latency = request.meta.get("download_latency")
        if isinstance(latency, float):
            self.latencies.append(latency)

    async def process_start(self, start: AsyncIterator[Any]) -> AsyncIterator[Any]:
        async for entry in start:
            if hasattr(entry, "errback") and hasattr(entry, "url"):
                callback = getattr(entry.callback, "__name__", None) or "parse"
                # set on the request itself: ``replace`` builds a second one, and a Request's URL
                # is made safe (w3lib, ~50 us for a 1 KB URL) each time one is built
                entry.callback, entry.errback, entry.dont_filter = self.sent, self.decided, True
                entry.cb_kwargs.clear()
                entry.meta["walsh_plan_callback"] = callback
            yield entry

    def sent(self, response: Any) -> None:  # never called: the checkpoint sends no target in a dry run
        raise AssertionError(f"plan's dry run sent {response.url}")

    def decided(self, failure: Any) -> None:
        request, exc = failure.request, failure.value
        url = request.url
        if isinstance(exc, NotSent):
            self.decisions[url] = {"url": url, "decision": "fetch", "callback": request.meta.get("walsh_plan_callback")}
            return
        gate = getattr(exc, "gate", None)
        self.decisions[url] = {
            "url": url,
            "decision": "skip",
            "reason": REASONS.get(str(gate), str(gate)) if gate else type(exc).__name__,
            "verdict": getattr(exc, "verdict", None),
            "detail": str(getattr(exc, "reason", exc))[:300],
        }


class TargetEvaluator:
    """Closest to the engine: each target the recorder took, as the engine would receive it, meets
    the crawl's own downloader middlewares (Scrapy's manager, the same instances, the gates among
    them) and the checkpoint, and its decision goes to the recorder's errback.

    The scheduler, the engine's and downloader's slots and the scraper are left out: in a dry run
    they only order and space targets that are never sent (most of a target's CPU time). What the
    middlewares return for a target (a request to try again) goes to the engine, as after any
    download. A crawl that is stopping takes no further target."""

    def __init__(self, crawler: Crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> TargetEvaluator:
        return cls(crawler)

    async def process_start(self, start: AsyncIterator[Any]) -> AsyncIterator[Any]:
        recorder = self.crawler.get_spider_middleware(PlanRecorder)
        context = CrawlContext.of(self.crawler)
        async for entry in start:
            if context.stopped is not None or not self.crawler.crawling:
                return  # a fault or a stop closes the crawl: the engine would take no further target
            if isinstance(entry, Request) and recorder is not None and entry.errback == recorder.decided:
                again = await self.evaluate(entry)
                if again is None:
                    continue
                entry = again
            yield entry

    async def evaluate(self, request: Request) -> Request | None:
        """The target's decision, given to its errback; None, or the request the middlewares
        returned (the engine schedules it)."""
        assert self.crawler.engine is not None
        downloader = self.crawler.engine.downloader
        try:
            result = await downloader.middleware.download_async(downloader.handlers.download_request_async, request)
        except Exception as exc:
            failure = Failure(exc)
            failure.request = request  # type: ignore[attr-defined]  # as Scrapy's scraper hands it on
            request.errback(failure)  # type: ignore[misc]  # the recorder's, checked above
            return None
        if isinstance(result, Request):
            return result
        request.callback(result)  # type: ignore[misc]  # the recorder's: a dry run sends no target
        return None


def plan_settings(project: Settings) -> Settings:
    settings = crawl_settings(project, offline=False)
    middlewares = dict(settings.getdict("SPIDER_MIDDLEWARES"))
    middlewares[f"{PlanRecorder.__module__}.{PlanRecorder.__qualname__}"] = PRIORITY
    lowest = min(
        (p for p in settings.get_component_priority_dict_with_base("SPIDER_MIDDLEWARES").values() if p is not None),
        default=1,
    )
    middlewares[f"{TargetEvaluator.__module__}.{TargetEvaluator.__qualname__}"] = min(EVALUATOR_PRIORITY, lowest - 1)
    settings.set("SPIDER_MIDDLEWARES", middlewares, priority="cmdline")
    settings.set("FEEDS", {}, priority="cmdline")  # nothing is emitted; no file is opened either
    # each target's decision is an errback with no output: Scrapy's scraper would start this many
    # tasks for each one (100 by default, most of a 60,000-URL plan's time)
    settings.set("CONCURRENT_ITEMS", 1, priority="cmdline")
    # Scrapy's byte counts of each request (its raw HTTP form, built per target): no plan reads them
    settings.set("DOWNLOADER_STATS", False, priority="cmdline")
    return settings


def make_plan(crawler: Crawler) -> dict[str, Any]:
    """The recorder's decisions and discovery's skips, with the pacing bound's time."""
    recorder = crawler.get_spider_middleware(PlanRecorder)
    assert recorder is not None
    entries = list(recorder.decisions.values())
    discovery = crawler.get_spider_middleware(DiscoveryMiddleware)
    manifests: Counter[str] = Counter()
    given_up: list[dict[str, str]] = []
    reader = discovery.discovery if discovery is not None else None
    if reader is not None:
        given_up = [{"url": url, "why": why} for url, why in reader.given_up]
        for found in reader.outcomes:
            if found.skipped is not None and found.skipped in DISCOVERY_REASONS:
                reason, detail = DISCOVERY_REASONS[found.skipped]
                detail += _not_this_spider(found, crawler.spidercls.name)
                entries.append(
                    {"url": found.url, "decision": "skip", "reason": reason, "verdict": found.skipped, "detail": detail}
                )
        manifests.update(+reader.manifests_read)  # those sent: a refused one is no request
    fetch = [e for e in entries if e["decision"] == "fetch"]
    per_host = Counter(url_host(e["url"]) for e in fetch) + manifests
    pacer = CrawlContext.of(crawler).get(SharedPacer).pacer
    hosts = {host: {"requests": n, "interval": round(pacer.interval(host), 3)} for host, n in sorted(per_host.items())}
    # each request costs its answer's time and the pacer's margin on top of its host's interval
    latency = statistics.median(recorder.latencies) if recorder.latencies else 0.0
    per_request = latency + pacer.margin
    seconds = crawl_duration(((int(h["requests"]), float(h["interval"])) for h in hosts.values()), per_request)
    skips = Counter(e["reason"] for e in entries if e["decision"] == "skip")
    return {
        "spider": crawler.spidercls.name,
        "why_nothing": None if fetch else why_nothing(entries, reader, skips, crawler),
        "fetch": sorted(fetch, key=lambda e: e["url"]),
        "skip": sorted((e for e in entries if e["decision"] == "skip"), key=lambda e: (e["reason"], e["url"])),
        "skipped_by_reason": dict(skips),
        "hosts": hosts,
        "seconds": round(seconds, 1),
        "per_request_seconds": round(per_request, 3),
        "manifests_given_up": given_up,
    }


#: The skips that mean "fetched recently": R8's interval, or a manifest's lastmod no newer than our fetch.
RECENT = frozenset({"R8", "lastmod"})


def why_nothing(
    entries: list[dict[str, Any]], discovery: Discovery | None, skips: Counter[str], crawler: Crawler
) -> str:
    """Why a plan has no target, in a line or two: a refused manifest (and by what), every target
    fetched recently, the gate that refused every target, or nothing routed (and what the
    manifests listed that no route names)."""
    unread = discovery.unread if discovery is not None else []
    refused = [(url, REASONS.get(str(gate), str(gate))) for url, _, gate in unread if gate]
    lines = []
    if refused:
        more = f" (and {len(refused) - 3} more)" if len(refused) > 3 else ""
        lines.append("manifest refused: " + "; ".join(f"{url} by {by}" for url, by in refused[:3]) + more)
    elif unread:
        more = f" (and {len(unread) - 1} more)" if len(unread) > 1 else ""
        lines.append(f"manifest not read: {unread[0][0]} ({unread[0][1]}){more}")
    unrouted = [e["url"] for e in entries if e.get("verdict") == "not_routed"]
    gates = skips.copy()
    gates["scope"] -= len(unrouted)
    counts = ", ".join(f"{r} {n}" for r, n in sorted((+gates).items()))
    if +gates and set(+gates) <= RECENT:
        interval = CrawlContext.of(crawler).config.refetch_interval
        unchanged = " or is dated by its manifest no later than that fetch" if "lastmod" in gates else ""
        lines.append(
            f"every target was fetched within WALSH_REFETCH_INTERVAL{unchanged} ({interval:g} s; {counts}): "
            f"`scrapy walsh state forget --spider {crawler.spidercls.name}` lets the next crawl fetch them"
        )
    elif +gates:
        lines.append("every target was refused: " + counts)
    if unrouted:
        shown = ", ".join(unrouted[:2]) + (", ..." if len(unrouted) > 2 else "")
        lines.append(f"nothing routed: {len(unrouted)} URL(s) listed that no route of the spider names ({shown})")
    if not lines:
        lines.append("no target: neither the spider's start nor a manifest listed a URL")
    return "\n".join(lines[:2])


def render(plan: dict[str, Any]) -> str:
    lines = [f"plan for spider {plan['spider']} (a dry run: no target was sent)"]
    lines += [f"  fetch  {e['url']}" + (f"  -> {e['callback']}" if e.get("callback") else "") for e in plan["fetch"]]
    lines += [f"  skip   {e['url']}  {e['reason']}: {e['verdict'] or ''} ({e['detail']})" for e in plan["skip"]]
    by_reason = ", ".join(f"{reason} {n}" for reason, n in sorted(plan["skipped_by_reason"].items()))
    lines.append(
        f"{len(plan['fetch'])} to fetch, {len(plan['skip'])} skipped" + (f" ({by_reason})" if by_reason else "")
    )
    if given_up := plan["manifests_given_up"]:
        lines.append(
            f"{len(given_up)} manifest{'s' if len(given_up) > 1 else ''} given up: "
            + ", ".join(f"{e['url']} ({e['why']})" for e in given_up)
            + "; the pages they list are not in this plan"
        )
    if plan.get("why_nothing"):
        lines += [f"why nothing: {line}" for line in plan["why_nothing"].splitlines()]
    lines.append(
        f"time by the pacing bound: {plan['seconds']:.1f} s "
        f"(each request {plan['per_request_seconds'] * 1000:.0f} ms on the wire, as the dry run's answers took)"
    )
    lines += [
        f"  {host}: {h['requests']} request(s), one every {h['interval']:g} s or more"
        for host, h in plan["hosts"].items()
    ]
    return "\n".join(lines)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from scrapy.crawler import CrawlerProcess

    from scrapy_walsh.addon import Addon
    from scrapy_walsh.outputs.clean_refusal import refusal_reported

    project = plan_settings(settings)
    try:
        Addon().update_settings(project.copy())  # the crawl's own audit, before anything starts
    except ValueError as exc:
        print(f"error: these settings would not start a crawl, so there is nothing to plan:\n{exc}", file=sys.stderr)
        return 2
    process = CrawlerProcess(project)
    try:
        crawler = process.create_crawler(args.spider)
    except KeyError:
        print(f"error: no spider named {args.spider!r} in this project", file=sys.stderr)
        return 1
    spargs = dict(arg.split("=", 1) for arg in args.spargs if "=" in arg)
    CrawlContext.of(crawler).explain(offline=False)
    process.crawl(crawler, **spargs).addErrback(refusal_reported)  # a refusal was said once
    process.start()
    if process.bootstrap_failed:
        # refused at start (a second store of the identity), or stopped (its start() raised): said once, no plan
        return 1
    plan = make_plan(crawler)
    print(json.dumps(plan, indent=2) if args.json else render(plan))
    return 0
