"""What one crawl's components share: its config, store, pacer, journal, signer and records.

``CrawlContext.of(crawler)`` is the crawl's one context and :meth:`CrawlContext.get` its one object of
a kind, made lazily by the first component that asks. The context knows no component, only how to
hold one (the builders live with what they build), so it sits low in the package. What every crawler
of a process shares is :attr:`CrawlContext.process`. docs/architecture.md says why.
"""

from __future__ import annotations

import uuid
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy_walsh.exceptions import FAIL, ConformanceError, Finding
from scrapy_walsh.outputs import clean_refusal
from scrapy_walsh.process import PROCESS, ProcessState

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from scrapy_walsh.config import WalshConfig

T = TypeVar("T")

#: Why a crawler has no config: its settings were never audited.
NOT_AUDITED = (
    "this crawl's settings were not audited, so scrapy_walsh's components refuse to run: they run "
    'under the add-on (ADDONS = {"scrapy_walsh.Addon": 500}), whose extension '
    "scrapy_walsh.conformance.guard.ConformanceGuard audits the final settings first"
)


class CrawlContext:
    """One crawl's shared state, found with :meth:`of`."""

    def __init__(self, crawler: Crawler):
        self.crawler = crawler
        self._config: WalshConfig | None = None
        #: This crawl's id in the store's ``crawls`` namespace: its leases name it.
        self.crawl_id = uuid.uuid4().hex
        #: ``scrapy walsh explain``'s dry run: every target meets every gate and the checkpoint, and
        #: is not sent; ``offline``: the crawl's own fetches (robots.txt, the blocklist) neither.
        self.dry_run = False
        self.offline = False
        #: The message the crawl was stopped with (the first fault's), or None.
        self.stopped: str | None = None
        #: What the store did not record before the crawl ended: (what, why) in the order reported.
        self.unrecorded: list[tuple[str, str]] = []
        self._shared: dict[Callable[[Crawler], Any], Any] = {}
        #: the scheduler's queues of this crawl (the add-on's own, each adds itself): how many
        #: requests wait is their length, read without Scrapy's private engine slot
        self.queues: weakref.WeakSet[Any] = weakref.WeakSet()

    @classmethod
    def of(cls, crawler: Crawler) -> CrawlContext:
        """The crawl's one context (made on the first ask)."""
        found = _CONTEXTS.get(crawler)
        if found is None:
            found = _CONTEXTS[crawler] = cls(crawler)
        return found

    @staticmethod
    def find(crawler: Crawler) -> CrawlContext | None:
        """The crawl's context if a component made it, else None (nothing is made)."""
        return _CONTEXTS.get(crawler)

    @property
    def process(self) -> ProcessState:
        """What every crawler of this process shares (the in-flight lock, the admission marks, ...)."""
        return PROCESS

    @property
    def config(self) -> WalshConfig:
        """The crawl's one config, made by its audit (:meth:`configure`); a crawler no audit passed
        is refused (fail closed), with the one clean message of any refusal."""
        if self._config is None:
            refusal = ConformanceError([Finding("-", "configuration", FAIL, "EXTENSIONS", NOT_AUDITED)])
            raise clean_refusal.report(refusal)
        return self._config

    def configure(self, config: WalshConfig) -> WalshConfig:
        """Make ``config`` the crawl's one config; called by the audit once it passes."""
        self._config = config
        return config

    def explain(self, offline: bool = False) -> None:
        """The crawl is explain's: its targets are evaluated, never sent; ``offline``: nothing is sent."""
        self.dry_run, self.offline = True, offline

    def get(self, build: Callable[[Crawler], T]) -> T:
        """The crawl's one object that ``build`` makes from the crawler (a class such as the
        pacer's, or a function such as the store's opener), made on the first ask."""
        if build not in self._shared:
            self._shared[build] = build(self.crawler)
        found: T = self._shared[build]
        return found

    def made(self, build: Callable[[Crawler], T]) -> T | None:
        """The object ``build`` made for this crawl, or None if no component asked for it yet."""
        found: T | None = self._shared.get(build)
        return found


#: The one registry keyed by the crawler (see the module's docstring for why).
_CONTEXTS: weakref.WeakKeyDictionary[Crawler, CrawlContext] = weakref.WeakKeyDictionary()
