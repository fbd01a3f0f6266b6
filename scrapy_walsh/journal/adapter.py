"""The journal of one crawl: what the checkpoint records around each send, and what each refusal appends.

The crawl's one :class:`CrawlJournal` opens its writer once. The checkpoint runs each download and
records around it: :meth:`CrawlJournal.before_send` writes the ``send`` entry before the request goes
on the wire, :meth:`~CrawlJournal.answered` or :meth:`~CrawlJournal.unanswered` its ``outcome``;
refusals come from :data:`~scrapy_walsh.exceptions.denial_recorded`. An entry that cannot be
written stops its request and the crawl. docs/journal-proof.md ("Written before the request
leaves") says why.
"""

from __future__ import annotations

import base64
import hashlib
import time
import uuid
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from scrapy import signals

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.exceptions import CrawlClosing, WalshIgnoreRequest, denial_recorded
from scrapy_walsh.identity.signer import load_signer
from scrapy_walsh.journal.writer import JournalWriter
from scrapy_walsh.outputs import faults
from scrapy_walsh.policy.gates import ROBOTS_NAMESPACE, STORED_BODY_LIMIT, origin_of
from scrapy_walsh.policy.hostkey import url_host
from scrapy_walsh.policy.vocabulary import docs_topic
from scrapy_walsh.sending.request_meta import request_parts
from scrapy_walsh.store import StoreUnavailable, open_crawl_store

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from scrapy_walsh.sending.pacer import Lease


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
        #: The journal could not be written: nothing more is sent
        self.failed = False
        #: ``WALSH_JOURNAL = False`` (a loosening the audit announces): only to measure the journal's cost
        self.enabled = config.journal
        #: CPU seconds this thread spent writing entries (bench/scale_bench.py --journal-cost)
        self.cpu = 0.0
        #: robots.txt origin -> digest of the body its verdicts were decided on
        self._digests: dict[str, str | None] = {}
        crawler.signals.connect(self._refused, signal=denial_recorded, weak=False)
        crawler.signals.connect(self.close, signal=signals.spider_closed, weak=False)

    def before_send(self, request: Request, host: str, lease: Lease, internal: str | None) -> str | None:
        """Write the request's ``send`` entry (write-ahead: the checkpoint calls it right before the
        download), and give its ``id`` for :meth:`answered` or :meth:`unanswered`; None when the
        journal is off. ``internal``: the own fetch's kind, None for a page.

        A request whose entry cannot be written is not sent (:class:`CrawlClosing`), and the crawl
        stops: no request leaves without its entry, and one killed on the wire keeps it (a
        ``send`` without an ``outcome``: sent, outcome unknown)."""
        if not self.enabled:
            return None
        if self.failed:
            raise self._closing()
        started, cpu = time.time(), time.thread_time()
        sid = lease.token[:16] or uuid.uuid4().hex[:16]
        fields: dict[str, Any] = {
            "t": started,
            "id": sid,
            "method": request.method,
            "url": request.url,
            "host": host,
            "ua": b", ".join(request.headers.getlist(b"User-Agent")).decode("latin-1"),
            "internal": internal,
            "robots": self._robots(request),
            "interval": round(lease.interval, 6),
            "why": str(lease.why),
        }
        if self.keyid is not None:
            fields["keyid"] = self.keyid
            # the request's own Signature: a server that logs it pairs its line with this entry
            signature = request.headers.get(b"Signature")
            if signature:
                fields["signature"] = signature.decode("latin-1")
        self._append("send", fields)
        self.cpu += time.thread_time() - cpu
        if self.failed:  # no entry, no request
            raise self._closing()
        return sid

    def answered(self, sid: str | None, request: Request, host: str, response: Response, internal: str | None) -> None:
        """The ``outcome`` entry of send ``sid``: its answer (a robots.txt body's digest is kept)."""
        if sid is None:
            return
        cpu = time.thread_time()
        if internal == "robots":
            self._robots_body(request, response)
        self.cpu += time.thread_time() - cpu
        self._outcome(sid, host, status=response.status, bytes=len(response.body))

    def unanswered(self, sid: str | None, host: str, exc: BaseException, written: bool = True) -> None:
        """The ``outcome`` entry of send ``sid`` that got no answer: its network outcome, or ``sent:
        false`` when it was not ``written`` after all (refused on the way, or the slot was not ours)."""
        if sid is None:
            return
        if written:
            self._outcome(sid, host, outcome=f"{type(exc).__name__}: {exc}"[:200])
        else:
            self._outcome(sid, host, sent=False, outcome=f"not sent: {exc}"[:200])

    def _closing(self) -> CrawlClosing:
        return CrawlClosing(f"not sent: the request journal at {self.directory} cannot be written")

    def _outcome(self, sid: str, host: str, **result: Any) -> None:
        cpu = time.thread_time()
        self._append("outcome", {"id": sid, "host": host, **result})
        self.cpu += time.thread_time() - cpu

    def _robots_body(self, request: Request, response: Response) -> None:
        """Keep the digest of a robots.txt body this crawl fetched: the one its gate is about to
        decide the origin's requests on (no store read)."""
        origin = origin_of(request.url)
        if 200 <= response.status < 300 and request_parts(request).path == "/robots.txt":
            digest = hashlib.sha256(response.body[:STORED_BODY_LIMIT]).hexdigest()
            self._digests[origin] = f"sha256:{digest}"
        else:  # no body, or a stale stored copy: what the store holds decides
            self._digests.pop(origin, None)

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
        if self.failed or not self.enabled:
            return
        try:
            self.writer.append(kind, **fields)
        except OSError as exc:
            self._unwritable(exc)

    def _unwritable(self, exc: OSError) -> None:
        """No record, no request: say why once, count it, and stop the crawl with a non-zero exit."""
        self.failed = True
        if self.crawler.stats is not None:
            self.crawler.stats.set_value(UNWRITABLE, str(exc))
        faults.stop(
            self.crawler,
            f"the request journal at {self.directory} cannot be written ({exc}); a request we cannot "
            f"account for is not sent (WALSH_JOURNAL_DIR; see {docs_topic('journal-proof')})",
            UNWRITABLE_REASON,
        )

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
