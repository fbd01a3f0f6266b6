"""R8: a declared target fetched less than ``WALSH_REFETCH_INTERVAL`` ago is not fetched.

The time of each answered fetch of a target is kept in the state store (namespace
``fetched``, keyed by the target's canonical URL, shared by every spider of the identity),
and a request for it within the interval is refused with ``skipped_recently_fetched``,
logged and counted. Redirect hops and retries of a target being fetched now are not
re-checked: they carry the sealed claim (``scrapy_walsh.admission``), valid only while the
store holds that very lease, so no meta key a spider sets (``retry_times``,
``redirect_urls`` ...) makes a request a retry. ``WALSH_REFETCH_INTERVAL = 0`` disables the
guard (the audit warns, naming R8).

**State records what happened** (issue 32). Before the request is sent, the crawl takes a
*lease* on the target (``store.leases.take``: add-if-absent, atomic), so two processes of a
fleet (or two requests of one crawl) never both send it. A lease is not a fetch: it holds
only while its crawl runs (a heartbeat in namespace ``crawls``), so after a ``kill -9`` the
next run takes it over and sends the target again, paced as usual, whether it was never
sent or sent and never answered. The target counts as fetched when an answer came back:
the answer's time replaces the lease (with who fetched it and the status, one
transaction), written once the answer's callback is done and the items it yielded left
the item pipelines (:class:`AnsweredMiddleware`, a spider middleware: a crash between the
answer and the feed fetches the target again, so no item is lost; a ``304`` and an answer
that never reaches the spider are written at once or when the crawl stops). A fetch that
gets no answer (a network error, a later gate's refusal) releases the lease, so the target
can be tried again.

**A final 5xx** (the answer after Scrapy's retries and R5's backoff retries) is an answer:
the server received the request and answered it, so it counts as fetched for R8 (asking
again within the interval is the load R8 forbids). Such targets are listed, with their
status, in the crawl's summary and by ``scrapy walsh state show``;
``scrapy walsh state forget URL`` makes one fetchable again.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy import Request, signals

from .. import admission
from ..checkpoint import is_dry_run
from ..config import config_for
from ..exceptions import RecentlyFetched, record_denial
from ..policy.canonical import canonical_url
from ..policy.gates import FETCHED_NAMESPACE, recently_fetched, recently_fetched_reason
from ..policy.vocabulary import SKIPPED_RECENTLY_FETCHED, Meta, Namespace
from ..store import StateStoreError, crawl_id, leases, store_for, targets
from .base import StatefulGate

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from ..store import StateStore

logger = logging.getLogger(__name__)

#: On the way out after conditional (110); on the way back it sees a 304 first.
PRIORITY = 120
#: The answered-record spider middleware: closest to the engine, it sees the final output.
SPIDER_PRIORITY = 1
NAMESPACE = FETCHED_NAMESPACE
SKIPPED = SKIPPED_RECENTLY_FETCHED
#: ``request.meta`` key: the canonical target this fetch holds the claim for.
CLAIMED = Meta.FETCH_CLAIM
#: Stats: targets whose final answer was a server error, and (up to MAX_LISTED) their URLs.
SERVER_ERRORS = "walsh/frequency/server_error"
SERVER_ERROR_URLS = "walsh/frequency/server_error_urls"
MAX_LISTED = 20


def target_of(request: Request, claimed: str | None = None) -> str:
    """The declared target a request serves: the claim it holds (a redirect hop or retry of
    that fetch), else its own URL (a ``redirect_urls`` meta proves nothing)."""
    return claimed or canonical_url(request.url)


@dataclass(frozen=True)
class Answer:
    target: str
    at: float
    by: dict[str, Any]


class Answers:
    """The answers of one crawl whose record waits for their callback (issue 32)."""

    def __init__(self, crawler: Crawler, store: StateStore):
        self.store = store
        self.interval = config_for(crawler).refetch_interval
        self.pending: dict[str, Answer] = {}
        #: response -> [items on their way through the pipelines, callback exhausted]
        self.outstanding: weakref.WeakKeyDictionary[Any, list[Any]] = weakref.WeakKeyDictionary()
        self.signals = crawler.signals
        # after the feed exporter and the pipelines (R7's dedup flushes the feed on item_scraped):
        # a target is recorded once its items are in the feed
        crawler.signals.connect(self.engine_started, signal=signals.engine_started)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    def engine_started(self) -> None:
        for signal in (signals.item_scraped, signals.item_dropped, signals.item_error):
            self.signals.connect(self.item_done, signal=signal)

    def record(self, answer: Answer) -> None:
        """The answer's time replaces the lease: one transaction (one round trip in a fleet)."""
        entries = [(NAMESPACE, answer.target, answer.at), (Namespace.FETCHED_BY, answer.target, answer.by)]
        self.store.set_many(entries, ttl=self.interval)

    def settle(self, response: Any) -> None:
        answer = self.pending.pop(target_of_response(response) or "", None)
        if answer is None:
            return
        try:
            self.record(answer)
        except StateStoreError:
            self.pending[answer.target] = answer  # the store is away: tried again when the crawl stops

    def item_done(self, item: Any = None, response: Any = None, **_: Any) -> None:
        state = self.outstanding.get(response) if response is not None else None
        if state is None:
            return
        state[0] -= 1
        if state[0] <= 0 and state[1]:
            self.settle(response)

    def spider_closed(self, spider: Any = None) -> None:
        """A graceful stop: every answer received is recorded (its callback ran or never will)."""
        pending, self.pending = self.pending, {}
        for answer in pending.values():
            try:
                self.record(answer)
            except StateStoreError as exc:
                logger.warning("R8: %s was answered but not recorded (%s): fetched again", answer.target, exc)


