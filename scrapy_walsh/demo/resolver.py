"""A Scrapy ``DNS_RESOLVER`` that maps ``*.walsh-demo.test`` to the demo's loopback IPs.

``.test`` names never resolve through the OS, which is the point: the demo and the
tests can use real host names (a blocked apex *and* its subdomain) without editing
``/etc/hosts`` and without any chance of reaching the internet. Every other name goes
to Scrapy's default resolver unchanged. Demo and test use only::

    DNS_RESOLVER = "scrapy_walsh.demo.resolver.DemoResolver"
"""

from __future__ import annotations

from collections.abc import Sequence

from scrapy.resolver import CachingThreadedResolver
from twisted.internet import defer
from twisted.internet.error import DNSLookupError

from .hosts import BY_NAME, DEMO_DOMAIN


class DemoResolver(CachingThreadedResolver):
    def getHostByName(self, name: str, timeout: Sequence[int] = ()) -> defer.Deferred[str]:
        key = name.lower().rstrip(".")
        if key == DEMO_DOMAIN or key.endswith("." + DEMO_DOMAIN):
            host = BY_NAME.get(key)
            if host is None:
                return defer.fail(DNSLookupError(f"{name}: no such demo host"))
            return defer.succeed(host.ip)
        return super().getHostByName(name, timeout)
