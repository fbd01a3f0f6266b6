"""R7: one canonical form of a URL, for validators, dedup and the frequency guard. Pure.

Seed 001 strips the ``#fragment`` and the trailing slash; everything else is w3lib's
``canonicalize_url`` (sorted query, normalised percent-encoding, lower-case scheme and
host). The root path stays ``/``: ``https://a.example`` and ``https://a.example/`` are
one URL.
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import urlsplit, urlunsplit


@lru_cache(maxsize=4096)  # a URL is canonicalised on the way out and back (R8, R7): once is enough
def canonical_url(url: str) -> str:
    from w3lib.url import canonicalize_url  # on first use: w3lib.url loads urllib.request (~20 ms)

    parts = urlsplit(canonicalize_url(url, keep_fragments=False))
    path = parts.path.rstrip("/") or "/"
    netloc = parts.netloc
    if parts.hostname and parts.hostname.endswith("."):  # a.example. is a.example (one host key)
        netloc = _no_dot(netloc)
    return urlunsplit((parts.scheme, netloc, path, parts.query, ""))


def _no_dot(netloc: str) -> str:
    """``netloc`` with the host's trailing dot(s) dropped (port and userinfo kept)."""
    userinfo, at, hostport = netloc.rpartition("@")
    host, colon, port = hostport.rpartition(":") if hostport.count(":") == 1 else (hostport, "", "")
    return f"{userinfo}{at}{host.rstrip('.')}{colon}{port}"
