"""R3: the operator blocklist gate, the first policy gate a request meets.

The list at ``WALSH_BLOCKLIST_URL`` is fetched through the crawler before the first request
leaves, validated against its published schema and adopted; a list that can't be fetched or
fails validation never replaces the one we have (kept in the state store and on this machine),
and a stored list that passes no schema refuses every request (fail closed). A blocked host is
refused before the robots gate, so it is never contacted, not even for robots.txt.
docs/requirements/r3-blocklist.md and docs/architecture.md ("The modules, one by one") say why.
"""

from __future__ import annotations

import json
import logging
import time
from typing import TYPE_CHECKING, Any

from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.exceptions import BlockedByOperator, refuse
from scrapy_walsh.middlewares.base import StatefulGate
from scrapy_walsh.policy.blocklist import (
    MAX_DOCUMENT_BYTES,
    Blocklist,
    BlocklistEntry,
    InvalidBlocklist,
    InvalidSchema,
    bundled_schema,
    from_schema_record,
    from_stored,
    load_schema,
    replaces,
    schema_record,
    stored_record,
)
from scrapy_walsh.policy.gates import fetched_after
from scrapy_walsh.policy.hostkey import url_host
from scrapy_walsh.policy.vocabulary import BLOCKED_BY_OPERATOR, NOT_BLOCKED, Namespace
from scrapy_walsh.sending import admission, own_fetch, request_meta
from scrapy_walsh.sending.decision_inputs import BLOCKLIST, Generations
from scrapy_walsh.sending.pacer import SharedPacer
from scrapy_walsh.sending.request_meta import request_host
from scrapy_walsh.store import fetching, machine_state

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler

    from scrapy_walsh.store import StateStore

logger = logging.getLogger(__name__)

PRIORITY = 90  # before robots (100): R3 runs first
#: After a failed fetch, try again this soon (bounded by the list's own refresh).
RETRY_AFTER_FAILURE = 300.0
#: With a list in force, a refresh waits at most this long for the list's host (targets never wait on it).
REFRESH_WAIT = 1.0
#: A published schema is kept this long in the store, for runs that can't fetch it.
SCHEMA_TTL = 7 * 86400
#: A published schema fetched within this long (robots.txt's cache, RFC 9309 §2.4) validates the
#: lists of later runs without a request: the list's host is asked once per refresh, not twice, so
#: a list no longer waits a slot of that host (1 s, or the pace it asked) behind its schema. A list
#: the cached copy refuses is validated again against the schema fetched then.
SCHEMA_FRESH = 86400.0
NAMESPACE = Namespace.BLOCKLIST


