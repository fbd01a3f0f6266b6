"""R7: one canonical form of a URL, for validators, dedup and the frequency guard. Pure.

Seed 001 strips the ``#fragment`` and the trailing slash; everything else is w3lib's
``canonicalize_url`` (sorted query, normalised percent-encoding, lower-case scheme and
host). The root path stays ``/``: ``https://a.example`` and ``https://a.example/`` are
one URL.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def canonical_url(url: str) -> str:
    from w3lib.url import canonicalize_url  # on first use: w3lib.url loads urllib.request (~20 ms)

    parts = urlsplit(canonicalize_url(url, keep_fragments=False))
    path = parts.path.rstrip("/") or "/"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))
