"""The end-of-crawl compliance summary: ``walsh/...`` stats and one readable log block.

Counting happens on Scrapy's downloader signals, so robots.txt, blocklist and retried requests
are counted like spider requests; a request is counted as sent when it reached a socket, and
:class:`NetworkOutcomeMiddleware` counts the ones that never did. The summary is logged at
WARNING so it survives ``-L WARNING``. docs/architecture.md ("The modules, one by one") says
what counts as sent.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import CannotResolveHostError, DownloadConnectionRefusedError, IgnoreRequest

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.outputs import typed_command
from scrapy_walsh.policy.vocabulary import Gate, GateVerdict
from scrapy_walsh.sending import admission
from scrapy_walsh.sending.request_meta import request_host
from scrapy_walsh.settings import SPEC_VERSION

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

SENT = "walsh/requests/sent"
SENT_HOST = "walsh/requests/host/"
#: Counted by the checkpoint, on the network and process-wide (the downloader also holds the next
#: request, prepared behind the checkpoint's lock, which is not on the network).
MAX_IN_FLIGHT = "walsh/requests/max_in_flight"
DENIED = "walsh/denied"
UA_OVERRIDDEN = "walsh/identity/ua_overridden"
WAIT_SECONDS = "walsh/pacing/wait_seconds"
BACKOFF_COUNT = "walsh/backoff/count"
#: Every other ``walsh/backoff/...`` figure is listed under the count.
BACKOFF_PREFIX = BACKOFF_COUNT[: -len("count")]
ROBOTS_VERDICT = "walsh/robots/verdict/"
INTERVAL = "walsh/pacing/interval/"
ROBOTS_MODE = "walsh/robots/mode"
NOT_CONNECTED = "walsh/requests/not_connected/"
FAILED = "walsh/requests/failed/"
#: Responses over their byte bound, refused or (robots.txt) read up to it, per kind.
BOUNDS_REFUSED = "walsh/bounds/refused/"
BOUNDS_CUT = "walsh/bounds/cut/"
BOUNDS_REFUSED_HEADERS = "walsh/bounds/refused_headers/"
#: Between ConnectRefusalMiddleware (560), which turns the address guard's connect-time refusal
#: into a denial, and Scrapy's RetryMiddleware (550), which would retry a failure first.
OUTCOME_PRIORITY = 555


class ComplianceSummary:
    def __init__(self, crawler: Crawler):
        assert crawler.stats is not None
        self.crawler = crawler
        self.stats = crawler.stats
        #: answers to the spider's own requests (not robots.txt, manifests or the blocklist)
        self.targets_answered = 0

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ComplianceSummary:
        ext = cls(crawler)
        crawler.signals.connect(ext.response_downloaded, signal=signals.response_downloaded)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def response_downloaded(self, response: Any, request: Request, spider: Spider) -> None:
        count_sent(self.stats, request)
        if admission.own_fetch_kind(request) is None:
            self.targets_answered += 1

    def spider_closed(self, spider: Spider, reason: str) -> None:
        self.stats.set_value("walsh/spec_version", SPEC_VERSION)
        self.stats.max_value(MAX_IN_FLIGHT, 0)  # the checkpoint counts them; 0 when nothing went out
        config = CrawlContext.of(self.crawler).config
        self.stats.set_value("walsh/identity/user_agent", config.user_agent)
        self.stats.set_value(ROBOTS_MODE, config.robots_mode)
        self.stats.set_value("walsh/usage/mode", f"{config.usage_mode} for {', '.join(config.purposes)}")
        stats = self.stats.get_stats()
        logger.log(logging.WARNING if refused(stats) else logging.INFO, "%s", render_summary(stats))
        # under fetch, shell or parse, the refusal of the one URL was said with what to do for it
        typed = typed_command.command() in typed_command.TYPED
        if not self.targets_answered and reason == "finished" and refused(stats) and not typed:
            logger.warning("%s", nothing_fetched(stats, getattr(spider, "name", "SPIDER")))


#: (stat, label, what it means and what the user can do), for requests that were not fetched
#: or items that were not emitted although no gate "denied" them in the robots/blocklist sense.
OUTCOMES: tuple[tuple[str, str, str], ...] = (
    (
        "walsh/scope/followups_dropped",
        "follow-ups",
        "dropped (R6: declared targets only); to fetch such pages, declare them: start_urls, start(), "
        "a StructuredSourceSpider's targets, or WALSH_DISCOVERY_ROUTES to read them from the site's sitemap "
        "(`scrapy walsh check` prints the line)",
    ),
    (
        "walsh/discovery/lastmod_unchanged",
        "lastmod unchanged",
        "not fetched: the site's sitemap or feed dates them no later than our last fetch (R7); "
        "`scrapy walsh plan SPIDER` lists them",
    ),
    (
        "walsh/discovery/not_routed",
        "not routed",
        "URLs the site's manifests (or the start URLs) list that no route of the spider names: not fetched "
        "(R6), the spider's choice, not a refusal; "
        "`scrapy walsh plan SPIDER` lists them",
    ),
    (
        "walsh/discovery/manifests_given_up",
        "manifests given up",
        "sitemaps, feeds or llms.txt still busy (429/503) or failing after their retries (R5; the WARNING "
        "above names each): the pages they list were not fetched; run the crawl again later",
    ),
    (
        "walsh/conditional/not_modified",
        "not modified",
        "304 (R7: nothing new since the last fetch; no callback ran); "
        "`scrapy walsh state forget URL` fetches it unconditionally",
    ),
    (
        "walsh/denied/frequency/skipped_recently_fetched",
        "recently fetched",
        "skipped (R8: WALSH_REFETCH_INTERVAL); `scrapy walsh state show URL`, `scrapy walsh state forget URL`",
    ),
    (
        "walsh/store/failed_unsent",
        "store failed",
        "requests not sent: the state store failed and the crawl stopped (the rest of the queue was not "
        "sent either); fix the store (disk space, the file) and run the crawl again",
    ),
    (
        "walsh/outputs/kept",
        "items kept",
        "an output could not take them (the ERROR above names it): kept in the state store; the next run "
        "delivers them without fetching their pages again",
    ),
    (
        "walsh/outputs/not_kept",
        "items not kept",
        "an output could not take them and the state store could not keep them: their pages are left "
        "unmarked, so the next run fetches them again",
    ),
    (
        "walsh/items/content_added",
        "content added",
        "items a project pipeline grew past the R6 bounds: dropped after every pipeline, so the feed does not "
        "get them although the project's pipelines saw them; make the pipeline add metadata only",
    ),
    (
        "walsh/dedup/dropped",
        "items dropped",
        "had the dedup key of an item this spider emitted in this crawl or an earlier one (R7 dedup); "
        "`scrapy walsh state forget --spider NAME` to emit them again",
    ),
    (
        "walsh/dedup/shared_key",
        "shared dedup key",
        "of them had the key of another item of this crawl (R7 dedup: several items of one page share "
        "it); set WALSH_DEDUP_KEY to a field that tells them apart",
    ),
)


#: Outcomes the spider chose, not refusals: a URL its routes do not name (a listing page, an image
#: a sitemap lists) is not one of its pages. Counted in the summary; no reason for a WARNING.
CHOSEN = frozenset({"walsh/discovery/not_routed"})


def refused(stats: Mapping[str, Any]) -> bool:
    """True when the crawl refused something (a request denied, dropped or skipped, an item
    dropped): the summary is then logged at WARNING, else at INFO."""
    return bool(
        stats.get(DENIED)
        or stats.get("walsh/items/content_rejected")
        or any(stats.get(key) for key, _, _ in OUTCOMES if key not in CHOSEN)
    )


def nothing_fetched(stats: Mapping[str, Any], spider: str) -> str:
    """The one line for a crawl that fetched no target because rules refused or skipped them all."""
    why = [
        f"{key[len(DENIED) + 1 :]} {n}"
        for key, n in sorted(stats.items())
        if key.startswith(DENIED + "/") and key.count("/") == 3 and n
    ]
    why += [f"{label} {stats[key]}" for key, label, _ in OUTCOMES if stats.get(key) and not key.startswith(DENIED)]
    return (
        f"no declared target was fetched: every one was refused or skipped by a rule ({', '.join(why)}). "
        f"`scrapy walsh plan {spider}` lists each target with its reason; after a recent run, "
        f"`scrapy walsh state forget --spider {spider}` fetches them again"
    )


def _what_you_can_do(stats: Mapping[str, Any]) -> list[str]:
    return [f"  {label:<17} {stats[key]} {hint}" for key, label, hint in OUTCOMES if stats.get(key)]


def count_sent(stats: Any, request: Request) -> None:
    stats.inc_value(SENT)
    stats.inc_value(SENT_HOST + (request_host(request) or "(none)"))


#: A download that failed before any byte left: nothing reached the server.
NOT_CONNECTED_ERRORS: tuple[tuple[str, tuple[type[BaseException], ...]], ...] = (
    ("dns", (CannotResolveHostError,)),
    ("refused", (DownloadConnectionRefusedError,)),
)


def _not_connected(exception: BaseException) -> str | None:
    """``dns`` / ``refused`` for a failure before connecting (Scrapy's exception or its cause)."""
    from twisted.internet import error

    seen: BaseException | None = exception
    for _ in range(5):
        if seen is None:
            return None
        for kind, types in NOT_CONNECTED_ERRORS:
            if isinstance(seen, types):
                return kind
        if isinstance(seen, error.DNSLookupError):
            return "dns"
        if isinstance(seen, error.ConnectError):  # refused, no route, connect timeout
            return "refused"
        seen = seen.__cause__ or seen.__context__
    return None


class NetworkOutcomeMiddleware:
    """Counts a failed download: not connected (nothing sent) or failed after connecting (sent)."""

    def __init__(self, crawler: Crawler):
        assert crawler.stats is not None
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> NetworkOutcomeMiddleware:
        return cls(crawler)

    def process_exception(self, request: Request, exception: Exception, spider: Spider | None = None) -> None:
        kind = _not_connected(exception)
        if kind is not None:
            self.stats.inc_value(NOT_CONNECTED + kind)
            return
        if isinstance(exception, Exception) and not isinstance(exception, IgnoreRequest):
            count_sent(self.stats, request)  # it reached a socket: a timeout, a reset, data loss
            self.stats.inc_value(FAILED + type(exception).__name__)


def render_summary(stats: Mapping[str, Any]) -> str:
    """The log block, from stats alone, so it reads the same live or from a stats dump."""
    lines = _sent_lines(stats)
    lines += _unanswered_lines(stats)
    lines += _bounds_lines(stats)
    lines.append(_blocklist_line(stats))
    lines += _robots_lines(stats)
    lines.append(_usage_line(stats))
    lines += _denied_lines(stats)
    lines += _what_you_can_do(stats)
    if stats.get("walsh/outputs/redelivered"):
        lines.append(
            f"  items redelivered {stats['walsh/outputs/redelivered']} kept by an earlier run whose output "
            "failed, delivered now"
        )
    lines += _server_errors(stats)
    lines += _callback_errors(stats)
    lines += _pacing_lines(stats)
    return "\n".join(lines)


def _sent_lines(stats: Mapping[str, Any]) -> list[str]:
    """The heading, the identity, and the requests sent to each host (busiest first)."""
    hosts = sorted(
        ((key[len(SENT_HOST) :], n) for key, n in stats.items() if key.startswith(SENT_HOST)),
        key=lambda item: (-item[1], item[0]),
    )
    lines = [
        f"scrapy_walsh compliance summary ({stats.get('walsh/spec_version', SPEC_VERSION)})",
        f"  identity          {stats.get('walsh/identity/user_agent', '?')}",
        f"  UA overrides      {stats.get(UA_OVERRIDDEN, 0)}",
        f"  requests sent     {stats.get(SENT, 0)} to {len(hosts)} host(s), "
        f"at most {stats.get(MAX_IN_FLIGHT, 0)} in flight",
    ]
    lines += [
        f"      {n:>5}  {host}" + (f" (every {stats[INTERVAL + host]:g} s or more)" if INTERVAL + host in stats else "")
        for host, n in hosts
    ]
    return lines


def _unanswered_lines(stats: Mapping[str, Any]) -> list[str]:
    """Requests that never connected (nothing sent), and those that failed after connecting."""
    lines = []
    not_connected = sorted((k[len(NOT_CONNECTED) :], n) for k, n in stats.items() if k.startswith(NOT_CONNECTED))
    if not_connected:
        lines.append(
            f"  not connected     {sum(n for _, n in not_connected)}: nothing was sent "
            f"({', '.join(f'{kind}: {n}' for kind, n in not_connected)})"
        )
    failed = sorted((k[len(FAILED) :], n) for k, n in stats.items() if k.startswith(FAILED))
    if failed:
        lines.append(
            f"  failed            {sum(n for _, n in failed)} after connecting (counted as sent): "
            + ", ".join(f"{kind}: {n}" for kind, n in failed)
        )
    return lines


def _blocklist_line(stats: Mapping[str, Any]) -> str:
    """Where the operator's blocklist came from and how many entries it has."""
    return (
        f"  blocklist         {stats.get('walsh/blocklist/source', 'not consulted')}, "
        f"{stats.get('walsh/blocklist/entries', 0)} entries "
        f"(schema: {stats.get('walsh/blocklist/schema', 'bundled')}, "
        f"failed fetches: {stats.get('walsh/blocklist/fetch_failed', 0)})"
    )


def _robots_lines(stats: Mapping[str, Any]) -> list[str]:
    """robots.txt: the mode, how each was read, and the count of each verdict."""
    mode = stats.get(ROBOTS_MODE, "respect")
    lines = [
        f"  robots.txt        mode {mode}{'' if mode == 'respect' else ' (R2 NOT ENFORCED)'}; "
        f"{stats.get('walsh/robots/fetched', 0)} fetched, "
        f"{stats.get('walsh/robots/cache_hit', 0)} from the store, "
        f"{stats.get('walsh/robots/unreachable', 0)} unreachable"
    ]
    lines += [
        f"      {n:>5}  {verdict}"
        for verdict, n in sorted(
            (key[len(ROBOTS_VERDICT) :], n) for key, n in stats.items() if key.startswith(ROBOTS_VERDICT)
        )
    ]
    return lines


def _denied_lines(stats: Mapping[str, Any]) -> list[str]:
    """The requests denied, and how many by each gate and verdict."""
    denials = sorted(
        (key[len(DENIED) + 1 :], n) for key, n in stats.items() if key.startswith(DENIED + "/") and key.count("/") == 3
    )
    return [f"  denied            {stats.get(DENIED, 0)}"] + [f"      {n:>5}  {what}" for what, n in denials]


def _pacing_lines(stats: Mapping[str, Any]) -> list[str]:
    """The time spent waiting for politeness, the hosts skipped for their Crawl-delay, the backoffs."""
    wait = stats.get(WAIT_SECONDS)
    backoffs = sorted((key[len(BACKOFF_PREFIX) :], n) for key, n in stats.items() if key.startswith(BACKOFF_PREFIX))
    lines = [
        "  politeness wait   " + f"{wait or 0.0:.1f} s ({stats.get('walsh/pacing/requeued', 0)} requests handed back "
        "to the queue for a host ready sooner)"
        + (
            f"; {stats['walsh/pacing/capped_hosts']} host(s) skipped: Crawl-delay over WALSH_MAX_CRAWL_DELAY"
            if stats.get("walsh/pacing/capped_hosts")
            else ""
        )
    ]
    lines.append(f"  backoffs          {stats.get(BACKOFF_COUNT, 0)} (Scrapy retries: {stats.get('retry/count', 0)})")
    lines += [f"      {n:>5}  {what}" for what, n in backoffs if what != "count"]
    return lines


def _bounds_lines(stats: Mapping[str, Any]) -> list[str]:
    """Bodies over their bound after decompression, per kind of fetch."""
    lines = []
    counted = (
        "; the targets count as fetched (R8): `scrapy walsh state show` lists them"
        if stats.get("walsh/frequency/refused")
        else ""
    )
    body_refused = "refused over its bound (WALSH_MAX_BODY_BYTES, or the fetch's own)" + counted
    headers_refused = "refused over its bound (2,000 lines or 256 KiB of headers)" + counted
    for prefix, label, what in (
        (BOUNDS_REFUSED, "body bounds  ", body_refused),
        (BOUNDS_CUT, "body bounds  ", "read up to its bound, the rest not read"),
        (BOUNDS_REFUSED_HEADERS, "header bounds", headers_refused),
    ):
        kinds = sorted((k[len(prefix) :], n) for k, n in stats.items() if k.startswith(prefix))
        if kinds:
            lines.append(
                f"  {label}     {sum(n for _, n in kinds)} {what}: " + ", ".join(f"{kind}: {n}" for kind, n in kinds)
            )
    return lines


def _server_errors(stats: Mapping[str, Any]) -> list[str]:
    """Targets whose final answer was a 5xx count as fetched (R8); say which."""
    return _listed(
        stats,
        "walsh/frequency/server_error",
        "walsh/frequency/server_error_urls",
        "  server errors     {count} target(s) answered 5xx after the retries: counted as fetched (R8); "
        "`scrapy walsh state show` lists them, `scrapy walsh state forget URL` fetches one again",
    )


def _callback_errors(stats: Mapping[str, Any]) -> list[str]:
    """Targets whose callback raised count as fetched (R8: the server was hit): each with the
    command that fetches it again once the spider is fixed."""
    return _listed(
        stats,
        "walsh/frequency/callback_error",
        "walsh/frequency/callback_error_urls",
        "  callback errors   {count} page(s) whose callback raised (the items it yielded before were "
        "delivered): counted as fetched (R8); once the spider is fixed, fetch each again with",
        command="scrapy walsh state forget ",
    )


def _listed(stats: Mapping[str, Any], count_key: str, urls_key: str, header: str, command: str = "") -> list[str]:
    count = stats.get(count_key)
    if not count:
        return []
    listed = stats.get(urls_key) or []
    more = count - len(listed)
    return [
        header.format(count=count),
        *(f"      {command}{line}" for line in listed),
        *([f"      ... and {more} more (`scrapy walsh state show` lists them all)"] if more > 0 else []),
    ]


def _usage_line(stats: Mapping[str, Any]) -> str:
    """The usage mode and purposes, and what sites reserved of them."""
    reserved = sorted((k.rsplit("/", 1)[1], n) for k, n in stats.items() if k.startswith("walsh/usage/reserved/"))
    return (
        f"  usage preferences {stats.get('walsh/usage/mode', 'report')}: "
        f"{stats.get('walsh/usage/decided', 0)} responses judged, "
        f"reserved: {', '.join(f'{p} {n}' for p, n in reserved) or 'none'}; "
        f"{stats.get('walsh/usage/items_dropped', 0)} items dropped, "
        f"{stats.get(f'walsh/denied/{Gate.USAGE}/{GateVerdict.USAGE_RESERVED}', 0)} targets not fetched"
    )
