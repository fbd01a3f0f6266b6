"""R8: a declared target fetched less than ``WALSH_REFETCH_INTERVAL`` ago is not fetched.

Each answered fetch's time is kept in the state store (namespace ``fetched``, by canonical URL,
shared by every spider of the identity). Before a request is sent, the crawl takes a *lease* on
its target, so no two requests send it; the answer replaces the lease once its items left the
pipelines (:class:`AnsweredMiddleware`), and a fetch with no answer releases it. State records
what happened, so a crash loses nothing unsent. docs/requirements/r8-frequency.md and
docs/architecture.md ("The modules, one by one") say why.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from scrapy import Request, signals
from scrapy.exceptions import CloseSpider, IgnoreRequest

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.exceptions import RecentlyFetched, answer_refused, refuse
from scrapy_walsh.middlewares.base import StatefulGate
from scrapy_walsh.outputs import faults
from scrapy_walsh.outputs.delivery import NOT_KEPT, Delivery, Outcome
from scrapy_walsh.outputs.made_by import fetcher
from scrapy_walsh.policy.canonical import canonical_url
from scrapy_walsh.policy.gates import FETCHED_NAMESPACE, recently_fetched, recently_fetched_reason, refetch_after
from scrapy_walsh.policy.vocabulary import SKIPPED_RECENTLY_FETCHED, Meta, Namespace
from scrapy_walsh.sending import admission
from scrapy_walsh.store import StateStoreError, StoreUnavailable, leases, open_crawl_store, targets, waiting

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.internet.base import DelayedCall

    from scrapy_walsh.store import StateStore

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
#: Stats: targets whose callback raised, and (up to MAX_LISTED) their URLs.
CALLBACK_ERRORS = "walsh/frequency/callback_error"
CALLBACK_ERROR_URLS = "walsh/frequency/callback_error_urls"
#: Stats: targets refused as too large, recorded as fetched.
REFUSED = "walsh/frequency/refused"
#: Stats: answers whose record waited for the store (it was away).
DEFERRED = "walsh/frequency/deferred_records"
#: Stats: answers not recorded because an item of theirs could be neither delivered nor kept.
UNMARKED = "walsh/frequency/unmarked"
MAX_LISTED = 20
#: In a fleet an answer's record rides on the store's next round trip, and is written this many
#: seconds after the answer at the latest: a ``kill -9`` within them loses it, and the next run
#: fetches the page once more (docs/fleet.md says why that is the trade).
RECORD_WITHIN = 0.5


def target_of(request: Request, claimed: str | None = None) -> str:
    """The declared target a request serves: the claim it holds (a redirect hop or retry of
    that fetch), else its own URL (a ``redirect_urls`` meta proves nothing)."""
    return claimed or canonical_url(request.url)


@dataclass(frozen=True)
class Answer:
    target: str
    at: float
    by: dict[str, Any]
    #: The token of the lease this fetch held (given back when the answer is not recorded).
    lease: str | None = None
    #: ``(namespace, key, value, ttl)`` written once the answer is (R7's validators): a page
    #: left unmarked must be fetched again unconditionally, or its 304 would give no items.
    then: tuple[tuple[str, str, Any, float | None], ...] = ()


@dataclass(frozen=True)
class Rider:
    """A read that rides on a request's R8 claim (:meth:`Answers.read_with_claim`)."""

    namespace: str
    key: str
    apply: Callable[[Request, Any], None]


@dataclass
class Waiting:
    """An answer waiting for its callback's output and for each item it yielded."""

    #: Items on their way through the pipelines.
    items: int = 0
    #: The callback's output is exhausted (or it raised).
    exhausted: bool = False
    #: An item could be neither delivered nor kept: the answer is not recorded.
    unkept: bool = False
    #: The callback raised this (``Type: message``).
    error: str | None = None


