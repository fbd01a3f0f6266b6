"""The one URL model: a request as it will be sent, and the paths servers resolve it to. Pure.

A URL from a manifest is text: :func:`sent_url` turns it into the URL Scrapy's ``Request`` holds
(w3lib's WHATWG-style parse) with its dot segments removed (RFC 3986 §5.2.4, ``%2e`` read as
``.``). :func:`readings` gives the paths common servers may serve for a sent path (nginx merges
``//`` and decodes ``%2F`` before it resolves dots; Tomcat cuts ``;`` parameters; IIS reads ``\\``).
docs/url-model.md says why each gate reads these and nothing else.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import SplitResult, urlsplit, urlunsplit

from w3lib.url import safe_url_string

from scrapy_walsh.policy.blocklist.hosts import normalise_host

__all__ = (
    "UnsafeURL",
    "path_readings",
    "reading_urls",
    "readings",
    "remove_dot_segments",
    "resolved",
    "sent_url",
    "split",
)

#: A path segment that is ``.`` or ``..`` once ``%2e`` is read as the dot it encodes.
_DOTS = frozenset({".", ".."})
#: What makes a sent path read differently on some server: a ``//`` run, an encoded slash or
#: backslash, a backslash, a ``;`` parameter. A path with none of them has one reading.
_AMBIGUOUS = re.compile(r"//|%2[fF]|%5[cC]|\\|;")
_SLASHES = re.compile(r"/{2,}")
_SEPARATORS = re.compile(r"%2[fF]|%5[cC]|\\")
_PARAMS = re.compile(r";[^/]*")
_PORT = r"(?::(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?"
#: A URL every reading writes as it is: a lowercase http(s) scheme and host name, a port in range,
#: a path of unreserved characters with no dot segment, no query, userinfo or fragment. Most of a
#: sitemap's URLs: they skip w3lib (tests/unit/test_plan_cost.py checks both on a random sample).
PLAIN_URL = re.compile(rf"https?://[a-z0-9-]+(?:\.[a-z0-9-]+)*{_PORT}(?:/(?![.]{{1,2}}(?:/|$))[A-Za-z0-9\-._~]*)*")


class UnsafeURL(ValueError):
    """A URL the add-on does not send: no http(s) host, parsers that read different hosts in it,
    userinfo, or an encoded host."""


def split(url: str) -> SplitResult:
    """The parts of a URL as Scrapy's download handler reads them (``urlsplit``; ``ValueError``
    for one it can't read). The one place the package splits a request's URL."""
    return urlsplit(url)


def _is_dots(segment: str) -> str | None:
    """``.`` or ``..`` when ``segment`` is a dot segment in any spelling, else None."""
    if len(segment) > 6 or "." not in segment and "%" not in segment:
        return None
    plain = segment.lower().replace("%2e", ".")
    return plain if plain in _DOTS else None


def remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4 on an absolute path, ``%2e``/``%2E`` read as ``.`` (RFC 3986 §2.3:
    an unreserved character and its encoding are one). Never climbs above the root."""
    segments = path.split("/")
    out: list[str] = []
    last = len(segments) - 1
    for index, segment in enumerate(segments):
        dots = _is_dots(segment) if index else None
        if dots is None:
            out.append(segment)
            continue
        if dots == ".." and len(out) > 1:
            out.pop()
        if index == last:
            out.append("")  # "/a/." and "/a/b/.." end with a slash
    return "/".join(out) or "/"


@lru_cache(maxsize=65536)
def resolved(url: str) -> str:
    """``url`` (already in Scrapy's form) with its path's dot segments removed: the URL sent."""
    try:
        parts = split(url)
    except ValueError:
        return url
    path = remove_dot_segments(parts.path) if parts.path else parts.path
    return url if path == parts.path else urlunsplit(parts._replace(path=path))


def sent_url(text: str) -> str:
    """The URL the add-on sends for ``text`` from a manifest, a feed or llms.txt: Scrapy's form
    (what ``Request(text).url`` holds), dot segments removed. Raises :class:`UnsafeURL` for one
    with no http(s) host, or whose host another parser reads differently (``http://O\\@S/``:
    urllib reads S, Scrapy and browsers O)."""
    return text if PLAIN_URL.fullmatch(text) else _sent_url(text)


@lru_cache(maxsize=65536)
def _sent_url(text: str) -> str:
    try:
        url = resolved(safe_url_string(text.strip(), "utf-8"))
        parts = split(url)
        host = normalise_host(parts.hostname) if parts.hostname else ""
        raw = split(text.strip()).hostname
        parts.port  # noqa: B018 - raises on a port out of range or not a number
    except (ValueError, UnicodeError) as exc:
        raise UnsafeURL(f"{text[:200]!r} is not a URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not host:
        raise UnsafeURL(f"{text[:200]!r} is not an absolute http(s) URL")
    if raw is None or normalise_host(raw) != host:
        raise UnsafeURL(f"{text[:200]!r} names host {raw!r} to one parser and {host!r} to the request sent")
    if "@" in parts.netloc or "%" in parts.netloc:
        # Twisted's agent resolves ``user@host`` whole, and a WHATWG parser decodes ``%6Fpen``
        raise UnsafeURL(f"{text[:200]!r} has userinfo or an encoded host, which clients read differently")
    return url


def _merged(path: str) -> str:
    return _SLASHES.sub("/", path)


@lru_cache(maxsize=65536)
def path_readings(path: str) -> tuple[str, ...]:
    """The paths common servers may serve for ``path`` (no query), the RFC 3986 one first: with
    and without ``//`` merged (before or after the dots), ``%2F``, ``%5C`` and ``\\`` read as
    ``/``, and ``;`` parameters cut."""
    if not path.startswith("/"):
        return (path,)
    first = remove_dot_segments(path)
    if not _AMBIGUOUS.search(path):
        return (first,)
    found = dict.fromkeys([first])
    for decode in (False, True):
        for params in (False, True):
            base = _SEPARATORS.sub("/", path) if decode else path
            base = _PARAMS.sub("", base) if params else base
            dots_first = remove_dot_segments(base)
            found[dots_first] = None
            found[_merged(dots_first)] = None
            found[remove_dot_segments(_merged(base))] = None
    return tuple(found)


def reading_urls(url: str) -> tuple[str, ...]:
    """``url`` once per reading of its path (:func:`path_readings`), the query kept: what a path
    rule (robots.txt) must allow for the request to be sent."""
    try:
        parts = split(url)
    except ValueError:
        return (url,)
    paths = path_readings(parts.path or "/")
    if paths == (parts.path,):
        return (url,)
    return tuple(urlunsplit(parts._replace(path=p)) for p in paths)


def readings(url: str) -> tuple[str, ...]:
    """The request-targets (``path?query``) common servers may serve for ``url``, the sent one first."""
    try:
        parts = split(url)
    except ValueError:
        return (url,)
    query = f"?{parts.query}" if parts.query else ""
    return tuple(path + query for path in path_readings(parts.path or "/"))
