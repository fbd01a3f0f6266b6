"""R7/R8: the one key of a target, for validators, dedup and the frequency guard. Pure.

The key is the seed's canonical URL and nothing more, so two URLs a server may answer
differently never share a key (RFC 3986 §6.2.2 normalisation that does not change the
resource). :func:`legacy_canonical_url` keeps the key earlier versions wrote, and
:func:`record_keys` gives both. docs/state-store.md ("Target keys") says why.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType
from urllib.parse import urlunsplit

from scrapy_walsh.policy.urls import PLAIN_URL, remove_dot_segments, split

__all__ = ("canonical_url", "legacy_canonical_url", "record_keys")

DEFAULT_PORTS: Mapping[str, int] = MappingProxyType({"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21})
UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
#: What a path or query may hold as it is (RFC 3986 pchar, plus "/" and "?"); the rest is encoded.
ALLOWED = UNRESERVED | frozenset("!$&'()*+,;=:@/?")
_KEPT = r"A-Za-z0-9\-._~!$&'()*+,;=:@/?"
#: A text :func:`_normalise` leaves as it is: allowed characters only, no escape.
_PLAIN = re.compile(f"[{_KEPT}]*")
#: What it changes: an escape (or a ``%`` that starts none), a character a URI can't hold.
_SPECIAL = re.compile(f"%(?:[0-9A-Fa-f]{{2}})?|[^{_KEPT}%]")
#: A default port written out: w3lib keeps it, the canonical key drops it.
DEFAULT_PORT = re.compile(r"^http://[^/]*:80(?:/|$)|^https://[^/]*:443(?:/|$)")


@lru_cache(maxsize=4096)  # a URL is canonicalised on the way out and back (R8, R7): once is enough
def canonical_url(url: str) -> str:
    """The target key of ``url``; raises ``ValueError`` for a URL that can't be parsed."""
    parts = split(url.strip())
    scheme = parts.scheme.lower()
    path = remove_dot_segments(_normalise(parts.path) or "/").rstrip("/") or "/"
    return urlunsplit((scheme, _netloc(scheme, parts), path, _normalise(parts.query), ""))


@lru_cache(maxsize=4096)
def legacy_canonical_url(url: str) -> str:
    """The key earlier versions wrote (w3lib's ``canonicalize_url``, fragment and trailing
    slash stripped): read, never written."""
    from w3lib.url import canonicalize_url  # on first use: w3lib.url loads urllib.request (~20 ms)

    parts = split(canonicalize_url(url, keep_fragments=False))
    path = parts.path.rstrip("/") or "/"
    netloc = parts.netloc
    if parts.hostname and parts.hostname.endswith("."):
        userinfo, at, hostport = netloc.rpartition("@")
        host, colon, port = hostport.rpartition(":") if hostport.count(":") == 1 else (hostport, "", "")
        netloc = f"{userinfo}{at}{host.rstrip('.')}{colon}{port}"
    return urlunsplit((parts.scheme, netloc, path, parts.query, ""))


def record_keys(url: str) -> tuple[str, ...]:
    """The keys a stored record of ``url`` may have: the canonical one first, then the one an
    earlier version wrote when it differs (w3lib is not asked for a URL both write alike)."""
    key = canonical_url(url)
    if PLAIN_URL.fullmatch(url) and not DEFAULT_PORT.search(url):
        return (key,)
    try:
        old = legacy_canonical_url(url)
    except ValueError:
        return (key,)
    return (key,) if old == key else (key, old)


def _netloc(scheme: str, parts: object) -> str:
    from urllib.parse import SplitResult

    assert isinstance(parts, SplitResult)
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    else:
        host = _a_labels(host.rstrip("."))
    port = parts.port  # ValueError for a port out of range: documented, like urlsplit's
    netloc = host if port is None or DEFAULT_PORTS.get(scheme) == port else f"{host}:{port}"
    userinfo, at, _ = parts.netloc.rpartition("@")
    return f"{_normalise(userinfo)}{at}{netloc}"


def _a_labels(host: str) -> str:
    host = host.lower()
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return _normalise(host)


def _normalise(text: str) -> str:
    """Percent-encodings in upper case, unreserved characters decoded, the rest kept; what a
    URI can't hold is encoded as UTF-8 (a ``%`` that starts no escape becomes ``%25``).

    One regular-expression pass (a 1,000-character path of a sitemap is no Python loop), and
    none beyond the check when there is nothing to change."""
    if _PLAIN.fullmatch(text):
        return text
    return _SPECIAL.sub(_replace, text)


def _replace(match: re.Match[str]) -> str:
    found = match.group(0)
    if found[0] == "%":
        if len(found) == 1:
            return "%25"
        decoded = chr(int(found[1:], 16))
        return decoded if decoded in UNRESERVED else found.upper()
    return "".join(f"%{b:02X}" for b in found.encode("utf-8", "surrogatepass"))
