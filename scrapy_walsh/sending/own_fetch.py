"""Requests the package sends on its own behalf: robots.txt, the blocklist, its schema, tdmrep.json.

They are fetched *through the crawler* (``engine.download_async``), so they pass the
checkpoint and the pacing like any request to their host, and are counted in the summary.
They are known by object identity (:func:`scrapy_walsh.sending.admission.own_fetch_kind`), so the gate
that asked for them doesn't gate them again; ``meta["walsh_internal"]`` only tells users what
they are, and setting it does nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy.http.request import NO_CALLBACK

from scrapy_walsh.policy.vocabulary import Meta
from scrapy_walsh.sending import admission

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response

#: ``meta`` key naming what an own fetch is for (for users to read; never read by us).
INTERNAL = Meta.INTERNAL
ROBOTS = "robots"
BLOCKLIST = "blocklist"
BLOCKLIST_SCHEMA = "blocklist_schema"
#: Own fetches go before spider requests waiting in the same downloader slot.
PRIORITY = 1000


async def fetch(crawler: Crawler, url: str, kind: str, **meta: Any) -> Response:
    """Download ``url`` through the crawler's downloader; any status comes back as is.

    Redirects are not followed here (``dont_redirect``): the caller follows them so
    it can count hops and gate each one. Retries are off, but for a manifest
    (:data:`~scrapy_walsh.sending.admission.RETRIED_KINDS`, retried as a page is): the backoff
    and robots gates decide what a 429/5xx means for an internal resource.
    """
    assert crawler.engine is not None
    request = Request(
        url,
        callback=NO_CALLBACK,
        priority=PRIORITY,
        dont_filter=True,
        meta={
            INTERNAL: kind,
            "dont_redirect": True,
            "dont_retry": kind not in admission.RETRIED_KINDS,
            "handle_httpstatus_all": True,
            **meta,
        },
    )
    admission.register_own_fetch(request, kind)
    return await crawler.engine.download_async(request)
