"""R7: conditional requests from stored validators; a 304 means "no new data".

Each fetched target's ``ETag`` and ``Last-Modified`` are kept in the state store (namespace
``validators``), written with its R8 record once the answer's items were delivered or kept; the
next run sends ``If-None-Match`` / ``If-Modified-Since``, and a ``304`` raises
:class:`NotModified`. docs/requirements/r7-freshness.md and docs/architecture.md ("The modules,
one by one") say why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.exceptions import NotModified
from scrapy_walsh.middlewares.base import StatefulGate
from scrapy_walsh.middlewares.frequency import Answers
from scrapy_walsh.policy.canonical import canonical_url
from scrapy_walsh.policy.vocabulary import NOT_MODIFIED, Meta, Namespace
from scrapy_walsh.sending import admission, request_meta

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from scrapy_walsh.store import StateStore

#: After robots (100), before the frequency guard (120) on the way out.
PRIORITY = 110
NAMESPACE = Namespace.VALIDATORS
VALIDATOR_TTL = 30 * 86400.0
SENT = Meta.CONDITIONAL


class ConditionalMiddleware(StatefulGate):
    def __init__(self, crawler: Crawler, store: StateStore):
        super().__init__(crawler, store)
        self.answers = CrawlContext.of(crawler).get(Answers)

    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        if admission.own_fetch_kind(request) is not None or request.method not in ("GET", "HEAD"):
            return
        # read with R8's claim, the next gate out: one round trip for both
        self.answers.read_with_claim(request, NAMESPACE, canonical_url(request.url), self._send_validators)

    def _send_validators(self, request: Request, saved: Any) -> None:
        """The stored validators of the request's target, as conditional headers."""
        if not isinstance(saved, dict) or not saved:
            return
        sent = False
        if saved.get("etag") and b"If-None-Match" not in request.headers:
            request.headers[b"If-None-Match"] = saved["etag"]
            sent = True
        if saved.get("last_modified") and b"If-Modified-Since" not in request.headers:
            request.headers[b"If-Modified-Since"] = saved["last_modified"]
            sent = True
        if sent:
            request.meta[SENT] = True
            if request_meta.first_pass(request):
                self.stats.inc_value("walsh/conditional/sent")

    def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        if admission.own_fetch_kind(request) is not None:
            return response
        if response.status == 304 and request.meta.get(SENT):
            self.stats.inc_value("walsh/conditional/not_modified")
            request_meta.record_verdict(request, "conditional", NOT_MODIFIED)
            raise NotModified(NOT_MODIFIED, "304 Not Modified: no new data since the last fetch", request.url)
        if 200 <= response.status < 300:
            etag = response.headers.get(b"ETag")
            modified = response.headers.get(b"Last-Modified")
            key = canonical_url(request.url)
            if etag or modified:
                validators = {
                    "etag": etag.decode("latin-1") if etag else None,
                    "last_modified": modified.decode("latin-1") if modified else None,
                }
                if not self.answers.then(request, (NAMESPACE, key, validators, VALIDATOR_TTL)):
                    self.store.set(NAMESPACE, key, validators, ttl=VALIDATOR_TTL)  # no R8 record waits for it
                self.stats.inc_value("walsh/conditional/validators_stored")
        return response
