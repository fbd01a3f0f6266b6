"""Bounded bytes in, after decompression, on every fetch: no server can exhaust our memory.

The checkpoint (:func:`stamp`) gives every request its ``download_maxsize``, and
:class:`BoundedCompressionMiddleware` (in place of Scrapy's ``HttpCompressionMiddleware``) turns
a body that decodes past it into :class:`~scrapy_walsh.exceptions.ResponseTooLarge`. robots.txt
is the exception: it is read up to its bound (:func:`read_prefix`), never refused for its size.
docs/hostile-servers.md and docs/architecture.md ("The modules, one by one") say why.
"""

from __future__ import annotations

import logging
import weakref
import zlib
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.downloadermiddlewares.httpcompression import HttpCompressionMiddleware
from scrapy.exceptions import DownloadCancelledError, IgnoreRequest, StopDownload
from twisted.internet.defer import CancelledError

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.exceptions import ResponseTooLarge, answer_refused
from scrapy_walsh.outputs.summary import count_sent
from scrapy_walsh.policy.bounds import MAX_HEADER_BYTES, MAX_HEADER_COUNT, ROBOTS_BYTES, bound_for
from scrapy_walsh.policy.vocabulary import RESPONSE_TOO_LARGE, Meta
from scrapy_walsh.sending import admission, own_fetch

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

#: Where Scrapy places HttpCompressionMiddleware.
PRIORITY = 590
REFUSED = "walsh/bounds/refused/"
REFUSED_HEADERS = "walsh/bounds/refused_headers/"
CUT = "walsh/bounds/cut/"
#: The kinds of fetch read up to their bound rather than refused over it.
CUT_KINDS: Mapping[str, int] = MappingProxyType({own_fetch.ROBOTS: ROBOTS_BYTES})


def kind_of(request: Request) -> str:
    """What a fetch is, for the stats: the add-on's own kind, a structured step, or ``page``."""
    internal = admission.own_fetch_kind(request)
    if internal is not None:
        return internal
    marker = request.meta.get(Meta.STRUCTURED)
    step = marker.get("step") if isinstance(marker, dict) else None
    return step if isinstance(step, str) and step.isidentifier() else "page"


def stamp(request: Request, max_body_bytes: int) -> None:
    """Give ``request`` its byte bound (the checkpoint calls this last, before the network).

    A kind read up to its bound gets ``download_maxsize`` 0: Scrapy must not cancel it (that
    would read as "unreachable"); the bytes_received handler stops it at the bound instead.
    """
    kind = admission.own_fetch_kind(request)
    if kind in CUT_KINDS:
        request.meta["download_maxsize"] = 0
        return
    request.meta["download_maxsize"] = bound_for(request.meta.get("download_maxsize"), max_body_bytes)


class ReadUpTo:
    """Stops a download once ``limit`` bytes are in: ``StopDownload(fail=False)`` on Scrapy's
    ``bytes_received`` signal, so the body so far is the response. The add-on's compression
    middleware reads robots.txt this way, and so does the drop-in ``RobotsTxtMiddleware``."""

    def __init__(self) -> None:
        self._received: weakref.WeakKeyDictionary[Request, int] = weakref.WeakKeyDictionary()

    def received(self, request: Request, data: bytes, limit: int) -> None:
        received = self._received.get(request, 0) + len(data)
        self._received[request] = received
        if received >= limit:
            raise StopDownload(fail=False)  # the body so far is the response

    def done(self, request: Request) -> None:
        self._received.pop(request, None)


