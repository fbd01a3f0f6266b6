"""R8: a declared target fetched less than ``WALSH_REFETCH_INTERVAL`` ago is not fetched.

The time of each successful fetch (2xx, or 304) of a target is kept in the state store
(namespace ``fetched``, keyed by the target's canonical URL, shared by every spider of
the identity), and a request for it within the interval is refused with
``skipped_recently_fetched``, logged and counted. Redirect hops and retries of a target
being fetched now are not re-checked: they carry the sealed claim (``scrapy_walsh.admission``),
valid only while the store holds that very claim, so no meta key a spider sets
(``retry_times``, ``redirect_urls`` ...) makes a request a retry. ``WALSH_REFETCH_INTERVAL = 0`` disables the guard
(the audit warns, naming R8).

The time is *claimed* before the request is sent (``store.claim``: add-if-absent, atomic,
with the interval as TTL), not written after the answer: so two processes of a fleet
(or two requests of one crawl) for the same target never both fetch it, and each URL is
fetched once fleet-wide. A fetch that does not succeed (another status, a network error,
a later gate's refusal) releases the claim, so the target can be tried again. The claim
travels in ``request.meta`` through requeues, redirects and retries of the same fetch.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import TYPE_CHECKING

from .. import admission
from ..checkpoint import is_dry_run
from ..config import config_for
from ..exceptions import RecentlyFetched, record_denial
from ..policy.canonical import canonical_url
from ..policy.gates import FETCHED_NAMESPACE, recently_fetched, recently_fetched_reason
from ..policy.vocabulary import SKIPPED_RECENTLY_FETCHED, Meta, Namespace
from .base import StatefulGate

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from ..store import StateStore

logger = logging.getLogger(__name__)

#: On the way out after conditional (110); on the way back it sees a 304 first.
PRIORITY = 120
NAMESPACE = FETCHED_NAMESPACE
SKIPPED = SKIPPED_RECENTLY_FETCHED
#: ``request.meta`` key: the canonical target this fetch holds the claim for.
CLAIMED = Meta.FETCH_CLAIM


def target_of(request: Request, claimed: str | None = None) -> str:
    """The declared target a request serves: the claim it holds (a redirect hop or retry of
    that fetch), else its own URL (a ``redirect_urls`` meta proves nothing)."""
    return claimed or canonical_url(request.url)


class FrequencyMiddleware(StatefulGate):
    def __init__(self, crawler: Crawler, store: StateStore):
        super().__init__(crawler, store)
        self.interval = config_for(crawler).refetch_interval
        #: who fetched a target, named when a later request for it is refused (Namespace.FETCHED_BY)
        self.fetcher = {"spider": getattr(crawler.spidercls, "name", None), "crawl": uuid.uuid4().hex}

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
        if is_dry_run(self.crawler):
            # explain: the same rule read, no claim taken (a crawl running meanwhile must not
            # find the target claimed by a request that is never sent)
            if not recently_fetched(self.store.get(NAMESPACE, target), now, self.interval):
                return
        elif self.store.claim(NAMESPACE, target, now, ttl=self.interval):
            admission.seal_claim(self.crawler, request, target, now)
            return
        # the claim is the atomic form of policy.gates.recently_fetched: it fails while a
        # record younger than the interval (its TTL) exists
        last = self.store.get(NAMESPACE, target, now)
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
            # one transaction (one round trip in a fleet), committed like the claim it replaces
            entries = [(NAMESPACE, target, time.time()), (Namespace.FETCHED_BY, target, self.fetcher)]
            self.store.set_many(entries, ttl=self.interval)
            admission.drop_claim(request)
        return response

    def _by(self, target: str) -> dict[str, object]:
        """Who fetched ``target``, for the refusal's message (``RecentlyFetched`` words it)."""
        by = self.store.get(Namespace.FETCHED_BY, target) or {}
        return {
            "fetched_by": by.get("spider"),
            "by_this_crawl": by.get("crawl") == self.fetcher["crawl"],
            "spider": self.fetcher["spider"],
        }

    def process_exception(self, request: Request, exception: Exception, spider: Spider | None = None) -> None:
        self._release(request)

    def _release(self, request: Request) -> None:
        target = self._claim(request)
        admission.drop_claim(request)
        request.meta.pop(CLAIMED, None)
        if target is not None:
            self.store.delete(NAMESPACE, target)