class Answers:
    """The answers of one crawl whose record waits for their callback and items."""

    def __init__(self, crawler: Crawler):
        assert crawler.stats is not None
        self.crawler = crawler
        self.stats = crawler.stats
        context = CrawlContext.of(crawler)
        self.store = context.get(open_crawl_store)
        self.interval = context.config.refetch_interval
        self.pending: dict[str, Answer] = {}
        self.outstanding: weakref.WeakKeyDictionary[Any, Waiting] = weakref.WeakKeyDictionary()
        #: answers the store did not take (it was away): written with the next record, or at the end
        self.unrecorded: dict[str, Answer] = {}
        #: why the store did not take the last one (said at the end)
        self.why = "the store was away"
        #: answers whose items went to a feed stored when its slot closes: decided once it is stored
        self.held: list[Answer] = []
        #: the two ends the last attempt waits for when a feed is stored at its slot's close
        self.spider_done = self.feeds_closed = False
        self.delivery = CrawlContext.of(crawler).get(Delivery)
        #: the call that writes the records kept for the store's next round trip (:meth:`_write_by`)
        self._deadline: DelayedCall | None = None
        #: reads a gate before R8's asked for a request, made in its claim's round trip
        #: (:meth:`read_with_claim`); the value never holds the request (a weak key)
        self.riders: weakref.WeakKeyDictionary[Request, list[Rider]] = weakref.WeakKeyDictionary()
        # listening from the engine's start: after R7's dedup, which records the item first
        crawler.signals.connect(self.engine_started, signal=signals.engine_started)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(self.feed_exporter_closed, signal=signals.feed_exporter_closed)

    def engine_started(self) -> None:
        self.delivery.listen(self.item_done)
        self.delivery.record_with_answer = self.with_last_item

    def read_with_claim(
        self, request: Request, namespace: str, key: str, apply: Callable[[Request, Any], None]
    ) -> None:
        """Read ``key`` of ``namespace`` for ``request`` in the round trip of its R8 claim, and
        call ``apply(request, value)`` (None: nothing stored) before the request leaves R8's gate,
        claim or not (a gate on the way out before it: R7's validators)."""
        self.riders.setdefault(request, []).append(Rider(namespace, key, apply))

    def record(self, answer: Answer) -> None:
        """The answer's time replaces the lease, with what waits for it (R7's validators): one
        transaction. In a fleet it rides on the store's next round trip (the next request's
        reservation or claim, milliseconds later), written within :data:`RECORD_WITHIN` at the
        latest: no round trip of its own. When the store is away, it is written later
        (:meth:`_write_unrecorded`)."""
        self.unrecorded[answer.target] = answer
        self._write_unrecorded()

    def then(self, request: Request, entry: tuple[str, str, Any, float | None]) -> bool:
        """Write ``entry`` once the answer to ``request`` is recorded; False when no answer of
        this crawl waits for it (the caller writes it now)."""
        target = target_of_response(request)
        answer = self.pending.get(target or "")
        if answer is None:
            return False
        self.pending[answer.target] = replace(answer, then=(*answer.then, entry))
        return True

    def with_last_item(self, response: Any, entry: tuple[str, str, Any, float | None]) -> bool:
        """Write ``entry`` in the record of ``response``'s answer when that record is written now:
        the item being told is the answer's last and every earlier one was kept (R7's row that
        says it is emitted, one round trip with the record). False otherwise (the caller writes
        it): an earlier item's row never waits for a later one, which a crash may never bring."""
        state = self.outstanding.get(response) if response is not None else None
        if state is None or not state.exhausted or state.unkept or state.items != 1 or self.delivery.stored_at_close():
            return False
        return self.then(response, entry)

    def _write_unrecorded(self) -> None:
        for answer in list(self.unrecorded.values()):
            # one write, all or nothing: what waits for the record (validators) never lands without it
            entries = [
                (NAMESPACE, answer.target, answer.at, self.interval),
                (Namespace.FETCHED_BY, answer.target, answer.by, self.interval),
                *answer.then,
            ]
            try:
                self.store.set_many_later(answer.target, entries, partial(self._written, answer))
            except StateStoreError as exc:
                self._not_written(exc)
                return
        if self.unrecorded:
            self._write_by(RECORD_WITHIN)

    def _written(self, answer: Answer) -> None:
        if self.unrecorded.get(answer.target) is answer:
            del self.unrecorded[answer.target]

    def _not_written(self, exc: StateStoreError) -> None:
        if isinstance(exc, StoreUnavailable):
            self.stats.inc_value(DEFERRED, len(self.unrecorded))
            self.why = "the store was away"
        else:
            self.why = "the store failed"  # the crawl stops for it (scrapy_walsh.store); tried once more at the end

    def _write_by(self, seconds: float) -> None:
        """Have the records the store keeps for its next round trip written within ``seconds``,
        should no round trip come first (an idle crawl, its last page)."""
        if self._deadline is not None and self._deadline.active():
            return
        self._deadline = waiting.call_later(seconds, self._write_kept)

    def _write_kept(self) -> None:
        """Write the records kept for the store's next round trip now (their deadline, the
        crawl's end); a store that is away keeps them for its next round trip, which waits for it."""
        if self._deadline is not None and self._deadline.active():
            self._deadline.cancel()
        self._deadline = None
        try:
            self.store.write_later()
        except StateStoreError as exc:
            self._not_written(exc)

    def settle(self, response: Any) -> None:
        answer = self.pending.pop(target_of_response(response) or "", None)
        state = self.outstanding.get(response)
        if answer is None:
            return
        if state is not None and state.unkept:
            self._unmark(answer)
            return
        if state is not None and state.error:
            answer = replace(answer, by={**answer.by, "callback_error": state.error})
        if self.delivery.stored_at_close():
            self.held.append(answer)  # its items are delivered when the feed is stored
        else:
            self.record(answer)

    def _unmark(self, answer: Answer) -> None:
        """An item of this answer is neither delivered nor kept: the next run fetches the page."""
        self.stats.inc_value(UNMARKED)
        if answer.lease is None:
            return
        try:
            leases.release(self.store, NAMESPACE, answer.target, answer.lease)
        except StateStoreError:
            pass  # the lease of a crawl gone is taken over by the next run

    def item_done(self, item: Any, response: Any, outcome: Outcome) -> None:
        state = self.outstanding.get(response) if response is not None else None
        if state is None:
            return
        state.items -= 1
        if outcome is NOT_KEPT:
            state.unkept = True
        if state.items <= 0 and state.exhausted:
            self.settle(response)

    def exhausted(self, response: Any, state: Waiting | None, error: BaseException | None = None) -> None:
        """The callback's output is exhausted, or it raised ``error``: settled once its items are done."""
        if state is None or state.exhausted:
            return
        state.exhausted = True
        if error is not None:
            state.error = f"{type(error).__name__}: {error}"
            _list(self.stats, CALLBACK_ERRORS, CALLBACK_ERROR_URLS, target_of_response(response) or response.url)
        if state.items <= 0:
            self.settle(response)

    def spider_closed(self, spider: Any = None) -> None:
        """A graceful stop: every answer received is recorded (its callback ran or never will),
        once the feeds stored at their slot's close are stored (``feed_exporter_closed``)."""
        for answer in self.pending.values():
            self.unrecorded.setdefault(answer.target, answer)
        self.pending = {}
        self.spider_done = True
        if self.feeds_closed or not self.delivery.stored_at_close():
            self._finish()

    def feed_exporter_closed(self) -> None:
        """The feeds are stored: the answers held for them are recorded, or, when a feed could
        not store its file, left unmarked (the next run fetches those pages again)."""
        self.feeds_closed = True
        held, self.held = self.held, []
        for answer in held:
            if self.delivery.unstored:
                self._unmark(answer)
            else:
                self.record(answer)
        if self.spider_done and self.delivery.stored_at_close():
            self._finish()

    def _finish(self) -> None:
        """The last attempt; what the store still does not take is said in the crawl's one closing message."""
        self._write_unrecorded()
        self._write_kept()
        if self.unrecorded:
            targets = ", ".join(sorted(self.unrecorded)[:3]) + (", ..." if len(self.unrecorded) > 3 else "")
            what = f"{len(self.unrecorded)} answered target(s) not recorded as fetched (R8: {targets})"
            rows = sum(len(answer.then) for answer in self.unrecorded.values())
            if rows:
                what += f", nor {rows} record(s) written with them (R7's validators and emitted items)"
            faults.unrecorded(self.crawler, what, self.why)


