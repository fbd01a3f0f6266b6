"""Admission tokens that spider code cannot forge by setting ``meta``.

Own fetches and gate stamps are marked by object identity (they never cross the scheduler).
Declared targets (R6) and the R8 fetch claim must survive a scheduler that serialises requests,
so ``meta`` holds an HMAC of the URL (and of the claim's lease token) under a secret kept in the
state store; a claim is worth something only while the store holds that lease.
docs/checkpoint.md says why.
"""

from __future__ import annotations

import hmac
import secrets
import weakref
from typing import TYPE_CHECKING, Any

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.policy.vocabulary import Meta, Namespace
from scrapy_walsh.process import PROCESS

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

    from scrapy_walsh.store import StateStore

#: Gates that stamp a request they let through, by name.
ADMISSION = "admission"
ADDRESS = "address"
BLOCKLIST = "blocklist"
ROBOTS = "robots"
FREQUENCY = "frequency"
#: What a spider request needs before the network; an own fetch needs fewer (it is the
#: robots.txt or blocklist fetch itself, and never a declared target).
SPIDER_GATES = frozenset({ADMISSION, ADDRESS, BLOCKLIST, ROBOTS, FREQUENCY})
OWN_FETCH_GATES = frozenset({ADMISSION, ADDRESS, BLOCKLIST})
BLOCKLIST_KINDS = frozenset({"blocklist", "blocklist_schema"})
#: Own fetches robots.txt rules as it rules a target's: a site's manifests (sitemaps, feeds,
#: llms.txt) read for discovery are the site's pages like any other.
ROBOTS_GATED_KINDS = frozenset({"manifest"})
#: Own fetches retried as a page is (R5's backoff, Scrapy's retries): a manifest is one of the
#: site's pages, and the targets it lists are lost for the run when it is not read.
RETRIED_KINDS = frozenset({"manifest"})

# The marks are kept in the process's state (scrapy_walsh.process): own fetches by kind, the gate
# stamps, and (target, lease token) -> the one Request object that holds the claim now (a copy made
# with ``replace()`` carries the same sealed meta but is not the owner).
_SECRET_KEY = "seal-key"


# ---------------------------------------------------------------------- own fetches


def register_own_fetch(request: Request, kind: str) -> Request:
    PROCESS.own_fetches[request] = kind
    return request


def own_fetch_kind(request: Request) -> str | None:
    """What an own fetch is for; None for every other request, whatever its meta says."""
    return PROCESS.own_fetches.get(request)


def not_retried(request: Request) -> bool:
    """An own fetch no retry is made of (robots.txt, the blocklist: their gates decide what a
    failure means); a page and a manifest are retried."""
    kind = PROCESS.own_fetches.get(request)
    return kind is not None and kind not in RETRIED_KINDS


def carry(old: Request, new: Request) -> Request:
    """A redirect, retry or requeue made ``new`` from ``old``: the own-fetch mark and the
    ownership of an R8 claim follow (gate stamps don't: ``new`` meets the gates again)."""
    kind = PROCESS.own_fetches.get(old)
    if kind is not None:
        PROCESS.own_fetches[new] = kind
    key = _claim_key(old)
    if key is not None and _owner(key) is old:
        PROCESS.claim_owners[key] = weakref.ref(new)
    return new


# ---------------------------------------------------------------------- gate stamps


def stamp(request: Request, gate: str) -> None:
    """``gate`` let ``request`` (this object, at this URL) through."""
    PROCESS.stamps.setdefault(request, {})[gate] = request.url


def missing_stamps(request: Request, kind: str | None) -> list[str]:
    """The gates that did not pass this object at its current URL (empty: admitted); ``kind`` is
    its :func:`own_fetch_kind`, which the checkpoint read once for every step."""
    required = SPIDER_GATES if kind is None else OWN_FETCH_GATES - ({BLOCKLIST} if kind in BLOCKLIST_KINDS else set())
    if kind in ROBOTS_GATED_KINDS:
        required = required | {ROBOTS}
    stamps = PROCESS.stamps.get(request, {})
    return sorted(g for g in required if stamps.get(g) != request.url)


