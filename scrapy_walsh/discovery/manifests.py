"""R6 discovery: the site's own manifests declare a link-following spider's targets.

:class:`DiscoveryMiddleware` replaces the start of a ``CrawlSpider`` (any spider with ``rules``), a
``response.follow`` spider (with ``WALSH_DISCOVERY_ROUTES``) or a ``SitemapSpider``: it reads each host's manifests
(sitemaps, feeds, llms.txt) as own fetches through every gate, and yields each listed URL a
route names as a declared target, as it is read. The decision for one URL is the pure core's,
so ``scrapy walsh plan`` lists what a crawl fetches. docs/link-following-projects.md says how.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import re
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import scrapy
from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.exceptions import IgnoreRequest
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware
from scrapy.spiders import CrawlSpider, SitemapSpider

from scrapy_walsh.config import parse
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.discovery.start_guard import guarded
from scrapy_walsh.discovery.structured import read_feed
from scrapy_walsh.exceptions import FAIL, Finding, HostPaused
from scrapy_walsh.middlewares.frequency import Answers
from scrapy_walsh.middlewares.robots_gate import RobotsMiddleware
from scrapy_walsh.outputs import typed_command
from scrapy_walsh.outputs.made_by import LOOKING, fetcher
from scrapy_walsh.outputs.progress import ManifestReading
from scrapy_walsh.pipelines.dedup import UnmarkedUpdates
from scrapy_walsh.policy import feeds, llmstxt
from scrapy_walsh.policy.canonical import canonical_url
from scrapy_walsh.policy.discovery import (
    DEFAULT_KINDS,
    FEED,
    LLMS_TXT,
    MAX_MANIFESTS_PER_HOST,
    MAX_TARGETS,
    SITEMAP,
    UPDATE,
    WELL_KNOWN,
    Route,
    discovered_at,
    in_domains,
    lastmod_time,
    route_for,
    same_host,
    unchanged_since,
)
from scrapy_walsh.policy.gates import UNREACHABLE
from scrapy_walsh.policy.hostkey import url_host
from scrapy_walsh.policy.sitemaps import SITEMAPINDEX, stream_sitemap
from scrapy_walsh.policy.urls import UnsafeURL, sent_url, split
from scrapy_walsh.policy.vocabulary import Gate, Meta, Namespace
from scrapy_walsh.sending import own_fetch
from scrapy_walsh.sending.request_meta import Added, add_to_item
from scrapy_walsh.store import open_crawl_store

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from scrapy_walsh.store import StateStore

logger = logging.getLogger(__name__)

#: Closer to the spider than the R6 gate (990), so the targets it yields are declared there.
SPIDER_PRIORITY = 995
MANIFEST = "manifest"
#: When a discovered target was last answered, kept past ``WALSH_REFETCH_INTERVAL`` for the lastmod rule.
NAMESPACE = Namespace.DISCOVERED
KEEP_SECONDS = 400 * 86400.0
#: Manifests are read up to this many bytes (sitemaps.org's limit is 50 MB uncompressed; the
#: checkpoint's ``WALSH_MAX_BODY_BYTES`` bound applies first when it is lower).
MANIFEST_MAX_BYTES = 52_428_800
STATS = "walsh/discovery/"
#: A spider class with this attribute true is one of the add-on's commands (``explain``, the
#: probes): its start is what was typed, so discovery and the project's routes never apply to it.
COMMAND_SPIDER = "walsh_command_spider"
#: Discovered targets are handed to the scheduler while it holds fewer requests than this; the
#: rest wait in discovery as the URLs they are (a request in the queue is several times its URL).
WINDOW = 2_000


@dataclass
class SpiderRoutes:
    """A spider's routing, read from its class and settings: what discovery may declare for it."""

    routes: list[Route]
    #: route callback name -> what to call (a bound method, or a callable a Rule was given)
    callbacks: dict[str, Callable[..., Any]] = field(default_factory=dict)
    #: manifests the spider declares itself (a SitemapSpider's sitemap_urls), or None
    manifests: list[str] | None = None
    #: which children of a sitemap index are read (a SitemapSpider's sitemap_follow)
    follow: list[re.Pattern[str]] = field(default_factory=lambda: [re.compile("")])
    kinds: tuple[str, ...] = (SITEMAP,)
    #: rules without a callback: navigation, not needed under R6 (``check`` says so)
    navigation: list[str] = field(default_factory=list)
    #: routes whose callback the spider lacks or can't call, as (where, message): refused at start
    broken: list[tuple[str, str]] = field(default_factory=list)
    #: route callback name -> the keyword arguments its rule gives it (a CrawlSpider Rule's cb_kwargs)
    kwargs: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: rules with a callback that pick links only by where they sit on a page (``restrict_css``,
    #: ``restrict_xpaths``, ``restrict_text``), no ``allow``: as routes they name every URL (``check`` says so)
    placed: list[tuple[int, str]] = field(default_factory=list)

    def add(
        self, route: Route, callback: Any, spider: Any, source: Any, where: tuple[str, str], kwargs: Any = None
    ) -> None:
        """``route`` to ``callback`` (a name or a callable), bound on ``spider``, called with ``kwargs``
        besides the response; ``source`` (the spider or its class) is asked whether it can be called,
        ``where`` is (the setting or spider attribute that declares the route, its words) for the refusal."""
        self.routes.append(route)
        self.callbacks.setdefault(route.callback, _bind(spider, callback))  # type: ignore[arg-type]
        if kwargs:
            self.kwargs.setdefault(route.callback, dict(kwargs))
        why = _uncallable(source, callback, frozenset(self.kwargs.get(route.callback, ())))
        if why is not None:
            self.broken.append((where[0], f"{where[1]} names callback {route.callback!r}, {why}"))


def _name(callback: Any) -> str:
    return callback if isinstance(callback, str) else getattr(callback, "__name__", repr(callback))


def _bind(spider: Any, callback: Any) -> Callable[..., Any] | None:
    if spider is None:
        return None
    if isinstance(callback, str):
        found = getattr(spider, callback, None)
        return found if callable(found) else None
    bound = getattr(spider, getattr(callback, "__name__", ""), None)
    return bound if getattr(bound, "__func__", None) is callback else callback


def _uncallable(source: Any, callback: Any, given: frozenset[str] = frozenset()) -> str | None:
    """Why ``callback`` can't be called on ``source`` (a spider or its class), or None."""
    name = getattr(source, "__name__", type(source).__name__)
    if not isinstance(callback, str):
        return None if callable(callback) else f"a {type(callback).__name__}, which is not callable"
    found = getattr(source, callback, None)
    if found is None:
        return f"which {name} does not have: the targets it routes would be dropped; name a method of the spider"
    if not callable(found):
        return f"but {name}.{callback} is a {type(found).__name__}, not callable: name a method of the spider"
    needs = [name for name in _arguments_needed(source, callback) if name not in given]
    if needs:
        return (
            f"but {name}.{callback} needs {', '.join(needs)} besides the response (cb_kwargs a followed link "
            f"passed): a target discovery declares is called with the response only, so each would raise "
            f"TypeError; give {'it a default' if len(needs) == 1 else 'them defaults'} ({needs[0]}=None)"
        )
    return None


def _arguments_needed(source: Any, name: str) -> list[str]:
    """The parameters the method ``name`` of ``source`` (a spider or its class) needs besides the response."""
    method = getattr(source, name)
    try:
        params = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        return []
    if isinstance(source, type) and inspect.isfunction(inspect.getattr_static(source, name, None)):
        params = params[1:]  # read from the class: ``self`` is still there
    needed = (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.KEYWORD_ONLY,
    )
    return [p.name for p in params[1:] if p.default is p.empty and p.kind in needed]


def _pattern(pattern: Any) -> str:
    return str(getattr(pattern, "pattern", pattern))


def spider_routes(spidercls: type, settings: Any, spider: Any = None) -> SpiderRoutes | None:
    """The routing of ``spidercls`` when discovery applies to it, else None.

    ``spider`` (the instance) resolves the callbacks; without it (``check``), only names are read.
    It never applies to ``scrapy fetch``, ``shell`` or ``parse``, nor to a command's own spider
    (:data:`COMMAND_SPIDER`: ``explain``, the probes): the request is the URL a person typed, a
    declared target (R6), not one for the site's manifests to declare.
    """
    if getattr(spidercls, COMMAND_SPIDER, False) or (spider is not None and typed_command.command() in LOOKING):
        return None
    kinds: tuple[str, ...] | None = parse(settings, "WALSH_DISCOVERY")
    routes: tuple[tuple[str, str], ...] = parse(settings, "WALSH_DISCOVERY_ROUTES")
    source = spider if spider is not None else spidercls
    if issubclass(spidercls, SitemapSpider):
        rules = getattr(source, "sitemap_rules", None) or [("", "parse")]
        found = SpiderRoutes([], manifests=[str(u) for u in getattr(source, "sitemap_urls", ()) or ()])
        for pattern, callback in rules:
            route = Route(_name(callback), allow=(re.compile(pattern) if isinstance(pattern, str) else pattern,))
            where = f"spider {getattr(spidercls, 'name', spidercls.__name__)}.sitemap_rules"
            found.add(route, callback, spider, source, (where, f"the route '{_pattern(pattern)}'"))
        found.follow = [re.compile(p) if isinstance(p, str) else p for p in getattr(source, "sitemap_follow", [""])]
        return found
    if kinds is None:  # unset: a spider with rules, or routes, reads the site's sitemap
        kinds = DEFAULT_KINDS if routes or _rules(source) else ()
    if not kinds:
        return None
    found = SpiderRoutes([], kinds=kinds)
    if _rules(source) and _parses_start_urls(source):
        where = f"spider {getattr(spidercls, 'name', spidercls.__name__)}.parse_start_url"
        for url in getattr(source, "start_urls", None) or ():
            if isinstance(url, str):  # first, as Scrapy hands a start response to it before any rule
                route = Route("parse_start_url", allow=(re.compile(f"^{re.escape(url)}$"),))
                found.add(route, "parse_start_url", spider, source, (where, f"the start URL {url}"))
    if _rules(source):
        for index, rule in enumerate(_rules(source)):
            extractor = getattr(rule, "link_extractor", None)
            if rule.callback is None:
                allow = getattr(extractor, "allow_res", [])
                found.navigation.append(f"rule {index + 1} ({', '.join(p.pattern for p in allow) or 'every link'})")
                continue
            route = Route(
                _name(rule.callback),
                allow=tuple(getattr(extractor, "allow_res", ())),
                deny=tuple(getattr(extractor, "deny_res", ())),
                allow_domains=frozenset(getattr(extractor, "allow_domains", ())),
                deny_domains=frozenset(getattr(extractor, "deny_domains", ())),
                deny_extensions=frozenset(str(e).lower() for e in getattr(extractor, "deny_extensions", ()) or ()),
            )
            if not route.allow and _placed(extractor):
                found.placed.append((index + 1, route.callback))
            allow = ", ".join(_pattern(p) for p in route.allow) or "every link"
            where = f"spider {getattr(spidercls, 'name', spidercls.__name__)}.rules"
            kwargs = getattr(rule, "cb_kwargs", None)
            found.add(route, rule.callback, spider, source, (where, f"rule {index + 1} ({allow})"), kwargs)
    for pattern, callback in routes:
        route = Route(callback, allow=(re.compile(pattern),))
        found.add(route, callback, spider, source, ("WALSH_DISCOVERY_ROUTES", f"the route '{pattern}'"))
    return found


def _placed(extractor: Any) -> bool:
    """The link extractor picks links by where they sit on a page (``restrict_css`` and the like)."""
    return any(getattr(extractor, name, None) for name in ("restrict_xpaths", "restrict_text"))


def _parses_start_urls(source: Any) -> bool:
    """A CrawlSpider whose own ``parse_start_url`` yields from its start pages: those are its routes too."""
    cls = source if isinstance(source, type) else type(source)
    own = getattr(cls, "parse_start_url", None)  # getattr: a build without Scrapy types cls as `type`
    return issubclass(cls, CrawlSpider) and own is not CrawlSpider.parse_start_url


def _rules(source: Any) -> list[Any]:
    """A spider's ``rules`` (a CrawlSpider's, or any spider's that has them): its link-following routes."""
    rules = getattr(source, "rules", None)
    if (isinstance(source, type) and issubclass(source, CrawlSpider)) or isinstance(source, CrawlSpider):
        return list(rules or ())
    if not isinstance(rules, list | tuple):
        return []
    return [rule for rule in rules if hasattr(rule, "link_extractor") and hasattr(rule, "callback")]


def route_findings(routing: SpiderRoutes) -> list[Finding]:
    """A failure for each route whose callback the spider lacks or can't call (the start audit, ``check``)."""
    return [Finding("6", "R6", FAIL, where, message) for where, message in routing.broken]


@dataclass(slots=True)
class Surfaced:
    """One URL a manifest listed, and what discovery decided for it."""

    url: str
    manifest: str
    lastmod: str | None = None
    route: Route | None = None
    #: why it is not a target: ``not_routed``, ``lastmod_unchanged``, ``other_host``, ``unsafe_url``,
    #: ``over_bound``
    skipped: str | None = None
    #: its canonical form, the key of its lastmod record (set by the decision)
    key: str = ""
    #: fetched before, and its lastmod is newer: its item is delivered again, as an update (R7)
    update: bool = False
    #: who made the fetch its lastmod is not newer than (kept for plan only)
    fetched_by: dict[str, Any] | None = None


class Discovery:
    """Reads one spider's manifests through the crawler and decides what they declare."""

    def __init__(self, crawler: Crawler, routing: SpiderRoutes):
        assert crawler.stats is not None
        self.crawler = crawler
        self.stats = crawler.stats
        self.routing = routing
        self.store: StateStore = CrawlContext.of(crawler).get(open_crawl_store)
        #: a digest of each surfaced URL's key (16 bytes, not the URL: a manifest's URLs may be 2 KB each)
        self._seen: set[bytes] = set()
        self._targets = 0
        #: manifests fetched per host (``plan`` counts them in the crawl's time)
        self.manifests_read: Counter[str] = Counter()
        #: the manifests that could not be read: URL, why, and the gate that refused it (or None)
        #: (``plan`` says it when nothing is planned)
        self.unread: list[tuple[str, str, str | None]] = []
        #: (manifest, why) for each one given up after its retries, for ``plan``
        self.given_up: list[tuple[str, str]] = []
        #: the statuses a page is retried on (R5's, Scrapy's): a manifest still answering one is given up
        config = CrawlContext.of(crawler).config
        self.retried = {*config.backoff_http_codes, *(int(c) for c in crawler.settings.getlist("RETRY_HTTP_CODES"))}
        #: targets read while the scheduler was full, per origin (see :meth:`start`)
        self._waiting: dict[str, deque[Surfaced]] = {}
        #: the skipped URLs, kept for ``plan`` in a dry run only (the last :data:`MAX_TARGETS`)
        self.outcomes: deque[Surfaced] = deque(maxlen=MAX_TARGETS)
        self._keep = CrawlContext.of(crawler).dry_run
        #: how far the reading is, for the progress line
        self.reading = CrawlContext.of(crawler).get(ManifestReading)

    # ------------------------------------------------------------------ the start

    async def start(self, start: AsyncIterator[Any] | None) -> AsyncIterator[Any]:
        """The spider's start, replaced: routed start requests, then each host's discovered targets.

        Each target is yielded as soon as it is decided, while later manifests are still to be
        read: the checkpoint's process-wide lock keeps one request on the network whatever the
        downloader holds (serial per process, R4), so a target and a manifest never overlap there.
        Past :data:`WINDOW` requests in the scheduler, the targets wait here as they were read (a
        URL, not a request) and are yielded once every manifest is read, each host's in turn, as
        the scheduler makes room: a 50,000-URL sitemap is never 50,000 requests at once."""
        origins: list[str] = []
        if start is not None:
            async for entry in start:
                if not isinstance(entry, scrapy.Request):
                    yield entry  # an item from start(): not ours to judge
                    continue
                origin = _origin(entry.url)
                if origin and origin not in origins:
                    origins.append(origin)
                target = self._decide(Surfaced(entry.url, entry.url))
                if target is not None:
                    yield entry.replace(callback=self.routing.callbacks[target.callback])
        spider = self.crawler.spider
        for domain in getattr(spider, "allowed_domains", None) or ():
            # a domain a start host is, or lies under, is the offsite filter's: no other site to read
            if (
                isinstance(domain, str)
                and domain
                and not any(in_domains(split(o).hostname or "", [domain]) for o in origins)
            ):
                origins.append(f"https://{domain.lower()}")
        manifests = self._declared_manifests(origins)
        sites = list(dict.fromkeys(_origin(m) or m for m in manifests)) if manifests is not None else origins
        self.reading.reading, self.reading.sites = True, len(sites)
        for origin in sites:
            listed = [m for m in manifests if _origin(m) == origin] if manifests is not None else None
            async for found in self._host(origin, listed):
                if self._waiting or not self._room():
                    self._waiting.setdefault(origin, deque()).append(found)
                else:
                    yield self._request(found)
        self.reading.reading = False
        while self._waiting:  # each host's in turn, so the scheduler can pace the hosts side by side
            for origin in list(self._waiting):
                while not self._room():
                    await self.crawler.signals.wait_for(signals.request_reached_downloader)
                waiting = self._waiting[origin]
                yield self._request(waiting.popleft())
                if not waiting:
                    del self._waiting[origin]

    def _room(self) -> bool:
        """True while the scheduler's queues hold fewer than :data:`WINDOW` requests (with none of
        the add-on's queues, every target is handed over as it is read)."""
        return sum(len(queue) for queue in CrawlContext.of(self.crawler).queues) < WINDOW

    def _declared_manifests(self, origins: list[str]) -> list[str] | None:
        """A SitemapSpider's own manifests (robots.txt URLs among them are read for their Sitemap lines)."""
        if self.routing.manifests is None:
            return None
        return [m for m in self.routing.manifests if _origin(m)]

    async def _host(self, origin: str, listed: list[str] | None) -> AsyncIterator[Surfaced]:
        queue: deque[tuple[str, str]] = deque()
        sitemaps = await self._robots_sitemaps(origin)
        if listed is not None:  # a SitemapSpider: its own list
            for url in listed:
                if split(url).path == "/robots.txt":
                    queue.extend((SITEMAP, s) for s in sitemaps)
                else:
                    queue.append((SITEMAP, url))
        else:
            for kind in self.routing.kinds:
                named = [s for s in sitemaps if (kind == FEED) == feeds.looks_like_feed(s)] if kind != LLMS_TXT else []
                queue.extend((kind, url) for url in (named or [origin + path for path in WELL_KNOWN[kind]]))
        read: set[str] = set()
        earlier = self.reading.known
        while queue and len(read) < MAX_MANIFESTS_PER_HOST:
            self.reading.known = earlier + len(read) + len(queue)
            kind, listed_url = queue.popleft()
            if not same_host(listed_url, origin):
                continue
            url = sent_url(listed_url)  # fetched as the request it becomes (same_host read it so)
            if url in read:
                continue
            read.add(url)
            response = await self._fetch(url)
            self.reading.read += 1
            if response is None:
                continue
            for child in self._children(kind, url, response, queue):
                if self._decide(child) is not None:
                    yield child
        self.reading.known = earlier + len(read)
        if queue:
            self.stats.inc_value(STATS + "manifests_over_bound", len(queue))
            logger.warning(
                "discovery: %s lists more than %d manifests; %d were not read",
                origin,
                MAX_MANIFESTS_PER_HOST,
                len(queue),
                extra={"spider": self.crawler.spider},
            )

    async def _robots_sitemaps(self, origin: str) -> list[str]:
        """The origin's robots.txt ``Sitemap:`` lines, as the robots gate reads them (fetched once)."""
        gate = self.crawler.get_downloader_middleware(RobotsMiddleware)
        if gate is None:
            return []
        robots = await gate.robots_for(scrapy.Request(origin + "/robots.txt"))
        if robots.outcome == UNREACHABLE:  # refused (the address rule, the blocklist) or no answer
            gate_name = next((g for g in (Gate.ADDRESS, Gate.BLOCKLIST) if str(g) in robots.reason.lower()), None)
            self.unread.append((origin + "/robots.txt", f"{robots.outcome}: {robots.reason}", gate_name))
        return [u for u in robots.sitemaps if isinstance(u, str) and len(u) <= 2000]

    async def _fetch(self, url: str) -> Response | None:
        """The manifest's answer when 2xx, else None. Retried as a page is (R5's backoff after a
        429/503, Scrapy's retries); what is still not read after them is given up, said and counted."""
        self.stats.inc_value(STATS + "manifests_requested")
        self.manifests_read[url_host(url)] += 1
        try:
            response = await own_fetch.fetch(self.crawler, url, MANIFEST, download_maxsize=MANIFEST_MAX_BYTES)
        except HostPaused as exc:  # R5: its host asked for a rest beyond WALSH_BACKOFF_MAX_DELAY
            self.manifests_read[url_host(url)] -= 1  # not sent: no request (plan counts the others)
            self._unreadable(url, f"not sent: {exc.reason}", given_up=True)
            return None
        except IgnoreRequest as exc:  # a gate refused it: robots.txt, the blocklist, the address rule
            self.manifests_read[url_host(url)] -= 1
            self._unreadable(url, f"refused: {exc}", gate=str(getattr(exc, "gate", "") or "") or None)
            return None
        except Exception as exc:  # noqa: BLE001 - the network's failure is this manifest's, not the crawl's
            self._unreadable(url, f"{type(exc).__name__}: {exc}", given_up=True)
            return None
        if not 200 <= response.status < 300:
            if response.status in self.retried:
                meta = response.meta if response.request is not None else {}
                attempts = 1 + meta.get(Meta.BACKOFF_ATTEMPT, 0) + meta.get("retry_times", 0)
                why = f"{response.status} after {attempts} attempt{'s' if attempts > 1 else ''}"
                self._unreadable(url, why, given_up=True)
            else:
                self._unreadable(url, f"answered {response.status}", quiet=response.status == 404)
            return None
        return response

    def _unreadable(
        self, url: str, why: str, quiet: bool = False, gate: str | None = None, given_up: bool = False
    ) -> None:
        self.stats.inc_value(STATS + "manifests_unreadable")
        if len(self.unread) < MAX_MANIFESTS_PER_HOST:
            self.unread.append((url, why, gate))
        if given_up:  # the retries a page gets are spent: what it lists is not declared this run
            self.stats.inc_value(STATS + "manifests_given_up")
            if len(self.given_up) < MAX_MANIFESTS_PER_HOST * 20:
                self.given_up.append((url, why))
            logger.warning(
                "discovery: manifest %s given up (%s): the pages it lists are not fetched this run",
                url,
                why,
                extra={"spider": self.crawler.spider},
            )
            return
        (logger.debug if quiet else logger.info)("discovery: manifest %s not read (%s)", url, why)

    def _children(self, kind: str, url: str, response: Response, queue: deque[tuple[str, str]]) -> Iterator[Surfaced]:
        """What one manifest lists: targets-to-be as :class:`Surfaced`; an index's children go on ``queue``."""
        self.stats.inc_value(STATS + "manifests_read")
        if kind == SITEMAP:
            reading = stream_sitemap(response.body)
            if reading.verdict is not None:
                self._unreadable(url, f"{reading.verdict}: {reading.reason}")
                return
            entries = self._filtered(reading)
            if reading.kind == SITEMAPINDEX:
                for entry in entries:
                    loc = str(entry["loc"])
                    if same_host(loc, url) and any(p.search(loc) for p in self.routing.follow):
                        queue.append((SITEMAP, loc))
                return
            for entry in entries:
                yield Surfaced(str(entry["loc"]), url, entry.get("lastmod"))
        elif kind == FEED:
            found = read_feed(response)
            for entry in (found.entries if found is not None else [])[: feeds.MAX_ENTRIES]:
                link = entry.get("link") if hasattr(entry, "get") else None
                if isinstance(link, str):
                    stamp = entry.get("updated_parsed") or entry.get("published_parsed")
                    lastmod = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", stamp) if stamp else entry.get("date_modified")
                    yield Surfaced(link, url, lastmod if isinstance(lastmod, str) else None)
        else:
            try:
                index = llmstxt.parse(response.body.decode("utf-8", "replace"), response.url)
            except llmstxt.NotLlmsTxt as exc:
                self._unreadable(url, f"not an llms.txt: {exc}")
                return
            for listed in index.entries():
                yield Surfaced(listed.url, url)

    def _filtered(self, entries: Iterable[dict[str, str | None]]) -> Iterator[dict[str, Any]]:
        """A SitemapSpider's ``sitemap_filter`` has its say, as in Scrapy (its code, its errors logged).

        The entries stream through it as through Scrapy's (an iterable in, one out); when it
        raises, the entries it had not yet passed are used unfiltered."""
        spider = self.crawler.spider
        sieve = getattr(spider, "sitemap_filter", None)
        if self.routing.manifests is None or not callable(sieve):
            yield from entries
            return
        source = iter(entries)
        try:
            for entry in sieve(source):
                if isinstance(entry, dict) and isinstance(entry.get("loc"), str):
                    yield entry
        except Exception:  # noqa: BLE001 - the project's filter failing is reported, the crawl goes on
            logger.exception("discovery: %s.sitemap_filter raised; the sitemap's entries are used unfiltered", spider)
            yield from source

    # ------------------------------------------------------------------ one URL

    def _decide(self, found: Surfaced) -> Route | None:
        """The route that makes ``found`` a target, or None with the reason recorded and counted.

        A listed URL is judged as the request it becomes (:func:`~scrapy_walsh.policy.urls.sent_url`),
        never as the text the manifest holds."""
        if found.manifest != found.url:
            try:
                found.url = sent_url(found.url)
            except UnsafeURL:
                found.url = found.url[:2000]
                return self._skip(found, "unsafe_url")
        try:
            key = canonical_url(found.url) if found.url.startswith(("http://", "https://")) else found.url
        except ValueError:  # a spider's own URL with a host or port urllib can't read: keyed as written
            key = found.url
        found.key = found.url if key == found.url else key  # one string, not two, when it is the URL
        digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        if digest in self._seen:
            return None
        self._seen.add(digest)
        if found.manifest != found.url and not same_host(found.url, found.manifest):
            return self._skip(found, "other_host")
        found.route = route_for(found.url, self.routing.routes)
        if found.route is None or self.routing.callbacks.get(found.route.callback) is None:
            found.route = None
            return self._skip(found, "not_routed")
        record = self.store.get(NAMESPACE, key)
        fetched_at = discovered_at(record)
        if unchanged_since(found.lastmod, fetched_at, time.time()):
            if self._keep and isinstance(record, dict) and isinstance(record.get("by"), dict):
                found.fetched_by = record["by"]  # plan says who, when it was not this spider
            return self._skip(found, "lastmod_unchanged")
        found.update = fetched_at is not None and lastmod_time(found.lastmod) is not None
        if self._targets >= MAX_TARGETS:
            if self._targets == MAX_TARGETS:
                logger.warning("discovery: more than %d targets listed; the rest are not fetched", MAX_TARGETS)
            return self._skip(found, "over_bound")
        self._targets += 1
        self.stats.inc_value(STATS + "targets")
        if found.update:
            self.stats.inc_value(STATS + "changed")
        return found.route

    def _skip(self, found: Surfaced, why: str) -> Route | None:
        """Record why ``found`` is not a target; None, for :meth:`_decide` to return."""
        found.skipped = why
        self.stats.inc_value(STATS + why)
        if self._keep:  # plan lists them; a crawl counts them (the deque keeps memory bounded)
            self.outcomes.append(found)
        return None

    def _request(self, found: Surfaced) -> scrapy.Request:
        assert found.route is not None
        name = found.route.callback
        given = self.routing.kwargs.get(name)  # a copy each: a request's cb_kwargs are its own
        callback = self.routing.callbacks[name]
        request = scrapy.Request(found.url, callback=callback, cb_kwargs=dict(given) if given else None)
        # one string when the key is the URL as Scrapy keeps it: 50,000 targets may wait in the queue
        key = request.url if found.key == request.url else found.key
        request.meta[Meta.DISCOVERED] = {"manifest": found.manifest, "lastmod": found.lastmod, "key": key}
        if found.update:
            request.meta[Meta.DISCOVERED]["update"] = True
        return request


def _origin(url: str) -> str | None:
    try:
        parts = split(url)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return f"{parts.scheme}://{parts.netloc.lower().rsplit('@', 1)[-1]}"


class DiscoveryMiddleware(BaseSpiderMiddleware):
    """Replaces the start of a spider discovery applies to (see the module's docstring), and marks
    the items of a page fetched again for a newer lastmod as updates (R7 delivers them)."""

    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        self.discovery: Discovery | None = None
        #: the Item classes whose unmarked updates were said (once each)
        self._unmarked: set[type] = set()

    def get_processed_item(self, item: Any, response: Response | None) -> Any:
        discovered = response.meta.get(Meta.DISCOVERED) if response is not None else None
        if isinstance(discovered, dict) and discovered.get("update") and ItemAdapter.is_item(item):
            unmarked = add_to_item(item, UPDATE, True) in (Added.NO_FIELD, Added.FOREIGN)
            if unmarked and CrawlContext.of(self.crawler).get(UnmarkedUpdates).add(item):
                self.crawler.stats.inc_value(STATS + "updates_unmarked")  # type: ignore[union-attr]
                if type(item) not in self._unmarked:
                    self._unmarked.add(type(item))
                    logger.info(
                        "discovery: %s has no `walsh` dict field, so the item of %s, a page fetched again for a "
                        "newer lastmod, is delivered without `walsh.update` (R7); declare `walsh = scrapy.Field()` "
                        "in it to mark updates (further ones are counted in walsh/discovery/updates_unmarked)",
                        type(item).__name__,
                        response.url if response is not None else "?",
                    )
        return item

    async def process_start(self, start: AsyncIterator[Any]) -> AsyncIterator[Any]:
        spider = self.crawler.spider
        start = guarded(self.crawler, start)
        routing = spider_routes(type(spider), self.crawler.settings, spider)
        if routing is None:
            async for entry in start:
                yield entry
            return
        if not routing.routes:
            logger.warning(
                "discovery: discovery is on but %s names no route, so nothing it finds is fetched: "
                "give the CrawlSpider's rules a callback, or set WALSH_DISCOVERY_ROUTES = {regex: callback name}",
                type(spider).__name__,
                extra={"spider": spider},
            )
        self.discovery = Discovery(self.crawler, routing)
        async for entry in self.discovery.start(None if isinstance(spider, SitemapSpider) else start):
            yield entry

    def process_spider_input(self, response: Response, spider: Any = None) -> None:
        """A discovered target answered: its time is kept for the lastmod rule once R8 records the answer."""
        discovered = response.meta.get(Meta.DISCOVERED)
        if not isinstance(discovered, dict) or not isinstance(discovered.get("key"), str) or response.status >= 500:
            return
        context = CrawlContext.of(self.crawler)
        by = fetcher(getattr(self.crawler.spidercls, "name", None), context.crawl_id)
        entry = (NAMESPACE, discovered["key"], {"at": time.time(), "by": by}, KEEP_SECONDS)
        if not context.get(Answers).then(response.request, entry):  # type: ignore[arg-type]
            store: StateStore = context.get(open_crawl_store)
            store.set(*entry[:3], ttl=entry[3])