def target_of_response(response: Any) -> str | None:
    """The target whose lease the request of ``response`` held."""
    try:
        claim = response.meta.get(CLAIMED)
    except AttributeError:  # a response without a request
        return None
    return claim.get("target") if isinstance(claim, dict) and isinstance(claim.get("target"), str) else None


def _list(stats: Any, count: str, urls: str, url: str) -> None:
    """Count one more target under ``count``, and list it under ``urls`` (up to MAX_LISTED)."""
    stats.inc_value(count)
    listed = stats.get_value(urls) or []
    if len(listed) < MAX_LISTED:
        stats.set_value(urls, [*listed, url])


class AnsweredMiddleware:
    """A spider middleware, closest to the engine: records a target as fetched once its
    callback's output is exhausted (or it raised) and each item it yielded left the item
    pipelines."""

    def __init__(self, crawler: Crawler):
        self.answers = CrawlContext.of(crawler).get(Answers)

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
        self.answers.exhausted(response, state)

    def process_spider_output(
        self, response: Response, result: Iterable[Any], spider: Spider | None = None
    ) -> Iterator[Any]:
        state = self._state(response)
        for output in result:
            self._count(state, output)
            yield output
        self.answers.exhausted(response, state)

    def process_spider_exception(self, response: Response, exception: Exception, spider: Spider | None = None) -> None:
        """The callback raised, before its first item or after some (Scrapy calls this before the
        exception reaches the output this middleware reads), or a middleware closer to the
        spider did: Scrapy logs it, and the answer is recorded once the items it yielded are done."""
        state = self._state(response)
        if isinstance(exception, (IgnoreRequest, CloseSpider)):  # a refusal or a deliberate stop, not a bug
            self.answers.exhausted(response, state)
        else:
            self.answers.exhausted(response, state, exception)

    def _state(self, response: Response) -> Waiting | None:
        if target_of_response(response) not in self.answers.pending:
            return None
        found = self.answers.outstanding.get(response)
        if found is None:
            found = self.answers.outstanding[response] = Waiting()
        return found

    @staticmethod
    def _count(state: Waiting | None, output: Any) -> None:
        if state is not None and output is not None and not isinstance(output, Request):
            state.items += 1  # an item on its way to the pipelines


