"""The admission gate, first of the downloader gates, and the middlewares that carry its tokens.

:class:`AdmissionMiddleware` lets through http(s) requests that are declared targets or the
package's own fetches (:mod:`scrapy_walsh.sending.admission` holds the tokens), and stamps each one it
admits; the checkpoint refuses a request without the stamp. Redirects and retries make new
Request objects: :class:`WalshRedirectMiddleware`, :class:`WalshMetaRefreshMiddleware` and
:class:`WalshRetryMiddleware` (Scrapy's, placed by the add-on in their stead) hand the tokens on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy.downloadermiddlewares.redirect import MetaRefreshMiddleware, RedirectMiddleware
from scrapy.downloadermiddlewares.retry import RetryMiddleware

from scrapy_walsh.exceptions import CheckpointRefused, OutOfScope, refuse
from scrapy_walsh.policy.urls import UnsafeURL, sent_url
from scrapy_walsh.policy.vocabulary import AMBIGUOUS_URL, NOT_DECLARED, SCHEME_NOT_ALLOWED
from scrapy_walsh.sending import admission
from scrapy_walsh.sending.request_meta import request_parts
from scrapy_walsh.settings import CHECKPOINT_SCHEMES

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

#: The admission gate: first of all, before the sub-resource gate (80).
PRIORITY = 70
#: Where Scrapy places the middlewares the carriers replace.
REDIRECT_PRIORITY, META_REFRESH_PRIORITY, RETRY_PRIORITY = 600, 580, 550
#: Requests whose path held dot segments (``/a/../b``, ``%2e``): sent again with them removed.
URL_RESOLVED = "walsh/url/resolved"


class AdmissionMiddleware:
    """The first downloader gate: http(s) only, and declared targets or our own requests only.

    The scheduler's door (``DeclaredTargetsMiddleware.request_scheduled``) never sees a request
    sent with ``engine.download``; this gate does, before any other gate spends a robots.txt
    fetch on it.
    """

    def __init__(self, crawler: Crawler):
        assert crawler.stats is not None
        self.crawler = crawler
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> AdmissionMiddleware:
        return cls(crawler)

    def process_request(self, request: Request, spider: Spider | None = None) -> Request | None:
        if request_parts(request).scheme not in CHECKPOINT_SCHEMES:
            refuse(
                self.crawler,
                CheckpointRefused(
                    SCHEME_NOT_ALLOWED, "only http and https are fetched (nothing was read)", request.url
                ),
            )
        if not admission.declared(self.crawler, request):
            refuse(
                self.crawler,
                OutOfScope(
                    NOT_DECLARED,
                    "not a declared target (R6): it reached the downloader without being declared "
                    "(engine.download, or a meta copied from another request)",
                    request.url,
                ),
            )
        try:
            sent = sent_url(request.url)
        except UnsafeURL as exc:
            refuse(self.crawler, CheckpointRefused(AMBIGUOUS_URL, str(exc), request.url))
        if sent != request.url:
            # dot segments are sent removed, as every server resolves them (and a verbatim URL as
            # Scrapy would write it), so that every gate judges what the server serves: the same
            # target, walking the gates again
            self.stats.inc_value(URL_RESOLVED)
            # the scheduler's duplicate filter already let this target in (its fingerprint
            # resolves dot segments too): the resolved copy must not be dropped as its duplicate
            new = request.replace(url=sent, dont_filter=True)
            admission.carry(request, new)
            if admission.own_fetch_kind(request) is None:
                admission.declare(self.crawler, new)
            return new
        admission.stamp(request, admission.ADMISSION)
        return None


class _Carry:
    """A new Request made from an admitted one keeps its tokens (a redirect is re-sealed at
    its new URL: it is the same fetch of a declared target)."""

    crawler: Crawler

    def _carried(self, old: Request, result: Any) -> Any:
        if isinstance(result, Request) and result is not old:
            admission.carry(old, result)
            if admission.own_fetch_kind(old) is None and admission.declared(self.crawler, old):
                admission.declare(self.crawler, result)
        return result


class WalshRedirectMiddleware(_Carry, RedirectMiddleware):
    def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Any:
        return self._carried(request, super().process_response(request, response))


class WalshMetaRefreshMiddleware(_Carry, MetaRefreshMiddleware):
    def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Any:
        return self._carried(request, super().process_response(request, response))


class WalshRetryMiddleware(_Carry, RetryMiddleware):
    def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Any:
        return self._carried(request, super().process_response(request, response))

    def process_exception(self, request: Request, exception: Exception, spider: Spider | None = None) -> Any:
        return self._carried(request, super().process_exception(request, exception))
