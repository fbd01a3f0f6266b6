"""One key per host, for every gate that remembers a host: pacing, backoff pauses, the
robots.txt cache, R7/R8 records, the blocklist and the per-host stats. Pure.

The key is the blocklist's canonical form (lower case, IDNA A-labels, no trailing dot, no
port), so one host never gets two slots. It never raises: a URL no parser can read has the
key ``""``, which every gate refuses. docs/url-model.md says why.
"""

from __future__ import annotations

from functools import lru_cache

from scrapy_walsh.policy.blocklist.hosts import normalise_host
from scrapy_walsh.policy.urls import split

__all__ = ("host_key", "url_host")


@lru_cache(maxsize=65536)
def host_key(host: str | None) -> str:
    """The canonical key of a bare host (``None`` and ``""`` give ``""``)."""
    return normalise_host(host) if host else ""


@lru_cache(maxsize=65536)
def url_host(url: str) -> str:
    """The canonical key of ``url``'s host; ``""`` when it has none or can't be parsed.
    Cached: every gate asks it of every request, and the crawl repeats its URLs."""
    try:
        return host_key(split(url).hostname)
    except ValueError:  # "http://example.com[" and friends
        return ""


def url_problem(url: str) -> str | None:
    """Why ``url`` is not an absolute http(s) URL a command can act on (one line), or None:
    commands given a malformed URL answer with this, never a traceback."""
    try:
        parts = split(url)
        parts.port  # noqa: B018 - raises on a port that is out of range or not a number
    except ValueError as exc:
        return f"{url!r} is not a URL: {exc}"
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return f"{url!r} is not an absolute http(s) URL"
    return None