class BoundedCompressionMiddleware(HttpCompressionMiddleware):
    def __init__(self, crawler: Crawler):
        super().__init__(crawler=crawler)
        self.crawler = crawler
        self.max_body_bytes = CrawlContext.of(crawler).config.max_body_bytes
        self._read = ReadUpTo()
        self._logged: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> BoundedCompressionMiddleware:
        if not crawler.settings.getbool("COMPRESSION_ENABLED"):
            from scrapy.exceptions import NotConfigured

            raise NotConfigured
        mw = cls(crawler)
        crawler.signals.connect(mw.bytes_received, signal=signals.bytes_received)
        return mw

    def bytes_received(self, data: bytes, request: Request, spider: Spider | None = None) -> None:
        limit = CUT_KINDS.get(admission.own_fetch_kind(request) or "")
        if limit is not None:
            self._read.received(request, data, limit)

    def process_response(  # type: ignore[override]
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Request | Response:
        self._read.done(request)
        kind = admission.own_fetch_kind(request)
        if kind is not None and kind in CUT_KINDS:
            return self._cut(kind, CUT_KINDS[kind], response)
        try:
            return super().process_response(request, response)
        except IgnoreRequest as exc:
            if getattr(exc.__cause__, "max_size", None) is None:
                raise  # not the size (Scrapy raises IgnoreRequest only for it today)
            raise self._too_large(request, "decoded") from exc

    def process_exception(self, request: Request, exception: Exception, spider: Spider | None = None) -> None:
        self._read.done(request)
        over = isinstance(exception, DownloadCancelledError) or (
            isinstance(exception, CancelledError) and request.meta.get("download_maxsize")
        )
        if over:
            count_sent(self.crawler.stats, request)  # the server saw it; its body was dropped
            raise self._too_large(request, "received") from exception

    def _cut(self, kind: str, limit: int, response: Response) -> Response:
        encodings = encodings_of(response.headers.getlist("Content-Encoding"))
        stopped = "download_stopped" in response.flags
        if not encodings and len(response.body) <= limit and not stopped:
            return response
        body, left, cut = read_prefix(response.body, encodings, limit)
        if cut or stopped:
            assert self.crawler.stats is not None
            self.crawler.stats.inc_value(CUT + kind)
            self._log(kind, f"{response.url}: read up to its bound of {limit} bytes (the rest is not read)")
        headers = response.headers.copy()
        if left:
            headers[b"Content-Encoding"] = b", ".join(left)
        else:
            headers.pop(b"Content-Encoding", None)
        headers.pop(b"Content-Length", None)
        return response.replace(body=body, headers=headers)

    def _too_large(self, request: Request, how: str) -> ResponseTooLarge:
        kind = kind_of(request)
        bound = request.meta.get("download_maxsize") or self.max_body_bytes
        assert self.crawler.stats is not None
        self.crawler.stats.inc_value(REFUSED + kind)
        exc = ResponseTooLarge(
            RESPONSE_TOO_LARGE,
            f"the body is over its bound of {bound} bytes ({how}); nothing of it is read",
            request.url,
            bound=bound,
            kind=kind,
        )
        self._log(kind, str(exc))
        # R8: the server answered, so the target counts as fetched (middlewares/frequency.py)
        self.crawler.signals.send_catch_log(signal=answer_refused, request=request, exception=exc)
        return exc

    def _log(self, kind: str, message: str, *args: Any) -> None:
        first = kind not in self._logged
        self._logged.add(kind)
        logger.log(logging.WARNING if first else logging.INFO, message, *args, extra={"spider": self.crawler.spider})


def headers_refused(crawler: Crawler, request: Request, why: str, lines: int, size: int) -> ResponseTooLarge:
    """The refusal of a response whose header block went over its bound while it was received
    (:mod:`scrapy_walsh.sending.header_bound`): counted under ``walsh/bounds/refused_headers/<kind>``,
    logged, and raised by the checkpoint. The server saw the request."""
    kind = kind_of(request)
    assert crawler.stats is not None
    crawler.stats.inc_value(REFUSED_HEADERS + kind)
    count_sent(crawler.stats, request)
    exc = ResponseTooLarge(
        RESPONSE_TOO_LARGE,
        f"its header block is over its bound ({why}: at most {MAX_HEADER_COUNT} header lines and "
        f"{MAX_HEADER_BYTES} bytes); the connection was closed, nothing of it is kept",
        request.url,
        bound=MAX_HEADER_BYTES,
        header_lines_bound=MAX_HEADER_COUNT,
        kind=kind,
        part="headers",
        received_lines=lines,
        received_bytes=size,
    )
    logger.warning("%s", exc, extra={"spider": crawler.spider})
    # R8: the server answered, so the target counts as fetched (middlewares/frequency.py)
    crawler.signals.send_catch_log(signal=answer_refused, request=request, exception=exc)
    return exc


# ---------------------------------------------------------------- reading a prefix

#: Decoded in steps of this many bytes (Scrapy's own step).
CHUNK = 65_536


def _gunzip(body: bytes, limit: int) -> bytes:
    out = bytearray()
    data = body
    while data and len(out) <= limit:  # gzip members one after another, as gzip(1) reads them
        decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out += decoder.decompress(data, limit + 1 - len(out))
            while decoder.unconsumed_tail and len(out) <= limit:
                out += decoder.decompress(decoder.unconsumed_tail, limit + 1 - len(out))
        except zlib.error:
            break  # what was decoded before the damage is kept
        data = decoder.unused_data if decoder.eof else b""
    return bytes(out)


def _inflate(body: bytes, limit: int) -> bytes:
    for wbits in (zlib.MAX_WBITS, -zlib.MAX_WBITS):  # zlib-wrapped, or raw deflate (as browsers)
        decoder = zlib.decompressobj(wbits)
        out = bytearray()
        try:
            out += decoder.decompress(body, limit + 1)
            while decoder.unconsumed_tail and not decoder.eof and len(out) <= limit:
                out += decoder.decompress(decoder.unconsumed_tail, limit + 1 - len(out))
        except zlib.error:
            if out:
                return bytes(out)
            continue
        return bytes(out)
    return b""


def _unbrotli(body: bytes, limit: int) -> bytes:
    import brotli

    decoder = brotli.Decompressor()
    out = bytearray()
    try:
        out += decoder.process(body, output_buffer_limit=CHUNK)
        while len(out) <= limit and not decoder.is_finished():
            chunk = decoder.process(b"", output_buffer_limit=CHUNK)
            if not chunk:
                break
            out += chunk
    except brotli.error:
        pass  # what was decoded before the damage is kept
    return bytes(out)


def _unzstd(body: bytes, limit: int) -> bytes:
    try:
        from compression import zstd  # type: ignore[import-not-found]  # Python 3.14
    except ImportError:
        from backports import zstd  # type: ignore[no-redef]

    decoder = zstd.ZstdDecompressor()
    out = bytearray()
    try:
        out += decoder.decompress(body, max_length=CHUNK)
        while len(out) <= limit and not decoder.eof and not decoder.needs_input:
            out += decoder.decompress(b"", max_length=CHUNK)
    except zstd.ZstdError:
        pass
    return bytes(out)


DECODERS: Mapping[bytes, Callable[[bytes, int], bytes]] = MappingProxyType(
    {
        b"gzip": _gunzip,
        b"x-gzip": _gunzip,
        b"deflate": _inflate,
        b"br": _unbrotli,
        b"zstd": _unzstd,
    }
)


def encodings_of(values: Sequence[bytes]) -> list[bytes]:
    """``Content-Encoding`` header values as a list of codings, in the order they were applied."""
    return [part.strip().lower() for value in values for part in value.split(b",") if part.strip()]


def read_prefix(body: bytes, encodings: Sequence[bytes], limit: int) -> tuple[bytes, list[bytes], bool]:
    """At most ``limit`` bytes of ``body`` decoded, the codings left undecoded, and whether it was cut.

    The codings are undone last first, as far as they are known (gzip, deflate, br, zstd);
    each step keeps at most ``limit + 1`` bytes of output, so memory stays within a few times
    ``limit`` whatever the body decodes to. A damaged or truncated stream gives what decoded
    before the damage.
    """
    left = list(encodings)
    cut = False
    while left and left[-1] in DECODERS:
        body = DECODERS[left.pop()](body, limit)
        if len(body) > limit:
            body, cut = body[:limit], True
    if len(body) > limit:
        body, cut = body[:limit], True
    return body, left, cut
