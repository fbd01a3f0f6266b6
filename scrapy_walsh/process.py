"""What the whole process keeps on the request path, in one object: :data:`PROCESS`.

Several crawlers of one ``CrawlerProcess`` share it (the one request in flight is R4's "serial per
process"); a component reaches it as ``CrawlContext.of(crawler).process``, a module below the
context as :data:`PROCESS`. Apart from it, the package's only module-level mutable state is the
contexts' registry (``scrapy_walsh.context``): ``tests/unit/test_process_state.py`` checks it.
It imports nothing of the package, so any layer may keep its state here (docs/architecture.md).
"""

from __future__ import annotations

import threading
import weakref
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from urllib.parse import SplitResult

    from scrapy import Request
    from scrapy.crawler import Crawler
    from twisted.internet.base import DelayedCall
    from twisted.internet.defer import Deferred, DeferredLock

    from scrapy_walsh.sending.send_gate import Send
    from scrapy_walsh.store.base import StateStore


class ProcessState:
    """The process's state on the request path, each part kept by the module named beside it."""

    def __init__(self) -> None:
        # send_gate: the send in progress (the in-flight lock makes it one)
        self.sends: list[Send] = []
        # admission: own fetches by kind, gate stamps (gate -> URL judged), and the one Request
        # object holding each R8 claim, (target, lease token) -> it
        self.own_fetches: weakref.WeakKeyDictionary[Request, str] = weakref.WeakKeyDictionary()
        self.stamps: weakref.WeakKeyDictionary[Request, dict[str, str]] = weakref.WeakKeyDictionary()
        self.claim_owners: dict[tuple[str, str], weakref.ref[Request]] = {}
        # request_meta: Request -> (the URL its parts and host key were worked out from, those, that)
        self.hosts: weakref.WeakKeyDictionary[Request, tuple[str, SplitResult | None, str]] = (
            weakref.WeakKeyDictionary()
        )
        # store.targets: when this version first read each store
        self.upgraded_at: weakref.WeakKeyDictionary[StateStore, float] = weakref.WeakKeyDictionary()
        # store.leases: crawl -> monotonic time of its last heartbeat, the crawls that may have
        # lapsed, and (namespace, key) -> the token of a claim whose answer was lost
        self.beats: dict[str, float] = {}
        self.lapsed: set[str] = set()
        self.unsure: dict[tuple[str, str], str] = {}
        # store.waiting: a stop signal arrived; store calls under way on the main thread; the
        # requests' waits, each one's deferred -> (its timer, its crawler); the crawlers closing
        self.stopping = threading.Event()
        self.store_calls = 0
        self.rests: dict[Deferred[bool], tuple[DelayedCall, object]] = {}
        self.closing: weakref.WeakSet[object] = weakref.WeakSet()
        # exit_status: the crawls that failed after they started (crawler -> the messages said),
        # and the crawls whose engine has stopped
        self.failures: weakref.WeakKeyDictionary[Crawler, list[str]] = weakref.WeakKeyDictionary()
        self.ended: weakref.WeakSet[Crawler] = weakref.WeakSet()
        # protocol_mixins: (mixin, base) -> the class made of the two
        self.mixed: dict[tuple[type, type], type] = {}

    @cached_property
    def in_flight(self) -> DeferredLock:
        """R4 "serial per process": the one lock every checkpoint of the process takes around a
        reservation and its download, whatever crawler it belongs to. Made on the first send, so
        an import of the package loads no Twisted."""
        from twisted.internet.defer import DeferredLock

        return DeferredLock()


#: The process's one state object.
PROCESS = ProcessState()
