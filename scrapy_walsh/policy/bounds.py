"""How many bytes a response may bring in, after decompression, and reading a prefix. Pure.

A serial crawler holds every response body in memory, and a compressed body can decode to a
thousand times its size (815 KB of gzip are 800 MiB of zeros). Every fetch therefore has a
bound on its *decoded* body:

* robots.txt: the parser's limit (:data:`scrapy_walsh.policy.robots.MAX_BYTES`) plus
  :data:`ROBOTS_SLACK`, so the parser still sees that the file goes on and cuts at a line end.
  A longer robots.txt is *read up to the bound* (:func:`read_prefix`), never refused: a refusal
  would read as unreachable, and a cut file is still the site's own rules;
* pages: ``WALSH_MAX_BODY_BYTES`` (8 MiB by default, :data:`scrapy_walsh.settings.MAX_BODY_BYTES`);
  a longer body is refused;
* what the add-on reads for itself or for a structured source sets its own bound
  (``download_maxsize``): sitemaps 50 MiB (the protocol's limit), llms.txt and markdown 1 MiB,
  the blocklist and tdmrep.json their parsers' limits. A request may ask for more than the page
  bound, never more than :func:`ceiling`.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence

from .robots import MAX_BYTES as ROBOTS_PARSE_BYTES
from .sitemaps import MAX_BYTES as SITEMAP_MAX_BYTES

#: Read past the robots.txt parse limit: one decompression chunk, so the parser sees whether
#: the line at its limit goes on (it never keeps half a rule).
ROBOTS_SLACK = 65_536
#: The decoded bytes of a robots.txt we read at most.
ROBOTS_BYTES = ROBOTS_PARSE_BYTES + ROBOTS_SLACK
#: Decoded in steps of this many bytes (Scrapy's own step).
CHUNK = 65_536


def ceiling(max_body_bytes: int) -> int:
    """The most any request may ask for (``meta["download_maxsize"]``): the page bound, or the
    sitemap protocol's 50 MiB when that is more."""
    return max(max_body_bytes, SITEMAP_MAX_BYTES)


def bound_for(asked: object, max_body_bytes: int) -> int:
    """The bound of a request that asked for ``asked`` bytes (its ``download_maxsize``): a
    positive whole number up to :func:`ceiling`; anything else (unset, 0 = Scrapy's
    "unlimited", garbage) means the page bound."""
    if isinstance(asked, bool) or not isinstance(asked, int) or asked <= 0:
        return max_body_bytes
    return min(asked, ceiling(max_body_bytes))


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


DECODERS: dict[bytes, Callable[[bytes, int], bytes]] = {
    b"gzip": _gunzip,
    b"x-gzip": _gunzip,
    b"deflate": _inflate,
    b"br": _unbrotli,
    b"zstd": _unzstd,
}


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
