"""How many bytes a response may bring in, after decompression, and reading a prefix. Pure.

A compressed body can decode to a thousand times its size, so every fetch has a bound on its
*decoded* body: robots.txt is read up to its bound (never refused), a page over
``WALSH_MAX_BODY_BYTES`` is refused, and nothing asks for more than :func:`ceiling`. The header
block is bounded too. docs/hostile-servers.md says why.
"""

from __future__ import annotations

from scrapy_walsh.policy.robots import MAX_BYTES as ROBOTS_PARSE_BYTES
from scrapy_walsh.policy.sitemaps import MAX_BYTES as SITEMAP_MAX_BYTES

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