class FrequencyMiddleware(StatefulGate):
    def __init__(self, crawler: Crawler, store: StateStore):
        super().__init__(crawler, store)
        self.answers = CrawlContext.of(crawler).get(Answers)
        self.interval = CrawlContext.of(crawler).config.refetch_interval
        #: who fetched a target, named when a later request for it is refused (Namespace.FETCHED_BY)
        self.crawl = CrawlContext.of(crawler).crawl_id
        self.fetcher = fetcher(getattr(crawler.spidercls, "name", None), self.crawl)
        crawler.signals.connect(self.answer_refused, signal=answer_refused)

    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        riders = self.answers.riders.pop(request, [])
        found = self._gate(request, riders)  # raises when the target was fetched within the interval
        if riders:
            if found is None:  # no claim was taken here: read on their own
                found = [self.store.get(rider.namespace, rider.key) for rider in riders]
            for rider, value in zip(riders, found):
                rider.apply(request, value)
        admission.stamp(request, admission.FREQUENCY)

    def _gate(self, request: Request, riders: list[Rider]) -> list[Any] | None:
        """R8's gate: raises when the target was fetched within the interval; the values of
        ``riders`` when they came with the claim."""
        if self.interval <= 0 or admission.own_fetch_kind(request) is not None:
            return None
        if self._claim(request) is not None:
            return None  # a redirect hop, retry or requeue of the fetch under way
        target = target_of(request)
        now = time.time()
        last = targets.legacy_record(self.store, NAMESPACE, request.url)  # a store written by an earlier version
        if leases.stale(last, refetch_after(now, self.interval)):
            last = None  # let go by the interval in force, as the canonical record below
        if last is None:
            if CrawlContext.of(self.crawler).dry_run:
                # explain: the same rule read, no lease taken (a crawl running meanwhile must not
                # find the target leased by a request that is never sent)
                last = self.store.get(NAMESPACE, target)
            else:
                ttl = min(leases.LEASE_TTL, self.interval)
                reads = [(rider.namespace, rider.key) for rider in riders]
                # a record the interval in force lets go is taken over, whatever expiry it was written with
                stale = refetch_after(now, self.interval)
                lease, found = leases.take_reading(self.store, NAMESPACE, target, self.crawl, ttl, reads, stale)
                if lease is not None:
                    admission.seal_claim(self.crawler, request, target, lease)
                    return found
                # the lease is the atomic form of policy.gates.recently_fetched: it fails while a
                # record younger than the interval in force exists, or a live crawl sends it now
                last = self.store.get(NAMESPACE, target)
        if leases.is_lease(last):
            last = last["at"]  # being fetched now, by a crawl that runs
        if CrawlContext.of(self.crawler).dry_run and not recently_fetched(last, now, self.interval):
            return None
        reason = recently_fetched_reason(last, now, self.interval)
        refuse(self.crawler, RecentlyFetched(SKIPPED, reason, request.url, fetched_at=last, **self._by(target)))

    def _claim(self, request: Request) -> str | None:
        return admission.live_claim(self.crawler, request, self.store, NAMESPACE)

    def _answered(self, request: Request) -> tuple[str, str | None] | None:
        """The target (and lease token) an answer to ``request`` is recorded for; None for a
        request that is not a target's fetch (an internal one, or R8 off). The claim the request
        holds by this process's account (its seal, this very request): no store read, since the
        answer is recorded whoever holds the lease now (the server answered this request)."""
        if self.interval <= 0 or admission.own_fetch_kind(request) is not None:
            return None
        own = admission.own_claim(self.crawler, request)
        claimed, lease = own if own is not None else (None, None)
        return target_of(request, claimed), lease

    def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        # Any answer that reaches this middleware is final: a redirect, a Scrapy retry and a
        # backoff retry are returned as new requests by the middlewares before it (600, 550,
        # 540), so a 404 or a 410 counts as fetched just like a 200 (a resumed crawl sends
        # nothing twice). Writing the answer's time replaces the claim, so a copy of this
        # request's meta holds no live claim any more.
        answered = self._answered(request)
        if answered is not None:
            target, lease = answered
            answer = Answer(target, time.time(), {**self.fetcher, "status": response.status}, lease)
            if response.status == 304:  # no callback runs (R7's NotModified): nothing to wait for
                self.answers.record(answer)
            else:
                self.answers.pending[target] = answer  # recorded after its callback's items
            admission.drop_claim(request)
            if response.status >= 500:
                _list(self.stats, SERVER_ERRORS, SERVER_ERROR_URLS, f"{target} ({response.status})")
        return response

    def answer_refused(self, request: Request, exception: Any = None, **_: Any) -> None:
        """The answer was refused (its body over its bound): the server was hit, so the target
        counts as fetched, and is not downloaded again within the interval."""
        answered = self._answered(request)
        if answered is None:
            return
        target, lease = answered
        details = getattr(exception, "details", None) or {}
        by = {**self.fetcher, "status": None, "refused": getattr(exception, "verdict", "refused")}
        if isinstance(details.get("bound"), int):
            by["bound"] = details["bound"]
        self.answers.record(Answer(target, time.time(), by, lease))
        admission.drop_claim(request)
        self.stats.inc_value(REFUSED)

    def _by(self, target: str) -> dict[str, object]:
        """Who fetched ``target``, for the refusal's message (``RecentlyFetched`` words it)."""
        by = self.store.get(Namespace.FETCHED_BY, target) or {}
        return {
            "fetched_by": by.get("spider"),
            "fetched_with": by.get("command"),
            "by_this_crawl": by.get("crawl") == self.crawl,
            "spider": self.fetcher["spider"],
        }

    def process_exception(self, request: Request, exception: Exception, spider: Spider | None = None) -> None:
        try:
            self._release(request)
        except StateStoreError:
            pass  # the store is away: the lease stands until this crawl is gone, then is taken over

    def _release(self, request: Request) -> None:
        target = self._claim(request)
        lease = request.meta.get(CLAIMED, {}).get("lease") if target is not None else None
        admission.drop_claim(request)
        request.meta.pop(CLAIMED, None)
        if target is not None and lease is not None:
            self.store.delete(NAMESPACE, target)  # _claim just saw the store hold this very lease
