"""The one checkpoint before the network: a download handler wrapping Scrapy's.

Every request that reaches a socket passes a download handler, whatever sent it, so the last word
is said here: :meth:`~CheckpointDownloadHandler.admit` (gate stamps, User-Agent, Host, blocklist and
proxy, timeout floor, byte bound), then under the process's in-flight lock
:meth:`~CheckpointDownloadHandler.prepare` (the decision still holds, the reservation, the signature)
and :meth:`~CheckpointDownloadHandler.send`, then ``settle``. The wrapped handler's
silent resend is turned off. docs/checkpoint.md says why.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from contextlib import suppress
from functools import cached_property
from typing import TYPE_CHECKING, Any, NoReturn

from scrapy.core.downloader.handlers.base import BaseDownloadHandler
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.misc import build_from_crawler

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.exceptions import (
    CheckpointRefused,
    DecisionStale,
    NotSent,
    NotYourTurn,
    OfflineNotSent,
    RecentlyFetched,
    WalshIgnoreRequest,
    refuse,
)
from scrapy_walsh.identity.signer import load_signer
from scrapy_walsh.journal.adapter import CrawlJournal
from scrapy_walsh.middlewares.bounds import headers_refused
from scrapy_walsh.middlewares.bounds import stamp as stamp_bound
from scrapy_walsh.outputs.summary import MAX_IN_FLIGHT
from scrapy_walsh.policy.gates import FETCHED_NAMESPACE
from scrapy_walsh.policy.hostkey import host_key
from scrapy_walsh.policy.urls import UnsafeURL, sent_url, split
from scrapy_walsh.policy.vocabulary import (
    AMBIGUOUS_URL,
    HOST_HEADER_MISMATCH,
    NOT_ADMITTED,
    PROXY_REFUSED,
    SKIPPED_RECENTLY_FETCHED,
    Meta,
)
from scrapy_walsh.sending import admission, handler_pool, send_gate
from scrapy_walsh.sending.decision_inputs import Generations
from scrapy_walsh.sending.header_bound import bound_headers, over_bound
from scrapy_walsh.sending.pacer import SharedPacer
from scrapy_walsh.sending.request_meta import request_host
from scrapy_walsh.settings import DOWNLOAD_TIMEOUT_FLOOR
from scrapy_walsh.store import StoreUnavailable, leases, waiting

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

UA_OVERRIDDEN = "walsh/identity/ua_overridden"
TIMEOUT_RAISED = "walsh/checkpoint/timeout_raised"
SLOT_TAKEN = "walsh/checkpoint/slot_taken"
#: Requests not written after all: the host lease lapsed and another process took the host, or the
#: store could not confirm the slot (``scrapy_walsh.sending.send_gate``); each waits and goes again.
NOT_WRITTEN = "walsh/checkpoint/not_written"
#: Requests whose gates decided again: an input of their decisions (robots.txt, the list, a pause)
#: changed while they waited for the in-flight lock (``scrapy_walsh.sending.decision_inputs``); one stat per kind.
REDONE = "walsh/checkpoint/redone"
#: Sends that ended with the next request already waiting at the in-flight lock, its gates passed
#: (the overlap at work), by the kind of the one that ended: ``page`` or an own fetch's kind.
NEXT_PREPARED = "walsh/checkpoint/next_prepared"


def _refuse(crawler: Crawler, verdict: str, reason: str, request: Request, **details: Any) -> NoReturn:
    refuse(crawler, CheckpointRefused(verdict, reason, request.url, **details))


class CheckpointDownloadHandler(BaseDownloadHandler):
    lazy = False

    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        assert crawler.stats is not None
        self.stats = crawler.stats
        self.context = context = CrawlContext.of(crawler)
        config = context.config
        self._ua = config.user_agent.encode("ascii", "strict")
        self.max_body_bytes = config.max_body_bytes
        self.inner: Any = build_from_crawler(handler_pool.load(config.download_handler), crawler)
        handler_pool.prepare(self.inner)  # no resend of a request the server may have seen; idle sockets closed
        bound_headers(self.inner)  # a header flood is refused while it arrives, before it is in memory
        # the host lease is checked right before the bytes leave (Scrapy's HTTP/1.1 handler)
        send_gate.install(self.inner)
        self.signer = context.get(load_signer)  # Web Bot Auth, when WALSH_SIGNING_KEY is set
        self.journal = context.get(CrawlJournal)  # every send and refusal, hash-chained
        self.generations = context.get(Generations)  # what the gates' decisions rested on
        #: What every crawler of the process shares: the in-flight lock (R4 serial per process), the sends
        self.process = context.process
        self.lock = self.process.in_flight
        self._logged_ua = False
        self._found_gates: tuple[Any, Any] | None = None

    @cached_property
    def politeness(self) -> SharedPacer:
        """The crawl's pacer, opened on the first download: a store that refuses to open
        is then reported once, cleanly, by the component that opens it first, not as a
        traceback of Scrapy's handler loading."""
        return CrawlContext.of(self.crawler).get(SharedPacer)

    async def download_request(self, request: Request) -> Response:
        """Admit, prepare under the process's in-flight lock, send, settle; then pass the lock on."""
        kind = admission.own_fetch_kind(request)
        host = await self.admit(request, kind)
        await maybe_deferred_to_future(self.lock.acquire())
        try:
            flight = self.prepare(request, host)
            try:
                return await self.send(request, flight, kind)
            finally:
                self.settle(flight, kind)
        finally:
            self.lock.release()

    # ------------------------------------------------------------------ the steps

    async def admit(self, request: Request, kind: str | None) -> str:
        """Before the lock: the checks, the final headers and bounds; the request's host key."""
        # only http(s) reach this handler (the preset routes every other scheme to None, and the
        # admission gate refuses them by name): the scheme is checked once, there
        missing = admission.missing_stamps(request, kind)
        if missing:
            _refuse(
                self.crawler,
                NOT_ADMITTED,
                f"not admitted by {', '.join(missing)} at this URL (it went around the gates)",
                request,
                missing=missing,
            )
        self._as_sent(request)
        host = request_host(request)
        self._identity(request)
        self._host_header(request, host)
        await self._blocklist_and_proxy(request)
        self._timeout(request)
        if self.context.dry_run:
            self._dry_run(request, host, kind)
        self._lease_still_ours(request)
        stamp_bound(request, self.max_body_bytes)
        return host

    def prepare(self, request: Request, host: str) -> send_gate.Send:
        """Under the lock: the crawl is not stopping, the decision still holds, the host's slot is
        reserved, the request signed."""
        if waiting.closing(self.crawler):
            raise waiting.unsent(self.crawler, request.url)  # it waited for the lock while the crawl stopped
        if (kind := self.generations.moved(request)) is not None:
            # prepared while another request was on the network, and since then its origin's
            # robots.txt, the operator's list or its host's pause changed: never sent on the old
            # verdict, it walks the gates again
            self.stats.inc_value(f"{REDONE}/{kind}")
            raise DecisionStale(host, kind)
        began = time.monotonic()
        # the authoritative reservation, with the host lease held until the request is written
        lease = self.politeness.reserve_to_send(host, uuid.uuid4().hex)
        if lease.wait:
            self.stats.inc_value(SLOT_TAKEN)
            raise NotYourTurn(host, lease.wait)
        if self.signer is not None:
            self.signer.sign(request)  # last: the User-Agent and every header are final
        return send_gate.Send(self.politeness, host, lease, began)

    async def send(self, request: Request, flight: send_gate.Send, kind: str | None) -> Response:
        """The journal's ``send`` entry (write-ahead), the download, then its ``outcome`` entry."""
        sends = self.process.sends
        sends.append(flight)
        # every send of the process is in ``sends`` until its answer: R4 is the count staying 1
        self.stats.max_value(MAX_IN_FLIGHT, len(sends))
        flight.start()
        sid = self.journal.before_send(request, flight.host, flight.lease, kind)  # before the bytes leave
        try:
            response = await self.inner.download_request(request)
        except BaseException as exc:
            # refused on the way (the address guard at connect time: a refusal entry follows), or
            # connected but the host's slot was not ours any more: nothing was written to the server
            written = not isinstance(exc, (WalshIgnoreRequest, send_gate.NotWritten))
            self.journal.unanswered(sid, flight.host, exc, written)
            self._failed(request, flight.host, exc)
        self.journal.answered(sid, request, flight.host, response, kind)
        return response

    def _failed(self, request: Request, host: str, exc: BaseException) -> NoReturn:
        """Raise what a send that got no answer ends with."""
        if isinstance(exc, send_gate.NotWritten):
            # nothing was written: the slot was not ours any more, or the store could not say
            self.stats.inc_value(NOT_WRITTEN)
            if exc.cause is not None:
                raise exc.cause from None
            raise NotYourTurn(host, exc.wait) from None
        if isinstance(exc, Exception) and (over := over_bound(exc)) is not None:
            raise headers_refused(self.crawler, request, over.why, over.lines, over.size) from exc
        raise exc

    def settle(self, flight: send_gate.Send, kind: str | None) -> None:
        """The send ended: the host is settled; counted when the next request waits at the lock."""
        flight.stop()
        self.process.sends.remove(flight)
        if flight.refusal is None:
            # answer, timeout or reset: the interval counts from now (the reservation already
            # stamped the start, so a store that fails here loses no answer); an answer ends a run
            # of timeouts at the pacing gate, which sees it is one. Written with the next
            # reservation while the host lease holds the host.
            with suppress(StoreUnavailable):
                self.politeness.settle(flight.host, answered=False, held_until=flight.lease.until)
        if self.lock.waiting:
            self.stats.inc_value(f"{NEXT_PREPARED}/{kind or 'page'}")

    async def close(self) -> None:
        await self.inner.close()

    # ------------------------------------------------------------------ the checks

    def _dry_run(self, request: Request, host: str, kind: str | None) -> None:
        """Explain's crawler: a target is evaluated and not sent (its pace read from the
        shared ledger, nothing reserved); offline, nothing at all is sent."""
        if self.context.offline and kind is not None:
            raise OfflineNotSent(f"not sent (--offline): {request.url}")
        if kind is None:
            self.politeness.refresh([host])
            wait = self.politeness.peek(host)  # what the reservation would answer, nothing taken
            if wait > self.politeness.max_pause:
                raise NotYourTurn(host, wait)  # the pacing gate refuses it, as in a crawl
            raise NotSent(request.url, wait)

    def _lease_still_ours(self, request: Request) -> None:
        """A crawl that went longer than the lease bound without a heartbeat (frozen, cut off from
        the store) may have had its R8 leases taken over by a crawl elsewhere, which sends those
        targets: from then on each target is checked against the store before it is sent (one
        read), and one taken over is not sent again (R8)."""
        if Meta.FETCH_CLAIM not in request.meta or not leases.may_have_lapsed(self.context.crawl_id):
            return
        if admission.live_claim(self.crawler, request, self.politeness.store, FETCHED_NAMESPACE) is None:
            refuse(
                self.crawler,
                RecentlyFetched(
                    SKIPPED_RECENTLY_FETCHED,
                    "its R8 lease was taken over while this crawl went without a heartbeat for longer than "
                    f"{leases.HOLDER_BOUND:.0f} s (frozen, or cut off from the store): another crawl sends it",
                    request.url,
                ),
            )

    def _as_sent(self, request: Request) -> None:
        """The URL every gate judged is the one written: Scrapy's form, no dot segments, one host
        to every parser (docs/url-model.md)."""
        try:
            same = sent_url(request.url) == request.url
        except UnsafeURL as exc:
            _refuse(self.crawler, AMBIGUOUS_URL, str(exc), request)
        if not same:
            _refuse(self.crawler, AMBIGUOUS_URL, "not the URL Scrapy sends for it (dot segments, or verbatim)", request)

    def _identity(self, request: Request) -> None:
        sent = request.headers.getlist(b"User-Agent")
        if sent == [self._ua]:
            return
        request.headers[b"User-Agent"] = self._ua
        if not sent:
            return  # nobody set one (Scrapy's UserAgentMiddleware disabled): nothing was overridden
        self.stats.inc_value(UA_OVERRIDDEN)
        if not self._logged_ua:
            self._logged_ua = True
            logger.warning(
                "R1: replaced User-Agent %r with %r on %s (at the checkpoint; a spider, the request or "
                "a middleware set it); every further override is counted in %s, not logged",
                b", ".join(sent).decode("latin-1"),
                self._ua.decode(),
                request.url,
                UA_OVERRIDDEN,
            )

    def _host_header(self, request: Request, host: str) -> None:
        values = request.headers.getlist(b"Host")
        if not values:
            return
        named = [_authority_host(v.decode("latin-1")) for v in values]
        if len(values) > 1 or named[0] != host:
            _refuse(
                self.crawler,
                HOST_HEADER_MISMATCH,
                f"Host header {b', '.join(values).decode('latin-1')!r} is not the URL's host {host!r}",
                request,
            )

    async def _blocklist_and_proxy(self, request: Request) -> None:
        """The blocklist gate's own check again (the list may have been refreshed while the
        request waited for its slot), then the proxy, which no gate sees."""
        blocklist, guard = self._gates()
        if blocklist is not None and (entry := blocklist.listed(request)) is not None:
            _refuse(self.crawler, NOT_ADMITTED, f"covered by blocklist entry {entry.domain!r} now", request)
        proxy = request.meta.get("proxy")
        if not proxy:
            return
        text = proxy.decode("latin-1") if isinstance(proxy, bytes) else str(proxy)
        try:
            proxy_host = split(text if "://" in text else f"http://{text}").hostname or ""
        except ValueError:
            proxy_host = ""
        if not proxy_host:
            _refuse(self.crawler, PROXY_REFUSED, f"proxy {text!r} has no host", request)
        if blocklist is not None and blocklist.blocklist.match(host_key(proxy_host)) is not None:
            _refuse(self.crawler, PROXY_REFUSED, f"proxy {proxy_host} is on the operator blocklist", request)
        if guard is not None:
            refusal = await guard.refusal_for(proxy_host)
            if refusal is not None:
                address, kind = refusal
                _refuse(
                    self.crawler,
                    PROXY_REFUSED,
                    f"proxy {proxy_host} is a {kind.replace('_', '-')} address ({address}); the address rule",
                    request,
                    address=address,
                    address_class=kind,
                )

    def _timeout(self, request: Request) -> None:
        value = request.meta.get("download_timeout")
        try:
            ok = value is None or (math.isfinite(float(value)) and float(value) >= DOWNLOAD_TIMEOUT_FLOOR)
        except (TypeError, ValueError):
            ok = False
        if not ok:
            self.stats.inc_value(TIMEOUT_RAISED)
            request.meta["download_timeout"] = DOWNLOAD_TIMEOUT_FLOOR

    def _gates(self) -> tuple[Any, Any]:
        """The crawl's blocklist gate and address guard (the instances the middlewares use)."""
        if self._found_gates is None:
            from scrapy_walsh.middlewares.addresses import AddressGuardMiddleware
            from scrapy_walsh.middlewares.blocklist import BlocklistMiddleware

            get = self.crawler.get_downloader_middleware  # called at a download: the engine runs
            self._found_gates = (get(BlocklistMiddleware), get(AddressGuardMiddleware))
        return self._found_gates


def _authority_host(value: str) -> str:
    """The host key of a ``Host`` header value (port dropped)."""
    try:
        return host_key(split(f"//{value.strip()}").hostname)
    except ValueError:
        return f"<unparsable {value!r}>"
