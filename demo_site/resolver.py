"""A Scrapy ``DNS_RESOLVER`` that maps ``*.walsh-demo.test`` to the demo's loopback IPs.

``.test`` names never resolve through the OS: real host names without ``/etc/hosts`` and
without any chance of reaching the internet; every other name goes to Scrapy's default
resolver. It also answers a few names for the address guard to refuse (loopback behind a
public-looking name, a rebinding name). docs/demo.md says why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from scrapy.resolver import CachingThreadedResolver
from twisted.internet import defer
from twisted.internet.error import DNSLookupError

from demo_site.hosts import BY_NAME, DEMO_DOMAIN, HOSTS

#: Names that resolve to an address the guard refuses (no server: nothing may reach them).
LOOPBACK_NAMES: Mapping[str, str] = MappingProxyType(
    {
        f"loopback.{DEMO_DOMAIN}": "127.0.0.1",
        f"loopback6.{DEMO_DOMAIN}": "::1",
    }
)
#: Answers the demo host ``open``'s address on odd lookups and 127.0.0.1 on even ones:
#: a check at request time sees a permitted address, the connection a refused one.
REBIND_NAME = f"rebind.{DEMO_DOMAIN}"
REBIND_ANSWERS = (HOSTS["open"].ip, "127.0.0.1")


class DemoResolver(CachingThreadedResolver):
    rebind_lookups = 0

    @staticmethod
    def fixed_address(name: str) -> str | None:
        """A demo host's address, known without a lookup (``scrapy walsh check`` fetches the
        demo's list with it); None for any other name."""
        host = BY_NAME.get(name.lower().rstrip("."))
        return None if host is None else host.ip

    def getHostByName(self, name: str, timeout: Sequence[int] = ()) -> defer.Deferred[str]:
        key = name.lower().rstrip(".")
        if key in LOOPBACK_NAMES:
            return defer.succeed(LOOPBACK_NAMES[key])
        if key == REBIND_NAME:
            self.rebind_lookups += 1
            return defer.succeed(REBIND_ANSWERS[(self.rebind_lookups - 1) % 2])
        if key == DEMO_DOMAIN or key.endswith("." + DEMO_DOMAIN):
            host = BY_NAME.get(key)
            if host is None:
                return defer.fail(DNSLookupError(f"{name}: no such demo host"))
            return defer.succeed(host.ip)
        return super().getHostByName(name, timeout)
