"""Requests the package sends on its own behalf, and what a request carries about gates.

robots.txt, the blocklist and its schema are fetched *through the crawler*
(``engine.download_async``), so they pass the identity middleware and the pacing
like any request to their host, and are counted in the summary. They are known by object
identity (``scrapy_walsh.admission``), so the gate that asked for them doesn't gate them
again; ``meta["walsh_internal"]`` only tells users what they are, and setting it does nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy.http.request import NO_CALLBACK

from . import admission
from .config import config_for
from .policy.vocabulary import Meta

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response

#: ``meta`` key naming what an internal request is for.
INTERNAL = Meta.INTERNAL
ROBOTS = "robots"
BLOCKLIST = "blocklist"
BLOCKLIST_SCHEMA = "blocklist_schema"
#: ``meta`` key counting how often pacing sent a request back to the scheduler; the
#: gates evaluate such a request again but count its verdicts once.
REQUEUED = Meta.REQUEUED
#: ``meta`` key on every request R6 admits: a declared target (a start request), or a step a
#: StructuredSourceSpider planned for one; its value is a seal of the URL
#: (``admission.declare``). Retries and requeues copy ``meta``; the redirect middleware
#: re-seals the new URL. A request scheduled without a valid seal (an errback's output, which
#: Scrapy never passes through spider middlewares) is dropped by ``DeclaredTargetsMiddleware``.
DECLARED = Meta.DECLARED
#: Internal requests go before spider requests waiting in the same downloader slot.
PRIORITY = 1000


def internal_kind(request: Request) -> str | None:
    """What an internal request is for, by identity: ``meta`` can't make a request internal."""
    return admission.internal_kind(request)


async def fetch(crawler: Crawler, url: str, kind: str, **meta: Any) -> Response:
    """Download ``url`` through the crawler's downloader; any status comes back as is.

    Redirects are not followed here (``dont_redirect``): the caller follows them so
    it can count hops and gate each one. Retries are off: the backoff and robots
    gates decide what a 429/5xx means for an internal resource.
    """
    assert crawler.engine is not None
    request = Request(
        url,
        callback=NO_CALLBACK,
        priority=PRIORITY,
        dont_filter=True,
        # our identity from the start (the identity middleware would correct it anyway)
        headers={"User-Agent": config_for(crawler).user_agent},
        meta={
            INTERNAL: kind,
            "dont_redirect": True,
            "dont_retry": True,
            "handle_httpstatus_all": True,
            **meta,
        },
    )
    admission.register_internal(request, kind)
    return await crawler.engine.download_async(request)


def record_verdict(request: Request, gate: str, verdict: str, **extra: Any) -> dict[str, Any]:
    """Write a gate's verdict into ``request.meta["walsh"]`` (copy-on-write).

    ``meta["walsh"]`` is ``{"verdicts": {gate: verdict}, <gate>: {...}, ...}``; Scrapy
    copies ``request.meta`` onto the response, so callbacks read it from
    ``response.meta["walsh"]``. A redirect or retry copies meta shallowly, so the
    dict is replaced rather than mutated: each hop keeps its own verdicts.
    """
    info = dict(request.meta.get("walsh") or {})
    info["verdicts"] = {**info.get("verdicts", {}), gate: str(verdict)}
    info.update(extra)
    request.meta["walsh"] = info
    return info


def declare(crawler: Crawler, request: Request) -> Request:
    """Mark ``request`` as admitted by R6 (see :data:`DECLARED`)."""
    return admission.declare(crawler, request)


def declared(crawler: Crawler, request: Request) -> bool:
    return admission.declared(crawler, request)


def first_pass(request: Request) -> bool:
    """False for a request pacing sent back to the scheduler (already counted)."""
    return not request.meta.get(REQUEUED)
