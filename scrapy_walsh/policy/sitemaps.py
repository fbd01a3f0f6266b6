"""Sitemaps as discovery (the policy model: "which URLs exist and how fresh they are").

Reading one yields its ``loc`` and ``lastmod`` entries as data, and an index its child
sitemaps unread (R6). Parsed with lxml as Scrapy's ``Sitemap`` does (no entities, no network),
in a few lines of our own so the core imports no Scrapy; sitemaps.org's limits apply. No I/O:
the caller hands in the bytes. docs/requirements/r9-structured-sources.md says why.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lxml import etree


from scrapy_walsh.policy.vocabulary import SITEMAP_OVER_SIZE_LIMIT, SITEMAP_UNREADABLE

MAX_URLS = 50_000
MAX_BYTES = 52_428_800
#: Longer ``loc`` values are not URLs sitemaps.org allows (2,048) nor metadata (R6).
MAX_LOC = 2000
URLSET = "urlset"
SITEMAPINDEX = "sitemapindex"
GZIP_MAGIC = b"\x1f\x8b"


@dataclass
class SitemapReading:
    """What one sitemap document says: its kind and entries, or why it says nothing."""

    kind: str | None = None
    #: ``{"loc": ..., "lastmod": ... or None}`` in document order.
    entries: list[dict[str, str | None]] = field(default_factory=list)
    #: True when the document had more than ``max_urls`` entries (the rest were not read).
    truncated: bool = False
    #: Entries skipped: no usable ``loc`` (not http(s), or over ``MAX_LOC`` characters).
    skipped: int = 0
    #: ``sitemap_unreadable`` / ``sitemap_over_size_limit`` when nothing could be read.
    verdict: str | None = None
    reason: str = ""


def read_sitemap(body: bytes, *, max_urls: int = MAX_URLS, max_bytes: int = MAX_BYTES) -> SitemapReading:
    """Read a urlset or sitemapindex, gzip or not, within the limits (every entry in a list)."""
    reading = stream_sitemap(body, max_urls=max_urls, max_bytes=max_bytes)
    reading.entries = list(reading)
    return reading


def stream_sitemap(body: bytes, *, max_urls: int = MAX_URLS, max_bytes: int = MAX_BYTES) -> SitemapStream:
    """The document's kind or verdict now, its entries as they are iterated.

    The entries are parsed while they are read, a chunk at a time: the memory is a chunk and one
    entry, never the decompressed document or its tree (a legal sitemap is 50 MB of XML)."""
    if len(body) > max_bytes:
        return SitemapStream(verdict=SITEMAP_OVER_SIZE_LIMIT, reason=f"{len(body)} bytes, over {max_bytes}")
    if body[:2] == GZIP_MAGIC:
        try:
            size = sum(len(chunk) for chunk in _chunks(body, max_bytes))  # decompressed once to be measured
        except (OSError, EOFError, ValueError, zlib.error) as exc:
            return SitemapStream(verdict=SITEMAP_UNREADABLE, reason=f"bad gzip: {exc}")
        if size > max_bytes:
            return SitemapStream(verdict=SITEMAP_OVER_SIZE_LIMIT, reason=f"over {max_bytes} bytes once decompressed")
    reading = SitemapStream(max_urls=max_urls)
    reading.start(body, max_bytes)
    return reading


@dataclass
class SitemapStream(SitemapReading):
    """A :class:`SitemapReading` whose entries are read as it is iterated (once).

    ``truncated``, ``skipped`` and ``reason`` are final once the iteration ends."""

    max_urls: int = MAX_URLS
    _events: Iterator[tuple[str, etree._Element]] | None = field(default=None, repr=False)

    def start(self, body: bytes, max_bytes: int) -> None:
        """Parse up to the root element: the document's kind, or why it is not a sitemap."""
        self._events = _events(body, max_bytes)
        try:
            root = next((element for event, element in self._events if event == "start"), None)
        except _NotXml as exc:
            self.verdict, self.reason = SITEMAP_UNREADABLE, f"not XML: {exc or 'empty'}"
            return
        if root is None:
            self.verdict, self.reason = SITEMAP_UNREADABLE, "not XML: empty"
            return
        self.kind = _local(root.tag)
        if self.kind not in (URLSET, SITEMAPINDEX):
            self.verdict, self.reason = SITEMAP_UNREADABLE, f"root element <{self.kind}> is not a sitemap"
            self.kind = None

    def __iter__(self) -> Iterator[dict[str, str | None]]:
        if self.verdict is not None or self._events is None:
            return
        events, self._events, read = self._events, None, 0
        try:
            for entry in _entries(events):
                loc = (entry.get("loc") or "").strip()
                if not loc.lower().startswith(("http://", "https://")) or len(loc) > MAX_LOC:
                    self.skipped += 1
                    continue
                if read == self.max_urls:
                    self.truncated = True
                    break
                read += 1
                yield {"loc": loc, "lastmod": (entry.get("lastmod") or "").strip()[:64] or None}
        except _NotXml as exc:  # recover=True makes this rare; keep what was read
            self.reason = f"stopped at an XML error: {exc}"


class _OverSize(Exception):
    """The decompressed document is over the size limit."""


class _NotXml(Exception):
    """The parser gave up."""


CHUNK = 65_536


def _chunks(body: bytes, max_bytes: int) -> Iterator[bytes]:
    """The document's bytes, a chunk at a time, decompressed when gzip (at most ``max_bytes + 1``)."""
    if body[:2] != GZIP_MAGIC:
        view = memoryview(body)
        for offset in range(0, len(body), CHUNK):
            yield bytes(view[offset : offset + CHUNK])
        return
    left = max_bytes + 1
    with gzip.GzipFile(fileobj=io.BytesIO(body)) as stream:
        while left > 0 and (chunk := stream.read(min(CHUNK, left))):
            left -= len(chunk)
            yield chunk


def _events(body: bytes, max_bytes: int) -> Iterator[tuple[str, etree._Element]]:
    """lxml's start and end events over ``body``, parsed a chunk at a time."""
    from lxml import etree  # on first use: most crawls read no sitemap

    parser = _parser()
    try:
        for chunk in _chunks(body, max_bytes):
            parser.feed(chunk)
            yield from parser.read_events()
        parser.close()
        yield from parser.read_events()
    except (etree.XMLSyntaxError, ValueError) as exc:
        raise _NotXml(str(exc)) from None


def _parser() -> etree.XMLPullParser:
    from lxml import etree

    # Scrapy's Sitemap parser options, plus no_network: recover from junk, never resolve entities.
    return etree.XMLPullParser(
        events=("start", "end"), recover=True, remove_comments=True, resolve_entities=False, no_network=True
    )


def _local(tag: object) -> str:
    """``{namespace}name`` -> ``name``; comments and processing instructions have none."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _entries(events: Iterator[tuple[str, etree._Element]]) -> Iterator[dict[str, str]]:
    """Each child of the root as ``{child name: text}``, those with a ``loc`` only; each is
    dropped from the tree once read."""
    depth, entry = 1, {}  # the root's start was read
    for event, element in events:
        if event == "start":
            depth += 1
            continue
        depth -= 1
        if depth == 2 and (name := _local(element.tag)):
            entry[name] = (element.text or "").strip()
        elif depth == 1:
            if "loc" in entry:
                yield entry
            entry = {}
            element.clear()
            parent = element.getparent()
            while parent is not None and element.getprevious() is not None:
                del parent[0]
