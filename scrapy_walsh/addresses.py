"""Which network addresses the crawler may reach (pure: no Scrapy, no I/O).

Seed 000 forbids fetches to private or local addresses, and hints such as llms.txt
must never point the crawler there. ``WALSH_ALLOW_PRIVATE_ADDRESSES`` is the only way
around that rule, for local demos and tests, so its value is parsed strictly: a typo
must stop the crawl, not silently widen or narrow the allowance.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off", "none", ""}


@dataclass(frozen=True)
class PrivateAddressAllowance:
    """The parsed ``WALSH_ALLOW_PRIVATE_ADDRESSES``: nothing, everything, or some networks."""

    allow_all: bool = False
    networks: tuple[IPNetwork, ...] = ()

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
        raise ValueError(
            f"expected True, False or a list of CIDR networks, got {value!r}"
        )

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