_ANSWERS: weakref.WeakKeyDictionary[Crawler, Answers] = weakref.WeakKeyDictionary()


def answers_for(crawler: Crawler, store: StateStore) -> Answers:
    found = _ANSWERS.get(crawler)
    if found is None:
        found = _ANSWERS[crawler] = Answers(crawler, store)
    return found


def target_of_response(response: Any) -> str | None:
    """The target whose lease the request of ``response`` held."""
    try:
        claim = response.meta.get(CLAIMED)
    except AttributeError:  # a response without a request
        return None
    return claim.get("target") if isinstance(claim, dict) and isinstance(claim.get("target"), str) else None


class AnsweredMiddleware:
    """A spider middleware, closest to the engine: records a target as fetched once its
    callback's output is exhausted and each item it yielded left the item pipelines."""

    def __init__(self, crawler: Crawler):
        self.answers = answers_for(crawler, store_for(crawler))

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> AnsweredMiddleware:
        return cls(crawler)

    async def process_spider_output_async(
        self, response: Response, result: AsyncIterator[Any], spider: Spider | None = None
    ) -> AsyncIterator[Any]:
        state = self._state(response)
        async for output in result:
            self._count(state, output)
            yield output
        self._exhausted(response, state)

    def process_spider_output(
        self, response: Response, result: Iterable[Any], spider: Spider | None = None
    ) -> Iterator[Any]:
        state = self._state(response)
        for output in result:
            self._count(state, output)
            yield output
        self._exhausted(response, state)

    def _state(self, response: Response) -> list[Any] | None:
        if target_of_response(response) not in self.answers.pending:
            return None
        return self.answers.outstanding.setdefault(response, [0, False])

    @staticmethod
    def _count(state: list[Any] | None, output: Any) -> None:
        if state is not None and output is not None and not isinstance(output, Request):
            state[0] += 1  # an item on its way to the pipelines

    def _exhausted(self, response: Response, state: list[Any] | None) -> None:
        if state is not None:
            state[1] = True
            if state[0] <= 0:
                self.answers.settle(response)


