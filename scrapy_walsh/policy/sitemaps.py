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


from .vocabulary import SITEMAP_OVER_SIZE_LIMIT, SITEMAP_UNREADABLE

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
    """Read a urlset or sitemapindex, gzip or not, within the limits."""
    if len(body) > max_bytes:
        return SitemapReading(verdict=SITEMAP_OVER_SIZE_LIMIT, reason=f"{len(body)} bytes, over {max_bytes}")
    if body[:2] == GZIP_MAGIC:
        try:
            body = _gunzip(body, max_bytes)
        except _OverSize:
            return SitemapReading(verdict=SITEMAP_OVER_SIZE_LIMIT, reason=f"over {max_bytes} bytes once decompressed")
        except (OSError, EOFError, ValueError, zlib.error) as exc:
            return SitemapReading(verdict=SITEMAP_UNREADABLE, reason=f"bad gzip: {exc}")
    from lxml import etree  # on first use: most crawls read no sitemap

    try:
        root = etree.fromstring(body, parser=_parser())
    except (etree.XMLSyntaxError, ValueError) as exc:
        return SitemapReading(verdict=SITEMAP_UNREADABLE, reason=f"not XML: {exc or 'empty'}")
    if root is None:
        return SitemapReading(verdict=SITEMAP_UNREADABLE, reason="not XML: empty")
    kind = _local(root.tag)
    if kind not in (URLSET, SITEMAPINDEX):
        return SitemapReading(verdict=SITEMAP_UNREADABLE, reason=f"root element <{kind}> is not a sitemap")
    reading = SitemapReading(kind=kind)
    try:
        for entry in _entries(root):
            loc = (entry.get("loc") or "").strip()
            if not loc.lower().startswith(("http://", "https://")) or len(loc) > MAX_LOC:
                reading.skipped += 1
                continue
            if len(reading.entries) == max_urls:
                reading.truncated = True
                break
            reading.entries.append({"loc": loc, "lastmod": (entry.get("lastmod") or "").strip()[:64] or None})
    except etree.XMLSyntaxError as exc:  # recover=True makes this rare; keep what was read
        reading.reason = f"stopped at an XML error: {exc}"
    return reading


class _OverSize(Exception):
    """The decompressed document is over the size limit."""


def _gunzip(body: bytes, max_bytes: int) -> bytes:
    """Decompress ``body``, reading at most ``max_bytes + 1`` bytes: a gzip bomb stops there."""
    with gzip.GzipFile(fileobj=io.BytesIO(body)) as stream:
        data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise _OverSize
    return data


def _parser() -> etree.XMLParser:
    from lxml import etree

    # Scrapy's Sitemap parser options, plus no_network: recover from junk, never resolve entities.
    return etree.XMLParser(recover=True, remove_comments=True, resolve_entities=False, no_network=True)


def _local(tag: object) -> str:
    """``{namespace}name`` -> ``name``; comments and processing instructions have none."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _entries(root: etree._Element) -> Iterator[dict[str, str]]:
    """Each child of the root as ``{child name: text}``, those with a ``loc`` only."""
    for element in root:
        entry = {_local(child.tag): (child.text or "").strip() for child in element if _local(child.tag)}
        if "loc" in entry:
            yield entry
