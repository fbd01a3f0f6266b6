"""One fetch of a shared resource at a time per identity: a claim in the state store.

Every process of an identity shares one store by default (R4 binds the identity), so two crawls, or a
crawl and ``scrapy walsh explain``, that meet an origin together would each fetch its
robots.txt. The first claims the fetch (an atomic add-if-absent with a short TTL, so a
process killed mid-fetch blocks the others for at most ``CLAIM_TTL`` s); the others wait
for the copy it stores and read that instead. A claim is advice about cost, never about
safety: a process that waited ``CLAIM_TTL`` s without a copy fetches it itself.
"""

from __future__ import annotations

import os

from .base import StateStore, StateStoreError

NAMESPACE = "fetching"
#: Seconds a claim holds; also the longest a process waits for another's copy.
CLAIM_TTL = 30.0
#: Seconds between two looks at the store while another process fetches.
POLL = 0.1


def claim(store: StateStore, resource: str) -> bool:
    """True when this process should fetch ``resource`` now (it holds the claim)."""
    try:
        return store.claim(NAMESPACE, resource, {"pid": os.getpid()}, ttl=CLAIM_TTL)
    except StateStoreError:
        return True  # the store can't say: fetch it (the claim only saves a duplicate)


def release(store: StateStore, resource: str) -> None:
    try:
        store.delete(NAMESPACE, resource)
    except StateStoreError:
        pass  # it expires after CLAIM_TTL


def held(store: StateStore, resource: str) -> bool:
    """Another process still holds the claim (a poller stops waiting once it is gone)."""
    try:
        return store.get(NAMESPACE, resource) is not None
    except StateStoreError:
        return False
