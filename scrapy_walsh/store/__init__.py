"""Persistent state: where it lives, and the one store a crawl shares.

``WALSH_STATE_URI`` follows SQLAlchemy's URL convention (``sqlite:///x.sqlite3``); a
``redis://``, ``rediss://`` or ``unix://`` URI selects fleet mode (:mod:`scrapy_walsh.store.redis`).
A bad URI stops the crawl before any request leaves. :func:`open_crawl_store` opens the one
store of a crawl, closed when the engine stops. docs/state-store.md says why.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from scrapy_walsh.config import StateLocation, parse_state_uri
from scrapy_walsh.config import state_location as configured
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.outputs import faults
from scrapy_walsh.outputs.faults import running_engine
from scrapy_walsh.store import leases, machine_state, waiting
from scrapy_walsh.store.base import (
    Operation,
    StateStore,
    StateStoreError,
    StoreLost,
    StoreRefused,
    StoreUnavailable,
    Updated,
)
from scrapy_walsh.store.ledger import Ledger, Reservation
from scrapy_walsh.store.sqlite import SqliteStore

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

__all__ = (
    "Ledger",
    "Operation",
    "Reservation",
    "StoreCannotOpen",
    "StateStore",
    "StateStoreError",
    "StoreUnavailable",
    "StoreLost",
    "StoreRefused",
    "SqliteStore",
    "Updated",
    "StateLocation",
    "parse_state_uri",
    "open_store",
    "open_crawl_store",
    "state_location",
)


def state_location(settings: BaseSettings) -> StateLocation:
    """``WALSH_STATE_URI`` for this crawl; the default is one file per identity per user,
    ``$XDG_STATE_HOME/scrapy-walsh/<identity>.sqlite3`` (``~/.local/state`` without
    ``XDG_STATE_HOME``), shared by every process of the identity on this machine_state."""
    return configured(settings)


def open_store(location: StateLocation, identity: str) -> StateStore:
    """A store for ``location``; raises :class:`StateStoreError` saying why it can't open."""
    if location.scheme == "sqlite":
        return SqliteStore(location.path, identity, uri=location.uri)
    if location.scheme == "redis":
        from scrapy_walsh.store.redis import RedisStore

        return RedisStore(location.uri, identity)
    raise StateStoreError(f"{location.shown}: no backend for {location.scheme!r}")


#: The store's operation counts (what a request costs the store), as stats at the end of a crawl.
COUNT_STATS: Mapping[str, str] = MappingProxyType(
    {
        "reads": "walsh/store/reads",
        "keys_read": "walsh/store/keys_read",
        "transactions": "walsh/store/transactions",
        "unsynced_transactions": "walsh/store/unsynced_transactions",
    }
)


def _announce(store: StateStore, shared: bool) -> None:
    """Say at start-up which store this crawl uses and who else uses it."""
    if store.fleet:
        how = "shared by every process of the identity that names this Redis (fleet mode)"
    elif shared:
        how = "shared by every process of the identity on this machine (the default: WALSH_STATE_URI unset)"
    else:
        how = "this project's own (WALSH_STATE_URI); other projects of the identity keep their own ledgers"
    logging.getLogger("scrapy_walsh").info("State store %s (identity %s): %s", store.uri, store.identity, how)


class StoreCannotOpen(StateStoreError):
    """The crawl's state store can't be opened: the crawl is refused at start, in one message."""

    #: reported as its message alone, never a traceback (scrapy_walsh/outputs/clean_refusal.py)
    clean_refusal = True


def _hold(crawler: Crawler, store: StateStore, separate: bool) -> None:
    """Register the crawl on this machine (:func:`scrapy_walsh.store.machine_state.register`: refused
    when another store of its identity is in use here) and in the store while its engine runs,
    with a heartbeat, so its leases hold and ``state reset`` refuses; unregister when the engine
    stops (before the store closes). Each beat also asks the store whether it is still the one it
    opened (:meth:`StateStore.check`; with Redis, the beat's write asks): a store that lost its data
    stops the crawl.

    Once the store has failed (:attr:`StateStore.failure`) the crawl is stopping for it: the
    heartbeat and the unregistering are not written any more. Each would hold the reactor for
    sqlite's busy timeout (a lock never released) only to fail again, and a stall while the
    engine stops breaks Scrapy's closing of its download handlers (a timed ``callback`` on a
    Deferred already fired: ``AlreadyCalledError``). The record expires after HEARTBEAT_TTL,
    and on this machine the crawl is seen gone as soon as its process ends (its lock)."""
    from scrapy import signals
    from scrapy.utils.asyncio import create_looping_call

    crawl = CrawlContext.of(crawler).crawl_id
    spider = getattr(crawler.spidercls, "name", None)
    try:
        presence = machine_state.register(crawl, store.identity, store.uri, store.store_id, separate, spider=spider)
    except machine_state.StoreConflict as exc:
        raise _refuse_start(str(exc), named=False) from None

    def beat() -> None:
        _beat(store, presence, crawl, spider)

    beat()
    loops: list[Any] = []

    def started() -> None:
        loops.append(create_looping_call(beat))  # once the reactor (or asyncio loop) runs
        loops[0].start(leases.HEARTBEAT, now=False)
        waiting.watch_stop_signals()  # Scrapy's handlers are in place: a store call never deafens them
        waiting.watch_close(crawler)  # no request's wait holds the engine's close

    def stopped() -> None:
        _release(store, presence, crawl, loops)

    crawler.signals.connect(started, signal=signals.engine_started, weak=False)
    crawler.signals.connect(stopped, signal=signals.engine_stopped, weak=False)