# ---------------------------------------------------------------------- seals


def sealing_key(crawler: Crawler) -> bytes:
    """Read the identity's sealing secret, created once in the state store (shared by a fleet,
    kept across ``JOBDIR`` resumes); the crawl's context keeps it: ``.get(sealing_key)``."""
    from scrapy_walsh.store import open_crawl_store

    store: StateStore = CrawlContext.of(crawler).get(open_crawl_store)
    # created if absent and read back (ours, or the one another process made first) in one call
    _, (found,) = store.claim_reading(
        Namespace.ADMISSION, _SECRET_KEY, secrets.token_hex(32), None, [(Namespace.ADMISSION, _SECRET_KEY)]
    )
    return str(found).encode()


def _seal(crawler: Crawler, *parts: str) -> str:
    # one call into OpenSSL (no HMAC object): every request is sealed and checked
    return hmac.digest(
        CrawlContext.of(crawler).get(sealing_key), "\n".join(parts).encode("utf-8", "surrogatepass"), "sha256"
    ).hex()


def declare(crawler: Crawler, request: Request) -> Request:
    """R6 admits ``request`` at its current URL."""
    request.meta[Meta.DECLARED] = _seal(crawler, "declared", request.url)
    return request


def declared(crawler: Crawler, request: Request) -> bool:
    """True for an own fetch or one R6 admitted at this URL; a bare meta key is not enough."""
    if own_fetch_kind(request) is not None:
        return True
    token = request.meta.get(Meta.DECLARED)
    return isinstance(token, str) and hmac.compare_digest(token, _seal(crawler, "declared", request.url))


def seal_claim(crawler: Crawler, request: Request, target: str, lease: str) -> None:
    """R8: ``request`` holds the fetch lease of ``target`` (its token, :mod:`scrapy_walsh.store.leases`)."""
    request.meta[Meta.FETCH_CLAIM] = {"target": target, "lease": lease, "seal": _seal(crawler, "claim", target, lease)}
    PROCESS.claim_owners[(target, lease)] = weakref.ref(request)


def drop_claim(request: Request) -> None:
    """The claim is settled (answered or released): forget its owner."""
    key = _claim_key(request)
    if key is not None:
        PROCESS.claim_owners.pop(key, None)


def _claim_key(request: Request) -> tuple[str, str] | None:
    token: Any = request.meta.get(Meta.FETCH_CLAIM)
    if isinstance(token, dict) and isinstance(token.get("target"), str) and isinstance(token.get("lease"), str):
        return token["target"], token["lease"]
    return None


def _owner(key: tuple[str, str]) -> Request | None:
    ref = PROCESS.claim_owners.get(key)
    return None if ref is None else ref()


def own_claim(crawler: Crawler, request: Request) -> tuple[str, str] | None:
    """``(target, lease token)`` of the claim ``request`` holds as far as this process can tell
    without the store: the seal is ours, and no other Request object holds the claim now."""
    key = _claim_key(request)
    token: Any = request.meta.get(Meta.FETCH_CLAIM)
    if key is None or not isinstance(token.get("seal"), str):
        return None
    target, lease = key
    if not hmac.compare_digest(token["seal"], _seal(crawler, "claim", target, lease)):
        return None
    owner = _owner(key)
    if owner is not None and owner is not request:
        return None  # a copy of a request still holding the claim (``replace()`` of an in-flight one)
    return key


def live_claim(crawler: Crawler, request: Request, store: StateStore, namespace: str) -> str | None:
    """The target whose claim ``request`` holds, if its seal is ours and the store still holds
    that very lease (a redirect hop, a retry or a requeue of the fetch in progress)."""
    from scrapy_walsh.store import leases

    key = own_claim(crawler, request)
    if key is None:
        return None
    target, lease = key
    if not leases.holds(store, namespace, target, lease):
        return None
    PROCESS.claim_owners[key] = weakref.ref(request)  # e.g. read back from a JOBDIR queue
    return target
