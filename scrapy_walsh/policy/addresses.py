"""Which network addresses the crawler may reach (pure: no Scrapy, no I/O).

The policy model forbids fetches to private or local addresses, and hints such as llms.txt
must never point the crawler there. ``WALSH_ALLOW_PRIVATE_ADDRESSES`` is the only way
around that rule, for local demos and tests, so its value is parsed strictly: a typo
must stop the crawl, not silently widen or narrow the allowance.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

#: Addresses whose :func:`refusal` an allowance keeps (the cache starts again when full).
REFUSALS_KEPT = 4096

_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off", "none", ""})


@dataclass(frozen=True)
class PrivateAddressAllowance:
    """The parsed ``WALSH_ALLOW_PRIVATE_ADDRESSES``: nothing, everything, or some networks."""

    allow_all: bool = False
    networks: tuple[IPNetwork, ...] = ()
    #: address -> :func:`refusal` under this allowance (not part of its value)
    _refusals: dict[str | IPAddress, str | None] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def parse(cls, value: object) -> PrivateAddressAllowance:
        """Parse a setting value; raise ``ValueError`` saying what is wrong with it."""
        if value is None or value is False:
            return cls()
        if value is True:
            return cls(allow_all=True)
        if isinstance(value, str):
            text = value.strip()
            if text.lower() in _TRUE:
                return cls(allow_all=True)
            if text.lower() in _FALSE:
                return cls()
            value = [part for part in text.split(",") if part.strip()]
        if isinstance(value, Iterable) and not isinstance(value, (bytes, dict)):
            return cls(networks=tuple(_network(item) for item in value))
        raise ValueError(f"expected True, False or a list of CIDR networks, got {value!r}")

    def permits(self, address: str) -> bool:
        """True when this allowance covers ``address`` (an IP literal)."""
        if self.allow_all:
            return True
        ip = ipaddress.ip_address(address)
        return any(ip in net for net in self.networks)

    def describe(self) -> str:
        if self.allow_all:
            return "all private and loopback addresses"
        if not self.networks:
            return "none"
        return ", ".join(str(n) for n in self.networks)


def _network(item: object) -> IPNetwork:
    if not isinstance(item, str):
        raise ValueError(f"{item!r} is not a CIDR network string")
    try:
        return ipaddress.ip_network(item.strip(), strict=True)
    except ValueError as exc:
        raise ValueError(f"{item.strip()!r} is not a CIDR network: {exc}") from None


# --- which addresses are refused ---------------------------------------------------
#
# The policy model: no fetch to a private or local address. We refuse everything that is not
# globally routable unicast, and read the IPv4 address inside the IPv6 forms that carry
# one (IPv4-mapped, IPv4-compatible, 6to4, NAT64), so ``::ffff:127.0.0.1`` is loopback.

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: Cloud instance-metadata endpoints: named on their own because they are the usual
#: SSRF prize (credentials). All are link-local or shared space, refused anyway.
CLOUD_METADATA = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean ...
        "169.254.170.2",  # AWS ECS task metadata
        "100.100.100.200",  # Alibaba Cloud
        "fd00:ec2::254",  # AWS IMDS over IPv6
    )
)

_V4_SPECIAL: tuple[tuple[ipaddress.IPv4Network, str], ...] = tuple(
    (ipaddress.IPv4Network(net), reason)
    for net, reason in (
        ("0.0.0.0/8", "unspecified"),  # "this network" (RFC 1122); 0.0.0.0 reaches localhost
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link_local"),
        ("224.0.0.0/4", "multicast"),
        ("255.255.255.255/32", "broadcast"),
        ("240.0.0.0/4", "reserved"),
        ("10.0.0.0/8", "private"),
        ("172.16.0.0/12", "private"),
        ("192.168.0.0/16", "private"),
        ("100.64.0.0/10", "shared"),  # carrier-grade NAT (RFC 6598)
        ("192.0.0.0/24", "reserved"),  # IETF protocol assignments
        ("192.0.2.0/24", "documentation"),
        ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"),
        ("198.18.0.0/15", "benchmarking"),
        ("192.88.99.0/24", "reserved"),  # deprecated 6to4 relay anycast
    )
)

_V6_SPECIAL: tuple[tuple[ipaddress.IPv6Network, str], ...] = tuple(
    (ipaddress.IPv6Network(net), reason)
    for net, reason in (
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("fe80::/10", "link_local"),
        ("fec0::/10", "site_local"),
        ("ff00::/8", "multicast"),
        ("fc00::/7", "private"),  # unique local addresses
        ("64:ff9b:1::/48", "private"),  # local-use NAT64 (RFC 8215)
        ("2001:db8::/32", "documentation"),
        ("3fff::/20", "documentation"),
        ("2001::/32", "teredo"),  # the client's real address is hidden in it
        ("100::/64", "discard"),
    )
)

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_V4_COMPATIBLE = ipaddress.IPv6Network("::/96")


def embedded_ipv4(ip: ipaddress.IPv6Address) -> tuple[str, ipaddress.IPv4Address] | None:
    """The IPv4 address an IPv6 address stands for, with the name of the form, if any."""
    if ip.ipv4_mapped is not None:
        return "IPv4-mapped", ip.ipv4_mapped
    if ip.sixtofour is not None:
        return "6to4", ip.sixtofour
    if ip in _NAT64:
        return "NAT64", ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip in _V4_COMPATIBLE and int(ip) > 1:  # :: and ::1 are themselves, not 0.0.0.0/0.0.0.1
        return "IPv4-compatible", ipaddress.IPv4Address(int(ip))
    return None


def parse_ip(text: str | IPAddress) -> IPAddress | None:
    """An IP address from a URL host or a resolver answer, or None for a name.

    Accepts ``[v6]`` brackets, a ``%zone`` suffix, and the legacy IPv4 spellings every
    C resolver still honours (``127.1``, ``2130706433``, ``0x7f.0.0.1``, ``0177.0.0.1``):
    a host that is any of those is an address, whatever it looks like.
    """
    if isinstance(text, (ipaddress.IPv4Address, ipaddress.IPv6Address)):
        return text
    return _parse_text(text)


@lru_cache(maxsize=4096)  # asked of the same host by several gates per request (pure)
def _parse_text(text: str) -> IPAddress | None:
    host = text.strip().rstrip(".")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if host and all(c in "0123456789abcdefABCDEFxX." for c in host) and not host.startswith("."):
        legacy = _legacy_ipv4(host)
        if legacy is not None:
            return legacy
    return None


def _legacy_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """inet_aton(3): 1-4 dot-separated parts, each decimal, 0x-hex or 0-octal."""
    parts = host.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    values = []
    for part in parts:
        try:
            if part[:2] in ("0x", "0X"):
                values.append(int(part[2:] or "0", 16))
            elif len(part) > 1 and part.startswith("0"):
                values.append(int(part, 8))
            else:
                values.append(int(part, 10))
        except ValueError:
            return None
    *head, last = values
    if any(v > 255 for v in head) or last >= 256 ** (4 - len(head)):
        return None
    number = 0
    for v in head:
        number = number * 256 + v
    number = number * 256 ** (4 - len(head)) + last
    return ipaddress.IPv4Address(number)


def classify(address: str | IPAddress) -> str | None:
    """Why ``address`` is not a public unicast address (``"loopback"``, ``"private"`` ...),
    or None when it is one. Raises ``ValueError`` for something that is not an address.

    The vocabulary: ``unspecified``, ``loopback``, ``link_local``, ``cloud_metadata``,
    ``multicast``, ``broadcast``, ``private``, ``shared``, ``site_local``, ``reserved``,
    ``documentation``, ``benchmarking``, ``teredo``, ``discard``, ``not_global``; an IPv6
    form carrying an IPv4 address answers for that address (``::ffff:10.0.0.1`` is
    ``private``).
    """
    ip = parse_ip(address) if isinstance(address, str) else address
    if ip is None:
        raise ValueError(f"{address!r} is not an IP address")
    if isinstance(ip, ipaddress.IPv6Address) and ip.scope_id:
        ip = ipaddress.IPv6Address(str(ip).split("%", 1)[0])
    if ip in CLOUD_METADATA:
        return "cloud_metadata"
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = embedded_ipv4(ip)
        if embedded is not None:
            return classify(embedded[1])
        table: tuple[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str], ...] = _V6_SPECIAL
    else:
        table = _V4_SPECIAL
    for network, reason in table:
        if ip in network:
            return reason
    if ip.is_multicast:
        return "multicast"
    if ip.is_reserved:
        return "reserved"
    if not ip.is_global:
        return "not_global"
    return None


def refusal(address: str | IPAddress, allowance: PrivateAddressAllowance) -> str | None:
    """The class that makes ``address`` refused under ``allowance``, or None when it may be
    reached (a public address, or one the allowance covers exactly as written: an IPv4
    network does not cover ``::ffff:`` forms of its addresses). Raises ``ValueError`` for
    something that is not an address.

    Kept with the allowance (a pure answer): every request asks it of its host's addresses."""
    known = allowance._refusals
    if address in known:
        return known[address]
    reason = classify(address)
    if reason is not None:
        ip = parse_ip(address) if isinstance(address, str) else address
        if allowance.permits(str(ip)):
            reason = None
    if len(known) >= REFUSALS_KEPT:
        known.clear()
    known[address] = reason
    return reason
