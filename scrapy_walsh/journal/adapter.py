"""The journal of one crawl: what the checkpoint calls for each send, and what each refusal appends.

The crawl's one :class:`CrawlJournal` (``CrawlContext.of(crawler).get(CrawlJournal)``) opens its
:class:`~scrapy_walsh.journal.writer.JournalWriter` once (the checkpoint asks at start). Sends come
from the checkpoint (:meth:`CrawlJournal.sent` wraps the wrapped handler's download); refusals from
:data:`~scrapy_walsh.exceptions.denial_recorded`, sent by :func:`~scrapy_walsh.exceptions.refuse`,
the one place every refusal is counted. The writer is closed (a signed head appended) when the spider closes.

Each ``send`` entry holds metadata only, never content: the send and settle times, method, URL,
host key, User-Agent, keyid when signing, the robots.txt verdict with the digest of the body it
was decided on, the interval applied and what set it, and the status and bytes received or the
network outcome.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import time
from collections.abc import Awaitable
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.httpobj import urlparse_cached

from .. import admission
from ..context import CrawlContext
from ..exceptions import CrawlClosing, WalshIgnoreRequest, denial_recorded
from ..policy.gates import ROBOTS_NAMESPACE, STORED_BODY_LIMIT, origin_of
from ..policy.hostkey import url_host
from ..request_signer import load_signer
from ..send_gate import NotWritten
from ..shared_pacer import SharedPacer
from ..store import StoreUnavailable, open_crawl_store, running_engine
from .writer import JournalWriter

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response


logger = logging.getLogger(__name__)

ENTRIES = "walsh/journal/entries"
FSYNCS = "walsh/journal/fsyncs"
CPU = "walsh/journal/cpu_seconds"
UNWRITABLE = "walsh/journal/unwritable"
#: The spider's close reason when the journal cannot be written.
UNWRITABLE_REASON = "walsh_journal_unwritable"


class CrawlJournal:
    def __init__(self, crawler: Crawler):
        self.crawler = crawler
        config = CrawlContext.of(crawler).config
        signer = CrawlContext.of(crawler).get(load_signer)
        self.keyid = signer.keyid if signer is not None else None
        self.ua = config.user_agent
        self.directory = config.journal_location()
        self.writer = JournalWriter(
            self.directory,
            config.robots_token,
            key=signer.key if signer is not None else None,
            sign_every=config.journal_sign_every,
            retention_days=config.journal_retention_days,
        )
        self.floor = config.min_interval
        #: The journal could not be written: nothing more is sent
        self.failed = False
        #: CPU seconds this thread spent writing entries (bench/scale_bench.py --journal-cost)
        self.cpu = 0.0
        #: robots.txt origin -> digest of the body its verdicts were decided on
        self._digests: dict[str, str | None] = {}
        crawler.signals.connect(self._refused, signal=denial_recorded, weak=False)
        crawler.signals.connect(self.close, signal=signals.spider_closed, weak=False)

    async def sent(self, request: Request, host: str, download: Awaitable[Response]) -> Response:
        """Await the download, then append its ``send`` entry (answer or network outcome).

        Once the journal could not be written, nothing more is sent: the crawl is closing."""
        if self.failed:
            getattr(download, "close", lambda: None)()  # never started: nothing sent
            raise CrawlClosing(f"not sent: the request journal at {self.directory} cannot be written")
        started = time.time()
        try:
            response = await download
        except WalshIgnoreRequest:
            raise  # refused on the way (the address guard at connect time): nothing sent, a refusal entry
        except NotWritten:
            raise  # connected, but the host's slot was not ours any more: nothing written, it goes again
        except BaseException as exc:
            self._append_send(request, host, started, None, outcome=f"{type(exc).__name__}: {exc}"[:200])
            raise
        self._append_send(request, host, started, response, status=response.status, bytes=len(response.body))
        return response

    def _append_send(
        self, request: Request, host: str, started: float, response: Response | None, **result: Any
    ) -> None:
        settled, cpu = time.time(), time.thread_time()
        kind = admission.own_fetch_kind(request)
        if kind == "robots":
            origin = origin_of(request.url)
            if response is not None and 200 <= response.status < 300 and urlparse_cached(request).path == "/robots.txt":
                # the body the robots gate is about to decide on, as the store keeps it (no store read)
                digest = hashlib.sha256(response.body[:STORED_BODY_LIMIT]).hexdigest()
                self._digests[origin] = f"sha256:{digest}"
            else:  # no body, or a stale stored copy: what the store holds decides
                self._digests.pop(origin, None)
        fields: dict[str, Any] = {
            "t": started,
            "settled": round(settled, 6),
            "method": request.method,
            "url": request.url,
            "host": host,
            "ua": b", ".join(request.headers.getlist(b"User-Agent")).decode("latin-1"),
            "internal": kind,
            "robots": self._robots(request),
            "interval": self._interval(host),
            **result,
        }
        if self.keyid is not None:
            fields["keyid"] = self.keyid
        self._append("send", fields)
        self.cpu += time.thread_time() - cpu

    def _robots(self, request: Request) -> dict[str, Any] | None:
        info = (request.meta.get("walsh") or {}).get("robots")
        if not isinstance(info, dict):
            return None
        origin = info.get("origin")
        found: dict[str, Any] = {"verdict": info.get("verdict"), "origin": origin}
        if origin:
            found["digest"] = self._digest(origin)
            found["source"] = info.get("source")
        return found

    def _digest(self, origin: str) -> str | None:
        """SHA-256 of the robots.txt body the gate decided on: the one this crawl fetched, else
        the one the store holds for ``origin`` (a cached copy, or another process's fetch)."""
        if origin not in self._digests:
            try:
                saved = CrawlContext.of(self.crawler).get(open_crawl_store).get(ROBOTS_NAMESPACE, origin)
            except StoreUnavailable:
                return None
            body = None
            if isinstance(saved, dict) and saved.get("outcome") == "available":
                body = base64.b64decode(saved.get("body", ""))
            self._digests[origin] = "sha256:" + hashlib.sha256(body).hexdigest() if body is not None else None
        return self._digests[origin]

    def _interval(self, host: str) -> dict[str, Any]:
        pace = CrawlContext.of(self.crawler).get(SharedPacer).pacer.pace(host)
        terms = {
            "crawl_delay": pace.crawl_delay,
            "request_rate": pace.request_rate,
            "ratelimit": pace.ratelimit,
            "adaptive": pace.adaptive,
        }
        seconds = pace.interval(self.floor)
        by = next((name for name, value in terms.items() if value and value >= seconds), "floor")
        return {"seconds": round(seconds, 6), "by": by}

    def _refused(self, exception: WalshIgnoreRequest, **kwargs: Any) -> None:
        url, cpu = exception.url, time.thread_time()
        fields = {
            "url": url,
            "host": url_host(url) if url else None,
            "gate": str(exception.gate),
            "verdict": str(exception.verdict),
            "reason": exception.reason[:500],
        }
        self._append("refusal", fields)
        self.cpu += time.thread_time() - cpu

    def _append(self, kind: str, fields: dict[str, Any]) -> None:
        if self.failed:
            return
        try:
            self.writer.append(kind, **fields)
        except OSError as exc:
            self._unwritable(exc)

    def _unwritable(self, exc: OSError) -> None:
        """No record, no crawl: say why once, count it, and close the spider (fail closed)."""
        self.failed = True
        logger.error(
            "The request journal at %s cannot be written (%s): the crawl stops, since a request "
            "we cannot account for is not sent (WALSH_JOURNAL_DIR; docs/journal.md)",
            self.directory,
            exc,
            extra={"spider": self.crawler.spider},
        )
        if self.crawler.stats is not None:
            self.crawler.stats.set_value(UNWRITABLE, str(exc))
        engine = running_engine(self.crawler)
        if engine is not None and engine.spider is not None:
            deferred_from_coro(engine.close_spider_async(reason=UNWRITABLE_REASON))

    def head(self) -> dict[str, Any]:
        """The chain head now (signed first, when a key is configured), for the attestation."""
        self.writer.sign_head()
        self.writer.sync()
        return {"directory": str(self.directory), **self.writer.head(), "keyid": self.keyid}

    def close(self, spider: Any = None) -> None:
        if not self.failed:
            with suppress(OSError):
                self.writer.close()
        if self.crawler.stats is not None:
            self.crawler.stats.set_value(ENTRIES, self.writer.entries)
            self.crawler.stats.set_value(FSYNCS, self.writer.fsyncs)
            self.crawler.stats.set_value(CPU, round(self.cpu, 6))