class BlocklistMiddleware(StatefulGate):
    def __init__(self, crawler: Crawler, store: StateStore):
        super().__init__(crawler, store)
        config = CrawlContext.of(crawler).config
        self.url: str = config.blocklist_url
        self.schema_url: str | None = config.blocklist_schema_url or None
        self.extra: list[str] = list(config.blocklist_extra)
        self.blocklist = Blocklist.empty().with_extra(self.extra)
        self.source = "none"
        self.next_refresh = 0.0  # fetch before the first request
        #: a list another process of the identity fetched after both this crawl's start and the
        #: list in force (its ``fetched_at``) is adopted as if fetched here
        self._started = self._fetched_at = time.time()
        self.politeness = CrawlContext.of(crawler).get(SharedPacer)
        #: a refresh, an adoption or a refusal of all make the decisions read before stale
        self.generations = CrawlContext.of(crawler).get(Generations)
        self._host = url_host(self.url)
        self._refreshing: Deferred[None] | None = None
        self._schema: dict[str, Any] | None = None
        self._schema_key = f"schema:{self.schema_url}"
        #: the store's record of the published schema, read with the stored list
        self._schema_stored: Any = None
        #: the schema in use is the store's copy of the published one, not fetched in this run
        self._schema_cached = False
        #: Why the stored list could not be re-adopted; until a fresh list is adopted the gate fails closed.
        self._stored_refused: str | None = None
        #: Warnings already given this run (each is said once).
        self._said: set[str] = set()
        self._restore()

    # ------------------------------------------------------------------ the gate

    async def process_request(self, request: Request, spider: Spider | None = None) -> None:
        kind = admission.own_fetch_kind(request)
        if kind in (own_fetch.BLOCKLIST, own_fetch.BLOCKLIST_SCHEMA):
            return  # the operator's own contract resources
        if time.time() >= self.next_refresh:
            await self._refresh_once()
        host = request_host(request)
        entry = self.listed(request)
        if entry is None:
            request_meta.record_verdict(request, "blocklist", NOT_BLOCKED)
            admission.stamp(request, admission.BLOCKLIST)
            self.generations.note(request, BLOCKLIST)
            return
        self.stats.inc_value("walsh/blocklist/blocked")
        if request.meta.get("redirect_urls"):
            self.stats.inc_value("walsh/blocklist/redirect_blocked")
        if kind == own_fetch.ROBOTS:
            self.stats.inc_value("walsh/blocklist/robots_blocked")
        added = f"added {entry.added}: " if entry.added else ""
        refuse(
            self.crawler,
            BlockedByOperator(
                BLOCKED_BY_OPERATOR,
                f"{host} is covered by blocklist entry {entry.domain!r} ({added}{entry.reason})",
                request.url,
                domain=entry.domain,
                added=entry.added.isoformat() if entry.added else None,
                entry_reason=entry.reason,
            ),
        )

    def listed(self, request: Request) -> BlocklistEntry | None:
        """The entry of the list in force now that covers ``request``'s host (None: not
        blocked; the operator's own list and schema are never blocked). The one blocklist
        check: this gate asks it, and the checkpoint asks it again before the network, for
        a list refreshed while the request waited for its slot."""
        if admission.own_fetch_kind(request) in admission.BLOCKLIST_KINDS:
            return None
        return self.blocklist.match(request_host(request))

    # ------------------------------------------------------------------ refresh

    async def _refresh_once(self) -> None:
        """One fetch at a time; requests arriving meanwhile wait for its outcome."""
        if self._refreshing is not None:
            await maybe_deferred_to_future(self._refreshing)
            return
        waiting: Deferred[None] = Deferred()
        self._refreshing = waiting
        try:
            await self._refresh()
        finally:
            # what the list's host asked in its answers holds until the list is due again, never longer
            self.politeness.settle_list_asks(self.next_refresh - time.time())
            self._refreshing = None
            waiting.callback(None)

    async def _refresh(self) -> None:
        if self._host_not_ready():
            return
        # one fetch per identity: a fleet starting together would otherwise queue its fetches of
        # the list (and its schema) at the list host's 1 s floor, one process after another
        resource, since = f"blocklist {self.url}", max(self._started, self._fetched_at)
        claimed, saved = fetching.claim_unless_fresh(self.store, resource, (NAMESPACE, self.url), since)
        if not claimed and not fetched_after(saved, since):
            saved = await self._copy_from_another_process(resource)
        if fetched_after(saved, since) and self._adopt_peer_copy(saved):
            return
        try:
            await self._fetch_and_adopt()
        finally:
            if claimed:
                fetching.release(self.store, resource)

    async def _copy_from_another_process(self, resource: str) -> Any:
        """The list another process of the identity is fetching, once it has stored it."""
        await fetching.released(self.crawler, self.store, resource)
        return self.store.get(NAMESPACE, self.url)

    def _adopt_peer_copy(self, saved: Any) -> bool:
        """Adopt the list another process fetched (validated again here), due for a refresh when
        its own fetch is; False when it can't be used, so that this process fetches one."""
        try:
            peer, _ = from_stored(saved)
        except InvalidBlocklist:
            return False
        fetched_at = float(saved["fetched_at"])
        if time.time() >= fetched_at + peer.refresh_seconds:
            return False
        if self._newer(peer):
            self._adopt(peer, "stored")
            schema = saved.get("schema")
            self._schema, self._schema_cached = (dict(schema), True) if isinstance(schema, dict) else (None, False)
            machine_state.save_blocklist(self.store.identity, self.url, saved)
        self._fetched_at = fetched_at
        self.next_refresh = fetched_at + peer.refresh_seconds
        return True

    async def _fetch_and_adopt(self) -> None:
        if self._schema is None:
            self._schema = await self._load_schema(cached=True)
        failure = None
        # a request waiting at the checkpoint meanwhile decides again, after this refresh
        self.generations.bump(BLOCKLIST)
        try:
            response = await own_fetch.fetch(
                self.crawler, self.url, own_fetch.BLOCKLIST, download_maxsize=MAX_DOCUMENT_BYTES
            )
        except Exception as exc:  # network errors, size cap, a gate's refusal
            failure = f"fetch failed: {type(exc).__name__}: {exc}"
        else:
            if response.status != 200:
                failure = f"HTTP {response.status}"
            else:
                try:
                    try:
                        fetched = await self._validated(response.body)
                    except InvalidSchema as exc:  # the published schema itself is unusable
                        logger.warning("Blocklist schema unusable (%s); validating with the bundled copy", exc)
                        self._schema = bundled_schema()
                        self.stats.set_value("walsh/blocklist/schema", "bundled")
                        fetched = Blocklist.from_document(response.body, schema=self._schema)
                except InvalidBlocklist as exc:
                    failure = f"invalid: {exc}"
                    self.stats.inc_value("walsh/blocklist/rejected")
                else:
                    self._fetched_at = time.time()
                    if self._newer(fetched):
                        self._adopt(fetched, "fetched")
                        record = stored_record(fetched, self._schema, self._fetched_at)
                        self.store.set(NAMESPACE, self.url, record)
                        machine_state.save_blocklist(self.store.identity, self.url, record)  # one the store can't lose
                    return
        self._keep(failure)

    def _newer(self, fetched: Blocklist) -> bool:
        """A valid list older than the adopted one is not adopted (R3: a rollback never
        un-blocks); the adopted one is kept until the next refresh. Each odd case is said once."""
        if self.source not in ("stored", "fetched"):
            return True
        adopt, why = replaces(self.blocklist, fetched)
        if not adopt:
            self.stats.inc_value("walsh/blocklist/older_refused")
            self.next_refresh = time.time() + self.blocklist.refresh_seconds
        if why is not None and why not in self._said:
            self._said.add(why)
            logger.warning(
                "Operator blocklist %s: %s; %s",
                self.url,
                why,
                "adopting it" if adopt else f"keeping the adopted list ({self.source}, {len(self.blocklist)} entries)",
                extra={"spider": self.crawler.spider},
            )
        return adopt

    def _host_not_ready(self) -> bool:
        """With a list in force, the refresh never makes the targets wait for the list's host
        (R3): while the host is paused (a Retry-After or RateLimit it asked for, capped
        at the time the list is due again, :meth:`~scrapy_walsh.sending.pacer.SharedPacer.settle_list_asks`)
        or still in its interval, the list in force is kept, said once,
        and the refresh is tried again when the host is ready."""
        if self.source not in ("stored", "fetched"):
            return False  # nothing in force yet: the first list is worth waiting for
        self.politeness.refresh([self._host])
        wait = self.politeness.ready_at(self._host) - self.politeness.now()
        if wait <= REFRESH_WAIT:
            return False
        retry_in = min(wait, self.blocklist.refresh_seconds)
        self.next_refresh = time.time() + retry_in
        self.stats.inc_value("walsh/blocklist/refresh_deferred")
        if "deferred" not in self._said:
            self._said.add("deferred")
            logger.warning(
                "Operator blocklist %s: its host %s is not ready for %.0f s (%s); keeping the %s list "
                "(%d entries) and sending the targets without waiting for it; the refresh is tried again "
                "in %.0f s",
                self.url,
                self._host,
                wait,
                self.politeness.wait_reason(self._host),
                self.source,
                len(self.blocklist),
                retry_in,
                extra={"spider": self.crawler.spider},
            )
        return True

    def adopt_given(self, blocklist: Blocklist, source: str = "file") -> None:
        """Adopt a list given by hand (``scrapy walsh explain --blocklist-file``) as the fetched
        one, and never refresh it: the crawl reads it as the operator's list."""
        self._adopt(blocklist, source)
        self.next_refresh = float("inf")

    def _adopt(self, blocklist: Blocklist, source: str) -> None:
        self.blocklist = blocklist.with_extra(self.extra)
        self.generations.bump(BLOCKLIST)
        self.source = source
        self._stored_refused = None
        self.next_refresh = time.time() + blocklist.refresh_seconds
        self.stats.inc_value(f"walsh/blocklist/adopted/{source}")
        self.stats.set_value("walsh/blocklist/entries", len(self.blocklist))
        self.stats.set_value("walsh/blocklist/source", source)
        logger.info(
            "Operator blocklist adopted (%s): %d entries from %s, next refresh in %.0f s",
            source,
            len(self.blocklist),
            self.url,
            blocklist.refresh_seconds,
            extra={"spider": self.crawler.spider},
        )

    def _keep(self, failure: str) -> None:
        """Keep what we have (R3: an outage never un-blocks), and say so."""
        self.stats.inc_value("walsh/blocklist/fetch_failed")
        retry_in = min(RETRY_AFTER_FAILURE, self.blocklist.refresh_seconds)
        self.next_refresh = time.time() + retry_in
        if self._stored_refused is not None:
            self._fail_closed(failure, retry_in)
        elif self.source == "none":
            self.stats.set_value("walsh/blocklist/source", "empty")
            self.stats.set_value("walsh/blocklist/empty_first_failure", 1)
            logger.warning(
                "Operator blocklist %s: %s, and no list was ever adopted: crawling with "
                "an EMPTY blocklist%s (R3 first-ever failure); retrying in %.0f s",
                self.url,
                failure,
                f" plus {len(self.extra)} WALSH_BLOCKLIST_EXTRA entries" if self.extra else "",
                retry_in,
                extra={"spider": self.crawler.spider},
            )
        else:
            logger.warning(
                "Operator blocklist %s: %s; keeping the last adopted list (%s, %d entries); retrying in %.0f s",
                self.url,
                failure,
                self.source,
                len(self.blocklist),
                retry_in,
                extra={"spider": self.crawler.spider},
            )

    def _fail_closed(self, failure: str, retry_in: float) -> None:
        """R3: no fresh list, and the stored one passes no schema: refuse every request,
        never crawl with an empty list. Said once; the fetch is retried as usual."""
        first = self.source != "refused"
        self.generations.bump(BLOCKLIST)
        self.blocklist = Blocklist.refusing_all(
            f"no usable operator blocklist: {self.url} {failure}, and the stored list is unusable (R3 fails closed)"
        )
        self.source = "refused"
        self.stats.set_value("walsh/blocklist/source", "refused")
        if first:
            logger.error(
                "Operator blocklist %s: %s, and the list stored in the state store (namespace %r, key %r) "
                "passes neither the schema it was adopted with nor the bundled one (%s): every request is "
                "refused until a fresh list is adopted, never crawled with an EMPTY list (R3); retrying in %.0f s",
                self.url,
                failure,
                str(NAMESPACE),
                self.url,
                self._stored_refused,
                retry_in,
                extra={"spider": self.crawler.spider},
            )

    def _restore(self) -> None:
        """Adopt the list persisted by an earlier run, if any, before anything is fetched:
        re-validated against the schema it was adopted with, or the bundled one. The store's, or
        this machine's copy of the last list adopted here when the store has none or an older
        one (a store started afresh never means an empty list, R3)."""
        copy = machine_state.saved_blocklist(self.store.identity, self.url)
        keys = [self.url, self._schema_key] if self.schema_url else [self.url]
        stored = self.store.get_many(NAMESPACE, keys)  # the list and its schema in one read
        self._schema_stored = stored.get(self._schema_key)
        saved = self._newest(stored.get(self.url), copy)
        if not saved:
            return
        try:
            restored, schema = from_stored(saved)
        except InvalidBlocklist as exc:
            self.stats.inc_value("walsh/blocklist/stored_rejected")
            logger.warning(
                "The stored blocklist for %s passes no schema (%s): it is not replaced by an empty list; "
                "nothing is fetched until a fresh list is adopted",
                self.url,
                exc,
            )
            self._stored_refused = str(exc)
            return
        self._adopt(restored, "stored")
        self.stats.set_value("walsh/blocklist/stored_schema", schema)
        self.next_refresh = 0.0  # still fetch a fresh copy before the first request
        machine_state.save_blocklist(self.store.identity, self.url, saved)

    def _newest(self, stored: Any, copy: Any) -> Any:
        """The store's record, or this machine's copy when the store has none or the copy's list
        is newer (said, and counted in ``walsh/blocklist/local_copy``)."""
        if not copy or copy == stored:
            return stored
        if stored:
            try:
                if not replaces(from_stored(stored)[0], from_stored(copy)[0])[0]:
                    return stored
            except InvalidBlocklist:
                return stored  # the stored record decides, as before (it fails closed when unusable)
        self.stats.set_value("walsh/blocklist/local_copy", 1)
        logger.warning(
            "Operator blocklist %s: the state store %s; using this machine's copy of the last list adopted "
            "here (never an empty list, R3)",
            self.url,
            "has an older one" if stored else "has none",
        )
        return copy

    async def _validated(self, body: bytes) -> Blocklist:
        """The list, validated by the schema in use; one that the cached copy of the published
        schema refuses is validated again by the schema fetched now (it may have changed with the list)."""
        assert self._schema is not None
        try:
            return Blocklist.from_document(body, schema=self._schema)
        except InvalidSchema:
            raise
        except InvalidBlocklist:
            if not self._schema_cached:
                raise
        self._schema = await self._load_schema(cached=False)
        return Blocklist.from_document(body, schema=self._schema)

    async def _load_schema(self, cached: bool) -> dict[str, Any]:
        """The published schema: the store's copy when it was fetched within
        :data:`SCHEMA_FRESH` (``cached``), else fetched now; when it can't be had or is not a valid
        schema, a stored copy of it, else the bundled one (the contract (§5.2))."""
        self._schema_cached = False
        if self.schema_url is None:
            return bundled_schema()
        if cached:
            schema, fetched = from_schema_record(self._schema_stored)
            if schema is not None and fetched is not None and 0 <= time.time() - fetched < SCHEMA_FRESH:
                self._schema_cached = True
                self.stats.set_value("walsh/blocklist/schema", "cached")
                return schema
        try:
            response = await own_fetch.fetch(self.crawler, self.schema_url, own_fetch.BLOCKLIST_SCHEMA)
            if response.status != 200:
                raise ValueError(f"HTTP {response.status}")
            schema = load_schema(json.loads(response.body))
        except Exception as exc:
            stored, _ = from_schema_record(self.store.get(NAMESPACE, self._schema_key))
            source = "stored" if stored else "bundled"
            self.stats.set_value("walsh/blocklist/schema", source)
            logger.info(
                "Blocklist schema %s unavailable (%s: %s); using the %s copy",
                self.schema_url,
                type(exc).__name__,
                exc,
                source,
            )
            return stored or bundled_schema()
        self.store.set(NAMESPACE, self._schema_key, schema_record(schema, time.time()), ttl=SCHEMA_TTL)
        self.stats.set_value("walsh/blocklist/schema", "published")
        return schema