def _beat(store: StateStore, presence: machine_state.Presence, crawl: str, spider: str | None) -> None:
    """One heartbeat of a crawl holding the store: on this machine, then in the store (which is
    asked whether it is still the one opened); nothing once the store has failed."""
    if store.failure is not None:
        return
    presence.touch()
    try:
        if not store.writes_check:
            store.check()
        leases.register(store, crawl, spider=spider)
        leases.beaten(crawl)
    except StoreCannotOpen:
        raise  # the first beat, while the crawl is being built: the start is refused
    except StateStoreError:
        pass  # a lost store stopped the crawl (store.failure); an outage: the lease holds HOLDER_BOUND


def _release(store: StateStore, presence: machine_state.Presence, crawl: str, loops: list[Any]) -> None:
    """The engine stopped: stop the heartbeat, unregister the crawl from the store (unless the store
    failed) and release its lock file on this machine (left, unlocked, when the store was not told)."""
    for loop in loops:
        if loop.running:
            loop.stop()
    told = False
    if store.failure is None:
        try:
            leases.unregister(store, crawl)
            told = True
        except StateStoreError:
            pass  # the record expires after HEARTBEAT_TTL; the kept lock file says gone at once
    presence.release(keep=not told)


#: The close reason of a crawl the state store failed under.
STORE_FAILED = "walsh_store_failed"


def _stopper(crawler: Crawler) -> Callable[[StateStoreError], None]:
    """What the crawl does when its store fails mid-run (a full disk, a broken file, a lock never
    released; not a Redis outage, which is waited out): said once at ERROR, the crawl stops, and
    the process exits non-zero (:mod:`scrapy_walsh.outputs.faults`)."""
    said: list[str] = []

    def stop(error: StateStoreError) -> None:
        if crawler.stats is not None:
            crawler.stats.inc_value("walsh/store/failures")
        if said:
            return
        said.append(str(error))
        if running_engine(crawler) is None:  # the crawl is being built (a component's from_crawler): it never starts
            raise _refuse_start(str(error)) from None
        faults.stop(
            crawler,
            f"{error}. Nothing more is sent without the records the store keeps (the blocklist, the pacing "
            "ledger, R7/R8); what was not sent is counted in the summary",
            STORE_FAILED,
        )

    return stop


def _refuse_start(why: str, named: bool = True) -> StoreCannotOpen:
    """The one refusal of a crawl whose store fails before it starts, said once
    (``named``: the store itself failed, whose records the crawl can't do without)."""
    from scrapy_walsh.outputs import clean_refusal

    tail = (
        ". The blocklist, the pacing ledger and the R7/R8 records live there, so nothing was crawled"
        if named
        else ". Nothing was crawled"
    )
    refusal = StoreCannotOpen(f"scrapy_walsh refuses to start this crawl: WALSH_STATE_URI: {why}{tail}")
    clean_refusal.report(refusal)  # said once, as its reasons; Scrapy fails the crawl
    return refusal


def open_crawl_store(crawler: Crawler) -> StateStore:
    """Open the crawl's store: its one store is ``CrawlContext.of(crawler).get(open_crawl_store)``,
    opened by the first component that asks (from its ``from_crawler``).

    Opening fails loudly: a gate that cannot keep its last-known state must not run.
    """
    from scrapy import signals

    config = CrawlContext.of(crawler).config
    location = config.state_location()
    try:
        store = open_store(location, config.robots_token)
    except (StateStoreError, OSError) as exc:
        why = str(exc) if isinstance(exc, StateStoreError) else f"{type(exc).__name__}: {exc}"
        raise _refuse_start(f"the state store {location.shown} can't be opened ({why})") from None
    store.on_failure = _stopper(crawler)
    _announce(store, config.state_shared())
    _hold(crawler, store, config.separate_bot)
    crawler.signals.connect(store.close, signal=signals.engine_stopped, weak=False)
    stats = crawler.stats

    def record(spider: object = None) -> None:
        assert stats is not None
        for name, key in COUNT_STATS.items():  # sqlite: reads, keys read, transactions
            if name in store.counts:
                stats.set_value(key, store.counts[name])
        if hasattr(store, "round_trips"):
            stats.set_value("walsh/store/round_trips", getattr(store, "round_trips", 0))
            for kind, count in getattr(store, "round_trips_by", {}).items():
                stats.set_value(f"walsh/store/round_trips/{kind}", count)
            stats.set_value("walsh/store/kept/rode", getattr(store, "kept_rode", 0))
            stats.set_value("walsh/store/kept/alone", getattr(store, "kept_alone", 0))
            stats.set_value("walsh/store/unreachable_seconds", round(getattr(store, "unreachable_seconds", 0.0), 3))
            stats.set_value("walsh/store/wait_seconds", round(getattr(store, "wait_seconds", 0.0), 3))

    crawler.signals.connect(record, signal=signals.spider_closed, weak=False)
    return store
