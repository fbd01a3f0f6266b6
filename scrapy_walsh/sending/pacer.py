"""The crawl's one pacer, persisted, shared by the pacing and backoff middlewares and the queue.

``CrawlContext.of(crawler).get(SharedPacer)`` returns the same object to every component. The pacing
:class:`~scrapy_walsh.store.ledger.Ledger` in the state store is the authority (a slot is reserved
there atomically), the local :class:`Pacer` a copy the queue may choose from. With Redis every
process of the identity shares one ledger. docs/requirements/r4-pacing.md says why.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from scrapy import signals

from scrapy_walsh.config import host_intervals
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.policy.addresses import parse_ip
from scrapy_walsh.policy.gates import crawl_delay_over_cap
from scrapy_walsh.policy.pacing import (
    CLOCK_SLACK,
    LOGGED_WAIT,
    HostPace,
    Pacer,
    interval_applied,
    unstep,
    wait_reason,
)
from scrapy_walsh.policy.vocabulary import IntervalWhy, Namespace
from scrapy_walsh.sending import admission, request_meta
from scrapy_walsh.sending.decision_inputs import PACE, Generations
from scrapy_walsh.store import StateStoreError, open_crawl_store, waiting
from scrapy_walsh.store.ledger import Ledger, own_key, slot_wait, watched_key

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector
    from twisted.internet.base import DelayedCall

logger = logging.getLogger(__name__)

#: Added to every computed ready time: the server sees a request a few milliseconds
#: after we stamp it, and those milliseconds vary from one request to the next.
PACING_MARGIN = 0.010
#: A ledger entry outlives the host's interval or pause by this long (its store TTL).
KEEP = 60.0
#: A settle kept for the next reservation is written at the latest this many seconds before its
#: request's host lease ends (:meth:`SharedPacer.settle`): room for a busy reactor.
FLUSH_LEAD = 0.2
NAMESPACE = Namespace.PACING
#: Fields every process shares through the store; the robots terms and the adaptive delay
#: are also written (a restart starts from them) but each process keeps its own.
SHARED = ("last_start", "not_before")

if TYPE_CHECKING:
    from scrapy_walsh.store import Reservation


#: Requests sent back to the scheduler because another host was ready sooner.
REQUEUED = "walsh/pacing/requeued"
#: Requests whose start was stamped again as they were written (:meth:`SharedPacer.confirm`).
CONFIRMED_LATE = "walsh/pacing/confirmed_late"
#: Requests whose bytes left late after their stamp, stamped again once out (:meth:`SharedPacer.stamp_written`).
STAMPED_AFTER_WRITE = "walsh/pacing/stamped_after_write"
#: Of those, the ones that found another process's start or a pause there already (stamped all the same).
WRITTEN_AFTER_LAPSE = "walsh/pacing/written_after_lapse"
#: Ledger entries (hosts and addresses) a clock step had left ahead, mended (:meth:`SharedPacer.mend`).
CLOCK_STEP_HOSTS = "walsh/pacing/clock_step_hosts"


def back_to_scheduler(request: Request) -> Request:
    """The copy of ``request`` a gate returns to send it back to the scheduler: its admission
    tokens carried over, counted as a requeue (``request_meta.first_pass`` is then False)."""
    request.meta[request_meta.REQUEUED] = request.meta.get(request_meta.REQUEUED, 0) + 1
    return admission.carry(request, request.replace(dont_filter=True))


#: Hosts a reservation reads ahead for the queue's next pop: as many as one pop reads
#: (``queue.CANDIDATES``), the reserved host left out; the queue reads twice as many of its ready
#: hosts and as many of those due next (:meth:`~scrapy_walsh.sending.queue.PolitenessAwarePriorityQueue.upcoming`).
READ_AHEAD = 4

#: At most this many addresses of one host are reserved with it (one transaction whatever the
#: number: the cost per request stays bounded for a name with many A/AAAA records).
MAX_ADDRESSES = 8


def pace_keys(host: str, addresses: list[str], pace_by: str) -> tuple[list[str], list[dict[str, Any]]]:
    """Every ledger key one request reserves, and how: its pacing key first, then the
    host and each address it resolves to, so processes pacing by host and by address meet in one
    ledger whatever each is told. Pacing by address, every key is owned (a start by anyone on the
    address counts). Pacing by host, the host is owned and each address watched
    (:func:`~scrapy_walsh.store.ledger.watched_key`): it waits for the processes pacing by
    address and they for it, while two names on one address stay two hosts to it."""
    addresses = [a for a in addresses[:MAX_ADDRESSES] if a != host]
    if pace_by == "ip" and addresses:
        keys = [*addresses, host]
        return keys, [own_key(i == 0) for i in range(len(keys))]
    return [host, *addresses], [own_key(True), *(watched_key() for _ in addresses)]


def own_keys(host: str, addresses: list[str], pace_by: str) -> list[str]:
    """The keys a settle or a pause moves: the ones this process paces by."""
    keys, modes = pace_keys(host, addresses, pace_by)
    return [key for key, mode in zip(keys, modes) if mode["write"] == "last_start"]


class _PaceTable(dict):
    """The pacer's ``hosts``, looked up through the pacing key: with ``WALSH_PACE_BY = "ip"``
    every name of one address (and its IP literal) reads and writes one :class:`HostPace`,
    whoever asks (the pacing, robots and backoff middlewares call the pacer by host)."""

    def __init__(self, key: Any):
        super().__init__()
        self._key = key

    def get(self, host: Any, default: Any = None) -> Any:
        return super().get(self._key(host), default)

    def __getitem__(self, host: Any) -> Any:
        return super().__getitem__(self._key(host))

    def __setitem__(self, host: Any, value: Any) -> None:
        super().__setitem__(self._key(host), value)

    def __contains__(self, host: object) -> bool:
        return super().__contains__(self._key(host))


class SharedPacer:
    def __init__(self, crawler: Crawler):
        config = CrawlContext.of(crawler).config
        floor = config.min_interval
        #: R4's cap and R5's longest pause: a host beyond either is refused by the pacing gate
        self.cap, self.max_pause = config.max_crawl_delay, config.backoff_max_delay
        self.store = CrawlContext.of(crawler).get(open_crawl_store)
        self.ledger = Ledger(self.store, NAMESPACE)
        self.pacer = Pacer(
            floor, margin=PACING_MARGIN, clock=self.ledger.now, host_floors=host_intervals(crawler.settings)
        )
        #: "ip": one interval per resolved address (WALSH_PACE_BY); "host" by default.
        self.pace_by = getattr(config, "pace_by", "host")
        self.by_ip = self.pace_by == "ip"
        #: host -> the addresses it resolved to (fed by the address guard, whatever pace_by)
        self.addresses: dict[str, list[str]] = {}
        if self.by_ip:
            self.pacer.hosts = _PaceTable(self.key)
        #: The scheduler's politeness queues; their per-host sub-queues say which hosts
        #: have requests waiting (an empty sub-queue is removed at once).
        self.queues: weakref.WeakSet[Any] = weakref.WeakSet()
        #: a stored time further ahead than this is a clock step (:func:`~scrapy_walsh.policy.pacing.unstep`)
        self.horizon = self.max_pause + CLOCK_SLACK
        #: the clock step has been said (one WARNING per crawl)
        self._step_said = False
        #: host -> the end of a pause beyond the longest one waited for that no clock step explains
        self._real_pauses: dict[str, float] = {}
        self.stats = crawler.stats
        entries = dict(self.ledger.entries())
        now = self.now()
        stepped = [key for key, data in entries.items() if unstep(data, now, self.horizon)[1] is not None]
        if stepped:
            with suppress(StateStoreError):  # the store is away: the first reservation finds it
                entries.update(self._rebase(stepped))
        for key, data in entries.items():
            dict.__setitem__(self.pacer.hosts, key, HostPace.from_json(data))  # stored by pacing key
        #: host -> (pause, RateLimit pace) asked in answer to the operator blocklist's own fetches,
        #: held until its gate has read the answer and knows when the list is due again
        #: (:meth:`settle_list_asks`): a pause is honoured until then, never longer.
        self._list_asks: dict[str, tuple[float, float | None]] = {}
        #: host -> the end of the last wait logged for it (each wait is said once)
        self._announced: dict[str, float] = {}
        #: the call that writes the kept settles before a host lease ends (:meth:`settle`)
        self._flush_call: DelayedCall | None = None
        crawler.signals.connect(self.flush, signal=signals.spider_closed)
        #: host -> what asked for its last pause from this process (the journal says why a request waited)
        self._paused_by: dict[str, IntervalWhy] = {}
        #: a pause makes the decisions prepared for the host stale (``scrapy_walsh.sending.decision_inputs``)
        self.generations = CrawlContext.of(crawler).get(Generations)
        #: hosts whose shared times the last reservation read for the next pop (:meth:`_ahead`)
        self._read_ahead: set[str] = set()
        #: tokens of leases whose requests went at once, not yet dropped from the store (:meth:`written`)
        self._written: list[str] = []

    def key(self, host: str) -> str:
        """The pacing key of ``host`` (itself, unless WALSH_PACE_BY = "ip")."""
        found = self.addresses.get(host)
        return found[0] if self.by_ip and found else host

    def keys(self, host: str) -> tuple[list[str], list[dict[str, Any]]]:
        """Every ledger key a request to ``host`` takes, and how: its pacing key, the host and each address."""
        return pace_keys(host, self.addresses.get(host, []), self.pace_by)

    def own(self, host: str) -> list[str]:
        return own_keys(host, self.addresses.get(host, []), self.pace_by)

    def learn(self, host: str, addresses: list[str]) -> None:
        """``host`` resolved to ``addresses`` (the address guard tells us, before pacing)."""
        if addresses:
            self.addresses[host] = addresses[:MAX_ADDRESSES]

    def now(self) -> float:
        """Now on the store's clock."""
        return self.ledger.now()

    def reserve(self, host: str) -> float:
        """Take ``host``'s next slot in the ledger if it is free now (0), else the wait in
        seconds (nothing taken); raises :class:`~scrapy_walsh.store.StoreUnavailable` when the
        store cannot answer."""
        return self.reserve_to_send(host, "").wait

    def reserve_to_send(self, host: str, token: str) -> Lease:
        """:meth:`reserve`, with a host lease ``token`` (``""``: none) that keeps every other
        process off the host until the request is written (:mod:`scrapy_walsh.sending.send_gate`). The one
        place a request's start is decided."""
        pace = self.pacer.pace(host)
        interval = self.pacer.interval(host)
        # the gap this request keeps after the host's last one, and why: decided before the
        # reservation moves the last start to now
        applied, why = interval_applied(pace, self.pacer.floor_for(host), self._paused_by.get(host))
        keys, modes = self.keys(host)
        hold = interval + self.pacer.margin
        ahead = self._ahead(host)
        reservation = self.ledger.reserve(
            keys,
            interval,
            self.pacer.margin,
            assign=self._own(pace),
            ttl=interval + KEEP,
            modes=modes,
            lease=(token, hold) if token else None,
            reads=list(ahead),
            written=self._written,
        )
        if not reservation.wait:
            self._written = []  # dropped from this reservation's keys; any other expires within a slot
        self._adopt(host, reservation)
        for key, other in ahead.items():
            self._merge(self.pacer.pace(other), reservation.read.get(key) or {})
        self._read_ahead = set(ahead.values())
        return Lease(token, keys, modes, reservation.now + hold, reservation.wait, applied, why)

    def confirm(self, host: str, lease: Lease) -> float:
        """``lease``'s request is written now: its start is stamped now (0), or the wait when another
        process started or is connecting since the lease lapsed, or a pause holds (nothing stamped:
        the request is not written). Raises ``StoreUnavailable``: not written either."""
        return self._stamp(host, lease, CONFIRMED_LATE)

    def _stamp(self, host: str, lease: Lease, counted: str, always: bool = False) -> float:
        """Stamp ``lease``'s request's start now (0), or the wait (nothing stamped unless
        ``always``: :meth:`Ledger.confirm`); counted as ``counted``."""
        if self.stats is not None:
            self.stats.inc_value(counted)
        interval = self.pacer.interval(host)
        done = self.ledger.confirm(
            lease.keys,
            lease.modes,
            lease.token,
            lease.until,
            interval,
            self.pacer.margin,
            ttl=interval + KEEP,
            always=always,
        )
        self._adopt(host, done)
        if not done.wait or always:
            lease.until = done.now + interval + self.pacer.margin  # the start stamped now keeps the host
        return done.wait

    def stamp_written(self, host: str, lease: Lease, late: float) -> None:
        """``lease``'s request was written just now, ``late`` s after the store call that stamped its
        start (a slow answer from the store, a stalled process): stamp it again now, so the host's
        next request counts from the write. The host is still this request's (its lease, or the
        start the first stamp wrote), so this only moves its start later. After a stall longer than
        the slot the store may hold another process's start instead: nothing takes back a request
        on the wire, but the host's interval still counts from this write, stamped in the same step
        (so the close pair stays one, not one on each side), and this says so. Raises
        ``StoreUnavailable``."""
        if not self._stamp(host, lease, STAMPED_AFTER_WRITE, always=True):
            return
        if self.stats is not None:
            self.stats.inc_value(WRITTEN_AFTER_LAPSE)
        logger.warning(
            "%s: a request written %.3f s after the store stamped its start found another process's start "
            "(the host's slot had passed: the two may have reached the server less than the interval apart) "
            "or a pause there already; the host's interval counts from this write",
            host,
            late,
        )

    def written(self, lease: Lease) -> None:
        """``lease``'s request went at once: the start stamped at its reservation is the send, so
        the lease is dropped with the next reservation, in its round trip."""
        self._written.append(lease.token)

    def renew(self, host: str, lease: Lease) -> bool:
        """Keep ``lease`` one more slot while its request is being connected; False when it had
        lapsed (another process may have the host: the write's :meth:`confirm` decides)."""
        interval = self.pacer.interval(host)
        hold = interval + self.pacer.margin
        done = self.ledger.renew(lease.keys, lease.token, hold, ttl=interval + KEEP)
        if done.wait:
            return False
        lease.until = done.now + hold
        return True

    def peek(self, host: str) -> float:
        """What :meth:`reserve` would answer now, nothing taken (explain's dry run): the same
        keys, modes and rule (:func:`~scrapy_walsh.store.ledger.slot_wait`), read in one get."""
        interval = self.pacer.interval(host)
        keys, modes = self.keys(host)
        found = self.ledger.get_many(keys)
        now = self.now()
        return max(
            slot_wait(found.get(key) or {}, now, i, interval, self.pacer.margin, modes) for i, key in enumerate(keys)
        )

    def settle(self, host: str, answered: bool = True, held_until: float | None = None) -> HostPace:
        """The answer arrived now (``answered``; else the request failed): the next interval
        counts from here (never earlier). An answer ends the host's run of timeouts.

        ``held_until``: the host lease of the request (the store's clock) still keeps every other
        process off the host until then. The settle is then kept and written with the next
        operation of the ledger (the next request's reservation, milliseconds later), or by
        :data:`FLUSH_LEAD` s before the lease ends, whichever comes first: one round trip less
        per request, and no other process reserves the host before it is written."""
        pace = self.pacer.pace(host)
        now = self.now()
        if answered and pace.timeouts:
            pace.timeouts = 0  # written below: the write is not skipped, the last start is a rest ago
        elif pace.last_start is not None and now - pace.last_start <= self.pacer.margin:
            # The answer came within the margin every ready time already adds: counting the
            # interval from it changes nothing, so no write (half the transactions per
            # request on a fast server). Durability is unchanged: the reservation
            # was committed before the request left.
            return pace
        keys, ttl = self.own(host), self.pacer.interval(host) + KEEP
        if held_until is not None and held_until - now > FLUSH_LEAD:
            self._flush_by(held_until - FLUSH_LEAD)
            return self._adopt(
                host, self.ledger.advance(keys, {"last_start": 0.0}, self._own(host), ttl=ttl, later=True)
            )
        return self._adopt(host, self.ledger.advance(keys, {"last_start": 0.0}, self._own(host), ttl=ttl))

    def _flush_by(self, when: float) -> None:
        """Write the kept settles by ``when`` (the store's clock) at the latest."""
        delay = max(0.0, when - self.now())
        if self._flush_call is not None and self._flush_call.active():
            if self._flush_call.getTime() <= self._flush_call.seconds() + delay:
                return
            self._flush_call.cancel()
        self._flush_call = waiting.call_later(delay, self.flush)

    def flush(self, spider: object = None) -> None:
        """Write the kept settles now (at their deadline, and when the spider closes); a store
        that is away keeps them for the next reservation."""
        if self._flush_call is not None and self._flush_call.active():
            self._flush_call.cancel()
        self._flush_call = None
        with suppress(StateStoreError):
            self.ledger.flush()

    def pause(self, host: str, until: float, why: IntervalWhy = IntervalWhy.BACKOFF) -> None:
        """R5: nothing goes to ``host`` before ``until`` (our clock, ``self.now()``), fleet-wide;
        ``why``: what asked for it. The pause is stamped (``paused_at``), so a clock set back later
        can tell its length from a step (:func:`~scrapy_walsh.policy.pacing.unstep`)."""
        self._paused_by[host] = why
        self.generations.bump(PACE, self.key(host))
        offset = until - self.now()
        ttl = max(offset, 0.0) + self.pacer.interval(host) + KEEP
        self._adopt(
            host,
            self.ledger.advance(self.own(host), {"not_before": offset, "paused_at": 0.0}, self._own(host), ttl=ttl),
        )

    def mend(self, host: str, wait: float) -> bool:
        """A wait of ``wait`` s for ``host`` is over what the host or a pause can ask (beyond
        ``WALSH_BACKOFF_MAX_DELAY``, or a start of ours ahead of the clock): if a clock step left its
        entries ahead, mend them (:func:`~scrapy_walsh.policy.pacing.unstep`) and say True, for the
        caller to ask again; False when none is ahead (the wait is real: a pause the site asked for).
        Raises ``StoreUnavailable``."""
        pace = self.pacer.pace(host)
        ahead = pace.last_start is not None and pace.last_start - self.now() > CLOCK_SLACK
        if not ahead and (wait <= self.max_pause or self._real_pauses.get(host) == pace.not_before):
            return False  # a pause found real is not asked about again for each of its requests
        keys = self.keys(host)[0]
        mended = self._rebase(keys)
        if not mended and ahead:  # another process mended them, or they expired: the local copy lags
            mended = {keys[0]: self.ledger.get_many(keys[:1]).get(keys[0]) or {"last_start": self.now()}}
        if not mended:
            self._real_pauses[host] = pace.not_before
            return False
        own = mended.get(keys[0])
        if own is not None:  # the stored times are earlier now: the local copy takes them as they are
            pace.last_start, pace.not_before = own.get("last_start"), own.get("not_before") or 0.0
        for key in keys[1:]:
            self._merge(pace, mended.get(key) or {})
        return True

    def _rebase(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """Mend each of ``keys`` a clock step left ahead; the mended entries, by key. Said once per
        crawl at WARNING, with how many and how far; counted in :data:`CLOCK_STEP_HOSTS`."""
        done = self.ledger.rebase(keys, CLOCK_SLACK, self.horizon)
        mended = {key: d.value for key, d in zip(keys, done) if d.wait}
        if not mended:
            return {}
        if self.stats is not None:
            self.stats.inc_value(CLOCK_STEP_HOSTS, len(mended))
        step = max(d.wait for d in done)
        hosts = sum(parse_ip(key) is None for key in mended)
        (logger.info if self._step_said else logger.warning)(
            "Read as a clock step: the pacing ledger had %d host%s (%d entr%s with their addresses) stamped "
            "up to %.0f s (%.1f h) ahead of this clock (it was set back since, or a run's clock was ahead). "
            "Their starts now count from this moment and a pause keeps the length the site asked for: no host "
            "is held or refused for the step, and the interval still holds at each server",
            hosts,
            "" if hosts == 1 else "s",
            len(mended),
            "y" if len(mended) == 1 else "ies",
            step,
            step / 3600,
        )
        self._step_said = True
        return mended

    def ready_at(self, host: str) -> float:
        """When ``host``'s next request may start, by the local copy of the ledger."""
        return self.pacer.ready_at(host)

    def wait_reason(self, host: str) -> str:
        """Why ``host``'s next request waits (:func:`~scrapy_walsh.policy.pacing.wait_reason`)."""
        return wait_reason(self.pacer.pace(host), self.pacer.floor)

    def announce_wait(self, host: str, wait: float) -> None:
        """A request to ``host`` is about to wait ``wait`` seconds: over ``LOGGED_WAIT`` it is
        logged at INFO, once, with the host, the reason and until when: a crawl never waits in silence."""
        if wait <= LOGGED_WAIT:
            return
        until = self.now() + wait
        if abs(self._announced.get(host, 0.0) - until) < 1.0:
            return  # this wait was said
        self._announced[host] = until
        logger.info(
            "Waiting %.1f s before the next request to %s, until %s UTC: %s",
            wait,
            host,
            datetime.fromtimestamp(until, timezone.utc).strftime("%Y-%m-%d %H:%M:%S"),
            self.wait_reason(host),
        )

    def list_host_asked(self, host: str, pause: float = 0.0, ratelimit: float | None = None) -> None:
        """The operator list's host answered the list's (or its schema's) own fetch asking for
        ``pause`` seconds (Retry-After, a backoff) or a RateLimit pace of ``ratelimit`` seconds
        per request. Nothing is applied yet: the cap is when the list is due again, which only
        its gate knows once it has read this answer (a new list brings its own ``refresh``)."""
        held, pace = self._list_asks.get(host, (0.0, None))
        if ratelimit is not None:
            pace = max(pace or 0.0, ratelimit)
        self._list_asks[host] = (max(held, pause), pace)

    def settle_list_asks(self, due_in: float) -> None:
        """Apply what the list's host asked (:meth:`list_host_asked`), each pause and pace capped
        at ``due_in``, the seconds until the list's gate fetches the list again: its ``refresh``
        after an adoption, the retry after a failure. No pause the list's host asks, on the first
        adoption or a later one, can keep a list past its refresh (R3)."""
        cap = max(0.0, due_in)
        asks, self._list_asks = self._list_asks, {}
        for host, (pause, ratelimit) in asks.items():
            if ratelimit is not None:
                self.pacer.pace(host).ratelimit = min(ratelimit, cap) or None
                pause = max(pause, self.pacer.interval(host))  # one interval, fleet-wide, as for any host
            self.pause(host, self.now() + min(pause, cap), IntervalWhy.RATELIMIT if ratelimit else IntervalWhy.BACKOFF)

    def interval(self, host: str) -> float:
        return self.pacer.interval(host)

    def _ahead(self, host: str) -> dict[str, str]:
        """The pacing keys (-> host) of the hosts the queue's next pop will read first, other than
        ``host``: read with ``host``'s reservation, in its round trip, so the pop that follows needs
        no read of its own. In a fleet only: there a read is a round trip; sqlite's is local."""
        if not self.store.fleet:
            return {}
        return {self.key(h): h for queue in self.queues for h in queue.upcoming(READ_AHEAD, host)}

    def refresh(self, hosts: Iterable[str]) -> None:
        """Bring the shared times of ``hosts`` up to date, in one store read (advice only:
        an unavailable store leaves the local copy as it is, and so does a failed one, which has
        stopped the crawl already: the scheduler's pop is no place for its traceback). Hosts read
        ahead with the last reservation are not read again, by every pop until the next one (the
        downloader's places may take several): that read is as fresh as the pop's own would have
        been a request ago, and the reservation still decides. Nor are the hosts an earlier pop
        read since then (pops with no reservation between them: a busy machine's engine asks again
        and again, milliseconds apart)."""
        keys = {self.key(h): h for h in hosts if h not in self._read_ahead}
        if not keys:
            return
        try:
            found = self.ledger.get_many(keys)
        except StateStoreError:
            return
        self._read_ahead.update(keys.values())
        for key, data in found.items():
            self._merge(self.pacer.pace(keys[key]), data)

    def sooner_elsewhere(self, host: str) -> float | None:
        """The ready time of the queued host, other than ``host``, that is ready first."""
        found = [t for queue in self.queues if (t := queue.soonest_other(host)) is not None]
        return min(found, default=None)

    def better_elsewhere(self, host: str) -> bool:
        """Another queued host is ready before ``host``: a request for ``host`` that must wait
        goes back to the scheduler rather than hold the one download slot."""
        sooner = self.sooner_elsewhere(host)
        return sooner is not None and sooner < self.pacer.ready_at(host)

    def requeue_instead(self, host: str) -> bool:
        """For a gate before pacing that just learnt ``host`` must wait (its robots.txt was
        fetched a moment ago): send the request back now, without passing the later gates
        twice. Not when the pacing gate would refuse it (a Crawl-delay over the cap, a pause
        beyond ``WALSH_BACKOFF_MAX_DELAY``): that refusal is not put off until the slot."""
        wait = self.pacer.ready_at(host) - self.now()
        if wait <= 0 or wait > self.max_pause or self.capped_delay(host) is not None:
            return False
        return self.better_elsewhere(host)

    def requeue(self, stats: StatsCollector, request: Request, host: str, early: bool = False) -> Request | None:
        """The one decision to send ``request`` back to the scheduler instead of waiting for
        ``host``'s slot: the copy to return, or None to wait. Never our own fetches (they don't
        cross the scheduler); only when another queued host is ready sooner. ``early``: asked by
        a gate before pacing (the robots gate, right after a robots.txt fetch), which also leaves
        the request alone when the pacing gate will refuse it (:meth:`requeue_instead`)."""
        if admission.own_fetch_kind(request) is not None:
            return None
        if not (self.requeue_instead(host) if early else self.better_elsewhere(host)):
            return None
        stats.inc_value(REQUEUED)
        return back_to_scheduler(request)

    def capped_delay(self, host: str) -> float | None:
        """R4's cap: ``host``'s Crawl-delay when it is over ``WALSH_MAX_CRAWL_DELAY`` (the host
        is not crawled), else None."""
        pace = self.pacer.hosts.get(host)
        delay = pace.crawl_delay if pace is not None else None
        return delay if crawl_delay_over_cap(delay, self.cap) else None

    def _own(self, pace: HostPace | str) -> dict[str, Any]:
        if isinstance(pace, str):
            pace = self.pacer.pace(pace)
        return {k: v for k, v in pace.to_json().items() if k not in SHARED}

    def _adopt(self, host: str, reservation: Reservation) -> HostPace:
        pace = self.pacer.pace(host)
        self._merge(pace, reservation.value)
        return pace

    @staticmethod
    def _merge(pace: HostPace, data: dict[str, Any]) -> None:
        """The stored times win when later (another process stamped or paused the host)."""
        for field in SHARED:
            theirs = data.get(field)
            if theirs is not None and (getattr(pace, field) is None or theirs > getattr(pace, field)):
                setattr(pace, field, theirs)


@dataclass
class Lease:
    """A slot taken with its host lease (:meth:`SharedPacer.reserve_to_send`): the keys it holds,
    how, and until when (the store's clock) no other process may start the host (the lease's end;
    once :meth:`SharedPacer.confirm` stamped the start again, the next slot after it); ``wait`` > 0:
    nothing was taken."""

    token: str
    keys: list[str]
    modes: list[dict[str, Any]]
    until: float
    wait: float
    #: The gap the request keeps after the host's previous one, and what set it (the journal's
    #: ``interval`` and ``why``)
    interval: float = 0.0
    why: IntervalWhy = IntervalWhy.FLOOR
