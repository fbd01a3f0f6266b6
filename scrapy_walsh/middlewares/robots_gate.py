"""R2: the robots.txt gate, replacing Scrapy's ``RobotsTxtMiddleware``.

Per origin (scheme, host, port) robots.txt is fetched once through the crawler, so it carries our
User-Agent and counts as a request to its host; the outcome is read the RFC 9309 way (§2.3.1),
and cached in the state store for ``WALSH_ROBOTS_CACHE_SECONDS`` (at most 24 h, §2.4). Requests
to one origin wait only for that origin's robots.txt. docs/requirements/r2-robots.md gives the
table of outcomes; docs/architecture.md ("The modules, one by one") says more.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import IgnoreRequest
from w3lib.url import safe_url_string

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.exceptions import RobotsDenied, refuse
from scrapy_walsh.middlewares.base import StatefulGate
from scrapy_walsh.middlewares.once import OncePerKey
from scrapy_walsh.policy.gates import (
    ROBOTS_NAMESPACE,
    STALE_LIMIT,
    UNREACHABLE,
    OriginRobots,
    RobotsFetch,
    follow_redirect,
    is_redirect,
    origin_key,
    record,
    restore,
    robots_outcome,
    shown_origin,
    usable_copy,
    with_stale_copy,
)
from scrapy_walsh.policy.hostkey import url_host
from scrapy_walsh.policy.urls import split
from scrapy_walsh.policy.vocabulary import BLOCKING_VERDICTS, Verdict, recommendation
from scrapy_walsh.sending import admission, own_fetch, request_meta
from scrapy_walsh.sending.decision_inputs import ROBOTS, Generations
from scrapy_walsh.sending.pacer import SharedPacer
from scrapy_walsh.sending.request_meta import request_host, request_parts
from scrapy_walsh.settings import DOWNLOAD_TIMEOUT_FLOOR, RECHECK_INTERVAL
from scrapy_walsh.store import fetching
from scrapy_walsh.store.waiting import closing, unsent

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler

    from scrapy_walsh.store import StateStore

logger = logging.getLogger(__name__)

PRIORITY = 100  # where Scrapy had its RobotsTxtMiddleware
#: Requests sent back to the scheduler right after their host's robots.txt was fetched.
REQUEUED_AFTER_FETCH = "walsh/robots/requeued_after_fetch"
#: An unreachable robots.txt is asked again after this long (not persisted): the default of
#: ``WALSH_RECHECK_INTERVAL``.
UNREACHABLE_RECHECK = RECHECK_INTERVAL
#: The time budget of a robots.txt asked again after its host timed out (``_budget``).
RECHECK_BUDGET = DOWNLOAD_TIMEOUT_FLOOR
NAMESPACE = ROBOTS_NAMESPACE


def origin_of(request: Request) -> str:
    parts = request_parts(request)
    return origin_key(parts.scheme, parts.hostname, parts.port)


class RobotsMiddleware(StatefulGate):
    def __init__(self, crawler: Crawler, store: StateStore):
        super().__init__(crawler, store)
        config = CrawlContext.of(crawler).config
        self.mode: str = config.robots_mode
        self.token: str = config.robots_token
        self.cache_seconds = config.robots_cache_seconds  # at most 24 h: the audit refuses more
        self.recheck = config.recheck_interval  # unreachable (a timeout too): asked again after this
        self.timeout = crawler.settings.getfloat("DOWNLOAD_TIMEOUT")
        #: each origin's outcome; the fetches under way, with their waiters, are in _fetches
        self.origins: dict[str, OriginRobots] = {}
        self._fetches: OncePerKey[OriginRobots] = OncePerKey()
        self.politeness = CrawlContext.of(crawler).get(SharedPacer)
        self.pacer = self.politeness.pacer
        #: a fetch of an origin's robots.txt, and its outcome, make the verdicts read before stale
        self.generations = CrawlContext.of(crawler).get(Generations)
        self._warned_parse: set[str] = set()

    # ------------------------------------------------------------------ the gate

    async def process_request(self, request: Request, spider: Spider | None = None) -> Request | None:
        waited = await self._gate(request)  # raises when robots.txt refuses it
        admission.stamp(request, admission.ROBOTS)
        # robots.txt was just fetched from this host, so the request must now wait its interval
        # while another host may be ready: back to the scheduler from here, not after the later
        # gates (which it passes anyway when it comes back), by the pacer's one rule
        if (
            waited
            and admission.own_fetch_kind(request) is None
            and (copy := self.politeness.requeue(self.stats, request, request_host(request), early=True))
        ):
            self.stats.inc_value(REQUEUED_AFTER_FETCH)
            return copy
        return None

    async def _gate(self, request: Request) -> bool:
        """Raise when robots.txt refuses ``request``; True when it waited for a robots.txt fetch."""
        kind = admission.own_fetch_kind(request)
        if kind is not None and kind not in admission.ROBOTS_GATED_KINDS:
            return False  # robots.txt itself (always allowed, RFC 9309 §2.2.2) and our own resources
        if request_parts(request).scheme not in ("http", "https"):
            return False  # refused by the admission gate and the checkpoint
        if self.mode == "ignore":
            self._record(request, Verdict.SKIPPED_BY_USER_POLICY, None)
            return False
        origin = origin_of(request)
        robots = self._usable(origin, request_host(request))
        waited = robots is None
        if robots is None:
            robots = await self.robots_for(request)
            if closing(self.crawler):
                # the crawl stopped while this waited (its fetch was not sent): no verdict on it
                raise unsent(self.crawler, request.url)
        self.generations.note(request, ROBOTS, origin)
        crawl_delay, request_rate = robots.crawl_delay(self.token), robots.request_rate(self.token)
        # R4: the selected group's Crawl-delay / Request-rate pace this host from now on
        self.pacer.set_robots(request_host(request), crawl_delay, request_rate)
        verdict = robots.verdict(request.url, self.token)
        self._record(request, verdict, robots, crawl_delay=crawl_delay, request_rate=request_rate)
        if verdict is Verdict.UNKNOWN_PARSE_ERROR and robots.origin not in self._warned_parse:
            self._warned_parse.add(robots.origin)
            logger.warning(
                "robots.txt of %s is not a robots.txt (%s): allowed, with a warning",
                shown_origin(robots.origin),
                robots.robots.parse_error if robots.robots else "?",
                extra={"spider": self.crawler.spider},
            )
        if verdict in BLOCKING_VERDICTS:
            reason = (
                f"robots.txt of {shown_origin(robots.origin)} disallows it for {self.token}"
                if verdict is Verdict.DISALLOWED_EXPLICIT
                else f"robots.txt of {shown_origin(robots.origin)} is unreachable ({robots.reason})"
            )
            if self.mode == "report_only":
                if request_meta.first_pass(request):
                    self.stats.inc_value("walsh/robots/report_only_fetched")
                logger.info(
                    "report_only: fetching %s although %s", request.url, reason, extra={"spider": self.crawler.spider}
                )
                return waited
            refuse(
                self.crawler,
                RobotsDenied(
                    verdict.value,
                    reason,
                    request.url,
                    recommendation=recommendation(verdict).value,
                    origin=robots.origin,
                ),
            )
        return waited

    def _record(self, request: Request, verdict: Verdict, robots: OriginRobots | None, **pace: Any) -> None:
        if request_meta.first_pass(request):
            self.stats.inc_value(f"walsh/robots/verdict/{verdict.value}")
        details: dict[str, Any] = {
            "mode": self.mode,
            "verdict": verdict.value,
            "recommendation": recommendation(verdict).value,
        }
        if robots is not None:
            details.update(
                origin=robots.origin, source=robots.source, status=robots.status, sitemaps=robots.sitemaps, **pace
            )
        request_meta.record_verdict(
            request, "robots", verdict, recommendation=details["recommendation"], robots=details
        )

    # ------------------------------------------------------------------ per origin

    def know(self, robots: OriginRobots) -> None:
        """Take ``robots`` as its origin's outcome, as if fetched now (``scrapy walsh explain
        --robots-file``: the crawl's gate reads the given file as the origin's robots.txt)."""
        self.origins[robots.origin] = robots
        self.generations.bump(ROBOTS, robots.origin)

    async def robots_for(self, request: Request) -> OriginRobots:
        """This origin's outcome; the first caller fetches it, later callers await it."""
        origin = origin_of(request)
        usable = self._usable(origin, request_host(request))
        if usable is not None:
            return usable
        return await self._fetches.run(origin, lambda: self._outcome(origin, request))

    async def _outcome(self, origin: str, request: Request) -> OriginRobots:
        self.generations.bump(ROBOTS, origin)  # a request waiting at the checkpoint hears the answer
        resource = f"robots {origin}"
        try:
            # the stored copy is read with the fetch's claim, taken unless the copy is fresh: one round trip
            now = time.time()
            since = now - self.cache_seconds
            claimed, saved = fetching.claim_unless_fresh(self.store, resource, (NAMESPACE, origin), since)
            result = self._cached(origin, saved, now)
            if result is None and not claimed:
                result = await self._copy_from_another_process(origin)  # one fetch per identity, not one per process
            if result is None:
                saved = None
                try:
                    result, saved = await self._fetch(origin, request)
                finally:
                    # the copy is stored as the claim is given back, in one write
                    stored = [] if saved is None else [(NAMESPACE, origin, saved, STALE_LIMIT)]
                    fetching.release(self.store, resource, stored)
        except Exception as exc:  # never leave waiters hanging
            result = robots_outcome(origin, RobotsFetch(error=f"{type(exc).__name__}: {exc}"), time.time())
        self.origins[origin] = result
        self.generations.bump(ROBOTS, origin)
        return result

    async def _copy_from_another_process(self, origin: str) -> OriginRobots | None:
        """Another process of the identity is fetching this robots.txt: its stored copy."""
        await fetching.released(self.crawler, self.store, f"robots {origin}")
        return self._from_store(origin)

    def _usable(self, origin: str, host: str) -> OriginRobots | None:
        """This origin's outcome when it is known and not expired (no fetch, no wait)."""
        known = self.origins.get(origin)
        return known if known is not None and not self._expired(known, host) else None

    def _expired(self, robots: OriginRobots, host: str) -> bool:
        now = time.time()
        if robots.outcome == UNREACHABLE or robots.source == "stale":
            # the origin failed us: ask again later, not on every request, and not while its host
            # rests (a 503's Retry-After, a run of timeouts): the ask would wait out the rest in the
            # one download slot, and the outcome could not change before it ends
            return now - robots.checked_at >= self.recheck and not self._resting(host)
        return now - robots.fetched_at >= self.cache_seconds

    def _resting(self, host: str) -> bool:
        """``host`` is paused (R5) past now, by this process's copy of the ledger."""
        return self.pacer.pace(host).not_before > self.politeness.now()

    def _from_store(self, origin: str) -> OriginRobots | None:
        return self._cached(origin, self.store.get(NAMESPACE, origin), time.time())

    def _cached(self, origin: str, saved: Any, now: float) -> OriginRobots | None:
        """The stored copy ``saved`` as this origin's outcome when it is fresh enough to use."""
        if usable_copy(saved, now, self.cache_seconds):
            self.stats.inc_value("walsh/robots/cache_hit")
            return restore(origin, saved, "cache")
        return None

    async def _fetch(self, origin: str, request: Request) -> tuple[OriginRobots, dict[str, Any] | None]:
        """The fetched outcome, and the record to store for it (None: nothing to store)."""
        parts = request_parts(request)
        url = f"{parts.scheme}://{parts.netloc}/robots.txt"
        self.stats.inc_value("walsh/robots/fetched")
        now = time.time()
        hops = 0
        while True:
            try:
                response = await own_fetch.fetch(self.crawler, url, own_fetch.ROBOTS, **self._budget(url))
            except IgnoreRequest as exc:
                return self._unreachable(origin, RobotsFetch(error=f"{url} refused by a gate: {exc}")), None
            except Exception as exc:
                return self._unreachable(origin, RobotsFetch(error=f"{type(exc).__name__}: {exc}")), None
            status, has_location = response.status, b"Location" in response.headers
            if follow_redirect(status, has_location, hops):
                location = (response.headers[b"Location"] or b"").decode("latin-1")
                url = safe_url_string(response.urljoin(location))
                self.stats.inc_value("walsh/robots/redirects")
                if split(url).scheme not in ("http", "https"):
                    # file://, ftp://, data: ...: nothing is read, robots.txt is unreachable
                    self.stats.inc_value("walsh/robots/redirect_scheme_refused")
                    refused = RobotsFetch(error=f"redirected to a non-http(s) URL {url!r}")
                    return self._unreachable(origin, refused), None
                hops += 1
                continue
            break
        fetch = RobotsFetch(status, response.body, has_location)
        result = robots_outcome(origin, fetch, now)
        if not is_redirect(status, has_location):  # not counted: more than MAX_REDIRECTS redirects
            self.stats.inc_value(f"walsh/robots/status/{status}")
        if result.outcome == UNREACHABLE:
            return self._unreachable(origin, fetch), None
        return result, record(result, response.body)

    def _budget(self, url: str) -> dict[str, float]:
        """The time budget of a robots.txt re-asked after its host timed out: the floor
        (:data:`~scrapy_walsh.settings.DOWNLOAD_TIMEOUT_FLOOR`), not ``DOWNLOAD_TIMEOUT``. A host
        that answers again serves a robots.txt in well under it; one still hanging costs the
        serial crawl 5 s instead of a whole budget, each rest."""
        if not self.pacer.pace(url_host(url)).timeouts:
            return {}
        return {"download_timeout": min(RECHECK_BUDGET, self.timeout)}

    def _unreachable(self, origin: str, fetch: RobotsFetch) -> OriginRobots:
        """RFC 9309 §2.3.1.4: disallow all, unless a copy under 30 days old exists."""
        self.stats.inc_value("walsh/robots/unreachable")
        now = time.time()
        unreachable = robots_outcome(origin, fetch, now)
        saved = self.store.get(NAMESPACE, origin)
        result = with_stale_copy(unreachable, saved, now)
        if result.source == "stale":
            self.stats.inc_value("walsh/robots/stale_used")
            logger.warning(
                "robots.txt of %s is unreachable (%s); using the copy stored %.1f h ago",
                shown_origin(origin),
                unreachable.reason,
                (now - result.fetched_at) / 3600,
                extra={"spider": self.crawler.spider},
            )
            return result
        logger.warning(
            "robots.txt of %s is unreachable (%s): %s",
            shown_origin(origin),
            unreachable.reason,
            "its URLs are not fetched (respect mode)" if self.mode == "respect" else "recorded",
            extra={"spider": self.crawler.spider},
        )
        return result