class FrequencyMiddleware(StatefulGate):
    def __init__(self, crawler: Crawler, store: StateStore):
        super().__init__(crawler, store)
        self.answers = answers_for(crawler, store)
        self.interval = config_for(crawler).refetch_interval
        #: who fetched a target, named when a later request for it is refused (Namespace.FETCHED_BY)
        self.crawl = crawl_id(crawler)
        self.fetcher = {"spider": getattr(crawler.spidercls, "name", None), "crawl": self.crawl}

    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        self._gate(request)  # raises when the target was fetched within the interval
        admission.stamp(request, admission.FREQUENCY)

    def _gate(self, request: Request) -> None:
        if self.interval <= 0 or admission.internal_kind(request) is not None:
            return
        if self._claim(request) is not None:
            return  # a redirect hop, retry or requeue of the fetch under way
        target = target_of(request)
        now = time.time()
        last = targets.legacy_record(self.store, NAMESPACE, request.url)  # a store written before issue 32
        if last is None:
            if is_dry_run(self.crawler):
                # explain: the same rule read, no lease taken (a crawl running meanwhile must not
                # find the target leased by a request that is never sent)
                last = self.store.get(NAMESPACE, target)
            else:
                lease = leases.take(self.store, NAMESPACE, target, self.crawl, min(leases.LEASE_TTL, self.interval))
                if lease is not None:
                    admission.seal_claim(self.crawler, request, target, lease)
                    return
                # the lease is the atomic form of policy.gates.recently_fetched: it fails while a
                # record younger than the interval (its TTL) exists, or a live crawl sends it now
                last = self.store.get(NAMESPACE, target)
        if leases.is_lease(last):
            last = last["at"]  # being fetched now, by a crawl that runs
        if is_dry_run(self.crawler) and not recently_fetched(last, now, self.interval):
            return
        reason = recently_fetched_reason(last, now, self.interval)
        exc = RecentlyFetched(SKIPPED, reason, request.url, fetched_at=last, **self._by(target))
        record_denial(self.stats, exc, self.crawler.spider)
        raise exc

    def _claim(self, request: Request) -> str | None:
        return admission.live_claim(self.crawler, request, self.store, NAMESPACE)

    def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        # Any answer that reaches this middleware is final: a redirect, a Scrapy retry and a
        # backoff retry are returned as new requests by the middlewares before it (600, 550,
        # 540), so a 404 or a 410 counts as fetched just like a 200 (a resumed crawl sends
        # nothing twice). Writing the answer's time replaces the claim, so a copy of this
        # request's meta holds no live claim any more.
        if self.interval > 0 and admission.internal_kind(request) is None:
            target = target_of(request, self._claim(request))
            answer = Answer(target, time.time(), {**self.fetcher, "status": response.status})
            if response.status == 304:  # no callback runs (R7's NotModified): nothing to wait for
                self.answers.record(answer)
            else:
                self.answers.pending[target] = answer  # recorded after its callback's items
            admission.drop_claim(request)
            if response.status >= 500:
                self._server_error(target, response.status)
        return response

    def _server_error(self, target: str, status: int) -> None:
        """A final 5xx counts as fetched (the module's docstring says why): count and list it."""
        self.stats.inc_value(SERVER_ERRORS)
        listed = self.stats.get_value(SERVER_ERROR_URLS) or []
        if len(listed) < MAX_LISTED:
            self.stats.set_value(SERVER_ERROR_URLS, [*listed, f"{target} ({status})"])

    def _by(self, target: str) -> dict[str, object]:
        """Who fetched ``target``, for the refusal's message (``RecentlyFetched`` words it)."""
        by = self.store.get(Namespace.FETCHED_BY, target) or {}
        return {
            "fetched_by": by.get("spider"),
            "by_this_crawl": by.get("crawl") == self.crawl,
            "spider": self.fetcher["spider"],
        }

    def process_exception(self, request: Request, exception: Exception, spider: Spider | None = None) -> None:
        self._release(request)

    def _release(self, request: Request) -> None:
        target = self._claim(request)
        lease = request.meta.get(CLAIMED, {}).get("lease") if target is not None else None
        admission.drop_claim(request)
        request.meta.pop(CLAIMED, None)
        if target is not None and lease is not None:
            self.store.delete(NAMESPACE, target)  # _claim just saw the store hold this very lease
