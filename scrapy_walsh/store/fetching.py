"""One fetch of a shared resource at a time per identity: a claim in the state store.

Two crawls of one identity (or a crawl and ``scrapy walsh explain``) meeting an origin together
fetch its robots.txt once: the first claims the fetch (add-if-absent, ``CLAIM_TTL``), the others
wait for its copy. A claim is advice about cost, never about safety.
docs/state-store.md ("One fetch at a time") says why.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from scrapy_walsh.store.base import Entry, StateStore, StateStoreError
from scrapy_walsh.store.waiting import rest

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

NAMESPACE = "fetching"
#: Seconds a claim holds; also the longest a process waits for another's copy.
CLAIM_TTL = 30.0
#: Seconds between two looks at the store while another process fetches.
POLL = 0.1


def claim_unless_fresh(store: StateStore, resource: str, copy: tuple[str, str], since: float) -> tuple[bool, Any]:
    """The stored copy of ``resource`` at ``copy`` (a namespace and key), and whether this process
    should fetch it now (it holds the claim): not when the copy was fetched after ``since``. One
    round trip for the read and the claim; raises ``StateStoreError`` when the store can't say
    (the copy can't be read either)."""
    return store.claim_unless_fresh(NAMESPACE, resource, {"pid": os.getpid()}, CLAIM_TTL, copy, since)


def release(store: StateStore, resource: str, entries: Sequence[Entry] = ()) -> None:
    """Give the claim back, with what the fetch stored (``entries``) in the same write: a process
    waiting for the copy finds it as soon as the claim is gone."""
    try:
        store.set_many(entries, delete=[(NAMESPACE, resource)])
    except StateStoreError:
        if entries:
            raise  # the copy is not stored: the caller says so
        # it expires after CLAIM_TTL


def held(store: StateStore, resource: str) -> bool:
    """Another process still holds the claim (a poller stops waiting once it is gone)."""
    try:
        return store.get(NAMESPACE, resource) is not None
    except StateStoreError:
        return False


async def released(crawler: Crawler, store: StateStore, resource: str) -> None:
    """Wait while another process holds the claim (at most :data:`CLAIM_TTL`, never past the
    crawl's stop): its copy is stored by the time the claim is given back."""
    deadline = time.monotonic() + CLAIM_TTL
    while time.monotonic() < deadline and held(store, resource):
        if not await rest(crawler, POLL):
            return
