"""How many bytes a response may bring in, after decompression, and reading a prefix. Pure.

A serial crawler holds every response body in memory, and a compressed body can decode to a
thousand times its size (815 KB of gzip are 800 MiB of zeros). Every fetch therefore has a
bound on its *decoded* body:

* robots.txt: the parser's limit (:data:`scrapy_walsh.policy.robots.MAX_BYTES`) plus
  :data:`ROBOTS_SLACK`, so the parser still sees that the file goes on and cuts at a line end.
  A longer robots.txt is *read up to the bound*
  (:func:`scrapy_walsh.middlewares.bounds.read_prefix`), never refused: a refusal
  would read as unreachable, and a cut file is still the site's own rules;
* pages: ``WALSH_MAX_BODY_BYTES`` (8 MiB by default, :data:`scrapy_walsh.settings.MAX_BODY_BYTES`);
  a longer body is refused;
* what the add-on reads for itself or for a structured source sets its own bound
  (``download_maxsize``): sitemaps 50 MiB (the protocol's limit), llms.txt and markdown 1 MiB,
  the blocklist and tdmrep.json their parsers' limits. A request may ask for more than the page
  bound, never more than :func:`ceiling`.

The header block of every response is bounded too (:data:`MAX_HEADER_COUNT` lines,
:data:`MAX_HEADER_BYTES` bytes), while it is received (:mod:`scrapy_walsh.header_bound`): a
response over it is refused before its headers are in memory.
"""

from __future__ import annotations

from .robots import MAX_BYTES as ROBOTS_PARSE_BYTES
from .sitemaps import MAX_BYTES as SITEMAP_MAX_BYTES

#: Read past the robots.txt parse limit: one decompression chunk, so the parser sees whether
#: the line at its limit goes on (it never keeps half a rule).
ROBOTS_SLACK = 65_536
#: The decoded bytes of a robots.txt we read at most.
ROBOTS_BYTES = ROBOTS_PARSE_BYTES + ROBOTS_SLACK


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


#: The most header lines a response may have (its status line aside), as Node.js's HTTP parser
#: allows by default (``maxHeadersCount``): far above what a real site sends (a few dozen).
MAX_HEADER_COUNT = 2_000
#: The most bytes a response's status line and header block may take, as Chromium allows
#: (``ERR_RESPONSE_HEADERS_TOO_BIG``): a site a browser reads is never refused for its headers.
MAX_HEADER_BYTES = 256 * 1024


def header_block_over(lines: int, size: int) -> str | None:
    """Why a header block of ``lines`` header lines and ``size`` bytes so far is over its
    bound, or None while it is within."""
    if lines > MAX_HEADER_COUNT:
        return f"more than {MAX_HEADER_COUNT} header lines"
    if size > MAX_HEADER_BYTES:
        return f"more than {MAX_HEADER_BYTES} bytes of headers"
    return None
