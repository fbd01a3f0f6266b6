"""Hosts and listed domains in one canonical form, so a lookup is a dict probe.

Lowercase ASCII, IDN labels in punycode (UTS 46 mapping, so ``bücher.example`` and
``xn--bcher-kva.example`` are one), no trailing dot, no port, IP addresses in their
:mod:`ipaddress` form (``127.1`` and ``0x7f.0.0.1`` are 127.0.0.1, as URL parsers read them).
"""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from urllib.parse import urlsplit

import idna

from scrapy_walsh.policy.blocklist.errors import short

#: LDH labels of at most 63 characters (the form every hostname has after IDNA).
_LDH_HOST = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)(?:\.(?!-)[a-z0-9-]{1,63}(?<!-))*", re.ASCII)
#: A label that URL parsers read as a number (WHATWG URL, "ends in a number").
_NUMERIC_LABEL = re.compile(r"[0-9]+|0[xX][0-9a-fA-F]*", re.ASCII)
#: A bare host with nothing to strip (no scheme, userinfo, port, path or brackets).
_PLAIN_HOST = re.compile(r"[^\s:/?#@\[\]]+")
_IPV4_PART = re.compile(r"0[xX](?P<hex>[0-9a-fA-F]*)|0(?P<oct>[0-7]+)|(?P<dec>0|[1-9][0-9]*)", re.ASCII)


def _ipv6(text: str) -> str | None:
    """The canonical form of an IPv6 literal (zone dropped; IPv4-mapped as IPv4)."""
    try:
        addr = ipaddress.IPv6Address(text.partition("%")[0])
    except ValueError:
        return None
    mapped = addr.ipv4_mapped
    return str(mapped) if mapped is not None else str(addr)


def _url_ipv4(host: str) -> str | None:
    """The IPv4 address a URL parser makes of ``host`` (WHATWG URL: ``127.1``,
    ``0x7f.0.0.1`` and ``2130706433`` are all 127.0.0.1), or None if it isn't one."""
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if len(parts) > 4:
        return None
    numbers = []
    for part in parts:
        m = _IPV4_PART.fullmatch(part)
        if m is None:
            return None
        if m.group("hex") is not None:
            numbers.append(int(m.group("hex") or "0", 16))
        elif m.group("oct") is not None:
            numbers.append(int(m.group("oct"), 8))
        else:
            numbers.append(int(m.group("dec")))
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        return None
    value = numbers[-1]
    for i, n in enumerate(numbers[:-1]):
        value += n << (8 * (3 - i))
    return str(ipaddress.IPv4Address(value))


@lru_cache(maxsize=4096)
def _idna(host: str) -> str:
    """Punycode/ASCII lowercase form of a non-ASCII host, label by label if the whole
    won't encode (so a bad label never hides a listed parent); never raises. Cached:
    IDNA costs ~20 us and a crawl asks about the same few hosts over and over."""
    try:
        return idna.encode(host, uts46=True, std3_rules=False, transitional=False).decode("ascii")
    except (idna.IDNAError, UnicodeError, ValueError):
        pass
    try:
        host = idna.uts46_remap(host, std3_rules=False, transitional=False)
    except (idna.IDNAError, UnicodeError, ValueError):
        return host.lower()
    labels = []
    for label in host.split("."):
        try:
            labels.append(idna.alabel(label).decode("ascii") if label else label)
        except (idna.IDNAError, UnicodeError, ValueError):
            labels.append(label.lower())
    return ".".join(labels)


def extract_host(value: str) -> str:
    """The host part of a bare host, ``host:port``, ``[v6]:port`` or URL."""
    if _PLAIN_HOST.fullmatch(value):  # the common case: already a bare host
        return value
    text = value.strip()
    if "://" in text or text.startswith("//"):
        try:
            return urlsplit(text).hostname or ""
        except ValueError:  # e.g. an unbalanced "[" in the netloc
            text = text.split("//", 1)[1]
    for sep in "/?#":
        text = text.split(sep, 1)[0]
    text = text.rpartition("@")[2]
    if text.startswith("["):
        return text[1:].partition("]")[0]
    if text.count(":") == 1:  # host:port; two or more colons is a bare IPv6 literal
        return text.partition(":")[0]
    return text


@lru_cache(maxsize=4096)
def canonical(host: str) -> tuple[str, bool]:
    """(canonical form, is an IP address) of an extracted host; never raises. Cached: a crawl
    asks about the same few hosts for each of its targets, several times each."""
    if not host:
        return "", False
    if ":" in host:
        ip = _ipv6(host)
        if ip is not None:
            return ip, True
    if not host.isascii():
        host = _idna(host)
    host = host.lower().rstrip(".")
    last = host.rpartition(".")[2]
    if last[:1].isdigit() and _NUMERIC_LABEL.fullmatch(last):  # "0x7f" starts with a digit too
        ip = _url_ipv4(host)
        if ip is not None:
            return ip, True
    return host, False


def normalise_host(host_or_url: str) -> str:
    """The canonical form of the host in ``host_or_url`` (a bare host, ``host:port``,
    ``[v6]:port`` or a URL): lowercase, IDNA A-labels (UTS 46 mapping), no trailing dot
    or port, IP addresses as :mod:`ipaddress` writes them. A host that can't be
    IDNA-encoded is lowercased label by label instead; this never raises."""
    return canonical(extract_host(host_or_url))[0]


def listed_domain(value: object) -> tuple[str, bool]:
    """The canonical form of a listed domain, strictly: a hostname (ASCII or IDN) or an
    IP literal, with no scheme, port, path or whitespace. ``ValueError`` otherwise. A
    name that URL parsers read as an IPv4 address (``127.1``, ``0x7f.0.0.1``) is that
    address, exactly as :meth:`Blocklist.match` reads a host."""
    if not isinstance(value, str):
        raise ValueError(f"{short(repr(value), 80)} is not a string")
    if ":" in value:
        ip = _ipv6(value) if "%" not in value else None
        if ip is None:
            raise ValueError(f"{short(repr(value), 80)} is not a hostname or IP address (no scheme or port)")
        return ip, True
    host = value[:-1] if value.endswith(".") else value
    if not host.isascii():
        try:
            host = idna.encode(host, uts46=True, std3_rules=True, transitional=False).decode("ascii")
        except (idna.IDNAError, UnicodeError, ValueError) as exc:
            raise ValueError(f"{short(repr(value), 80)} is not a valid IDN hostname: {exc}") from None
        host = host[:-1] if host.endswith(".") else host
    host = host.lower()
    if not _LDH_HOST.fullmatch(host) or len(host) > 253:
        raise ValueError(f"{short(repr(value), 80)} is not a hostname (no scheme, port, path or whitespace)")
    if _NUMERIC_LABEL.fullmatch(host.rpartition(".")[2]):
        ip = _url_ipv4(host)  # "127.1" is 127.0.0.1 to every URL parser, so it is that address here too
        if ip is not None:
            return ip, True
    return host, False


def canonical_domain(value: object) -> str:
    """The canonical form of a domain as a blocklist entry may write it (strictly: a
    hostname or IP literal, nothing else); ``ValueError`` says what is wrong with it.
    Editors of the list use it so an entry is written as the gate will read it."""
    return listed_domain(value)[0]
