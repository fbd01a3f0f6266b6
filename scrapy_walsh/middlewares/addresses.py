"""The policy model: no request reaches a loopback, private, link-local or otherwise non-public address.

Two checks, because either alone has a hole: ``AddressGuardMiddleware`` (downloader middleware 85)
refuses a URL whose host is, or resolves to, such an address; ``GuardedNameResolver`` wraps the
reactor's resolver so such an address is never connected to, even when DNS answers differently
at connect time (rebinding), and ``ConnectRefusalMiddleware`` (560) turns its refusal back into
``PrivateAddressRefused``. ``WALSH_ALLOW_PRIVATE_ADDRESSES`` is the only way around either.
docs/requirements/addresses.md says why.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, NoReturn

from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred
from twisted.internet.error import DNSLookupError
from twisted.internet.interfaces import IHostnameResolver, IResolutionReceiver
from zope.interface import implementer

try:  # Scrapy >= 2.14 wraps Twisted's DNSLookupError
    from scrapy.exceptions import CannotResolveHostError

    _SCRAPY_DNS_ERRORS: tuple[type[Exception], ...] = (CannotResolveHostError,)
except ImportError:  # pragma: no cover - older Scrapy raises Twisted's own
    _SCRAPY_DNS_ERRORS = ()

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.exceptions import PrivateAddressRefused, refuse
from scrapy_walsh.policy.addresses import PrivateAddressAllowance, parse_ip, refusal
from scrapy_walsh.policy.gates import ADDRESS_REFUSED, address_decision
from scrapy_walsh.policy.hostkey import host_key
from scrapy_walsh.policy.vocabulary import PRIVATE_ADDRESS
from scrapy_walsh.sending import admission
from scrapy_walsh.sending.pacer import SharedPacer
from scrapy_walsh.sending.request_meta import request_host, request_parts

if TYPE_CHECKING:
    from collections.abc import Sequence

    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from twisted.internet.interfaces import IAddress, IHostResolution

logger = logging.getLogger(__name__)

#: After the sub-resource gate (80), before the blocklist gate (90) and robots.txt (100).
PRIORITY = 85
#: Above RetryMiddleware (550): process_exception runs from the highest number down.
CONNECT_PRIORITY = 560
SETTING = "WALSH_ALLOW_PRIVATE_ADDRESSES"


def refused(host: str, address: str, reason: str, url: str = "", stage: str = "request") -> PrivateAddressRefused:
    shown = host if host == address else f"{host} ({address})"
    return PrivateAddressRefused(
        PRIVATE_ADDRESS,
        f"{shown} is a {reason.replace('_', '-')} address; the address rule forbids requests to "
        f'non-public addresses (for a site you run, allow it: {SETTING} = ["{address}"])',
        url,
        host=host,
        address=address,
        address_class=reason,
        stage=stage,
    )


@implementer(IResolutionReceiver)
class _Collect:
    """Collects a resolution's addresses into a Deferred."""

    def __init__(self) -> None:
        self.addresses: list[str] = []
        self.done: Deferred[list[str]] = Deferred()

    def resolutionBegan(self, resolution: IHostResolution) -> None:
        pass

    def addressResolved(self, address: IAddress) -> None:
        self.addresses.append(getattr(address, "host", str(address)))

    def resolutionComplete(self) -> None:
        self.done.callback(self.addresses)


@implementer(IResolutionReceiver)
class _Withhold:
    """Passes a resolution on only if none of its addresses is refused."""

    def __init__(self, guard: GuardedNameResolver, receiver: Any, host: str):
        # ``Any``: zope interfaces are not typed as protocols (mypy reads them as plain classes)
        self.guard, self.receiver, self.host = guard, receiver, host
        self.addresses: list[IAddress] = []

    def resolutionBegan(self, resolution: IHostResolution) -> None:
        self.receiver.resolutionBegan(resolution)

    def addressResolved(self, address: IAddress) -> None:
        self.addresses.append(address)

    def resolutionComplete(self) -> None:
        for address in self.addresses:
            ip = getattr(address, "host", str(address))
            reason = self.guard.refusal(ip)
            if reason is not None:
                self.guard.record(self.host, ip, reason)
                break
        else:
            for address in self.addresses:
                self.receiver.addressResolved(address)
        self.receiver.resolutionComplete()


@implementer(IHostnameResolver)
class GuardedNameResolver:
    """The reactor's name resolver, minus every answer that holds a refused address.

    One per reactor, shared by the crawlers of a process: an address is refused when
    any of their allowances refuses it (the strictest wins).
    """

    def __init__(self, inner: IHostnameResolver, allowance: PrivateAddressAllowance):
        self.inner: Any = inner  # see _Withhold: zope interfaces are not protocols to mypy
        self.allowances: list[PrivateAddressAllowance] = [allowance]
        #: host -> (address, class) of the last refusal, read by ConnectRefusalMiddleware
        self.refused: dict[str, tuple[str, str]] = {}

    def refusal(self, address: str) -> str | None:
        try:
            reasons = [refusal(address, a) for a in self.allowances]
        except ValueError:
            return "not_an_address"
        return next((r for r in reasons if r is not None), None)

    def record(self, host: str, address: str, reason: str) -> None:
        self.refused[host.lower().rstrip(".")] = (address, reason)
        logger.warning(
            "the address rule: connection to %s refused at connect time: it resolved to %s, a %s address",
            host,
            address,
            reason,
        )

    def resolveHostName(
        self,
        resolutionReceiver: IResolutionReceiver,
        hostName: str,
        portNumber: int = 0,
        addressTypes: Sequence[type[IAddress]] | None = None,
        transportSemantics: str = "TCP",
    ) -> IHostResolution:
        return self.inner.resolveHostName(
            _Withhold(self, resolutionReceiver, hostName), hostName, portNumber, addressTypes, transportSemantics
        )

    def lookup(self, host: str) -> Deferred[list[str]]:
        """Every address ``host`` resolves to now, through the unguarded resolver."""
        collect = _Collect()
        self.inner.resolveHostName(collect, host, 0)
        return collect.done


def install_guard(reactor: Any, allowance: PrivateAddressAllowance) -> GuardedNameResolver:
    """Wrap ``reactor.nameResolver`` (idempotent). ``installNameResolver`` also makes
    ``reactor.resolver`` a view of the wrapper, so both resolver APIs are guarded."""
    current = reactor.nameResolver
    if isinstance(current, GuardedNameResolver):
        if allowance not in current.allowances:
            current.allowances.append(allowance)
        return current
    guard = GuardedNameResolver(current, allowance)
    reactor.installNameResolver(guard)
    return guard


def _refuse(crawler: Crawler, exc: PrivateAddressRefused) -> NoReturn:
    """The address rule's own counts (per class and stage), then the refusal as every gate's."""
    assert crawler.stats is not None
    crawler.stats.inc_value("walsh/address/refused")
    crawler.stats.inc_value(f"walsh/address/refused/{exc.details['address_class']}")
    crawler.stats.inc_value(f"walsh/address/refused_at/{exc.details['stage']}")
    refuse(crawler, exc)


class AddressGuardMiddleware:
    def __init__(self, crawler: Crawler, guard: GuardedNameResolver | None = None):
        assert crawler.stats is not None
        self.crawler = crawler
        self.stats = crawler.stats
        self.allowance = CrawlContext.of(crawler).config.allow_private_addresses
        self._injected = guard  # tests pass a guard over a stub resolver
        self._guard: GuardedNameResolver | None = None
        self._reactor: Any = None
        #: Scrapy >= 2.19 can run without a Twisted reactor (aiohttp/httpx handlers): no
        #: resolver to wrap then, and names are looked up through asyncio for the check.
        self.reactorless = not crawler.settings.getbool("TWISTED_REACTOR_ENABLED", True)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> AddressGuardMiddleware:
        return cls(crawler)

    @property
    def guard(self) -> GuardedNameResolver:
        """The reactor's guard, installed on first use: by then Scrapy has installed its
        ``DNS_RESOLVER`` on the reactor; a resolver installed over it later is wrapped again."""
        if self._injected is not None:
            return self._injected
        if self._reactor is None:  # asked of every request: the import statement once
            from twisted.internet import reactor  # the installed one

            self._reactor = reactor
        if self._guard is None or self._reactor.nameResolver is not self._guard:
            self._guard = install_guard(self._reactor, self.allowance)
        return self._guard

    def _active_guard(self) -> GuardedNameResolver | None:
        if self._injected is not None:
            return self._injected
        return None if self.reactorless else self.guard

    async def process_request(self, request: Request, spider: Spider | None = None) -> None:
        self._active_guard()  # installed before anything connects
        host = request_parts(request).hostname
        if host:
            addresses = await self.addresses_of(host)
            # pacing reserves the host and each of its addresses, whatever WALSH_PACE_BY: one server
            # behind many names is still one server
            CrawlContext.of(self.crawler).get(SharedPacer).learn(host_key(host), addresses)
            # a name that does not resolve fails the same way at connect time: nothing to refuse
            if not self.allowance.allow_all:
                self.check(request, host, addresses)
        admission.stamp(request, admission.ADDRESS)

    async def addresses_of(self, host: str) -> list[str]:
        guard = self._active_guard()
        ip = parse_ip(host)
        if ip is not None:
            return [str(ip)]
        if guard is None:
            return await _getaddrinfo(host)
        return await _addresses(guard.lookup(host))

    async def refusal_for(self, host: str) -> tuple[str, str] | None:
        """(address, class) when ``host`` is, or resolves to, a refused address (the checkpoint
        asks this of a proxy)."""
        if self.allowance.allow_all:
            return None
        decision = address_decision(await self.addresses_of(host), self.allowance)
        if decision.verdict == ADDRESS_REFUSED:
            assert decision.address is not None and decision.address_class is not None
            return decision.address, decision.address_class
        return None

    def check(self, request: Request, host: str, addresses: list[str]) -> None:
        """Refuse ``request`` when any of ``addresses`` (``host``'s) is refused."""
        decision = address_decision(addresses, self.allowance)  # this crawler's own allowance
        if decision.verdict == ADDRESS_REFUSED:
            assert decision.address is not None and decision.address_class is not None
            _refuse(self.crawler, refused(host, decision.address, decision.address_class, request.url))


class ConnectRefusalMiddleware:
    """Turns the guard's connect-time refusal into ``PrivateAddressRefused`` (not retried)."""

    def __init__(self, crawler: Crawler, guard: GuardedNameResolver | None = None):
        assert crawler.stats is not None
        self.crawler = crawler
        self.stats = crawler.stats
        self._injected = guard
        self.reactorless = not crawler.settings.getbool("TWISTED_REACTOR_ENABLED", True)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ConnectRefusalMiddleware:
        return cls(crawler)

    def process_exception(self, request: Request, exception: Exception, spider: Spider | None = None) -> None:
        if not _is_dns_error(exception):
            return
        guard = self._injected
        if guard is None:
            if self.reactorless:
                return  # no resolver of ours to have refused it (and no reactor to import)
            from twisted.internet import reactor

            guard = reactor.nameResolver
        host = request_host(request)
        if not isinstance(guard, GuardedNameResolver) or host not in guard.refused:
            return
        address, reason = guard.refused.pop(host)
        # never counted as sent: no response came (summary.py)
        _refuse(self.crawler, refused(host, address, reason, request.url, stage="connect"))


async def _addresses(looked_up: Deferred[list[str]]) -> list[str]:
    """The lookup's answer; at once when it is already there (cached names, literals)."""
    if looked_up.called:
        answer: list[list[str]] = []
        looked_up.addCallback(answer.append)
        return answer[0]
    return await maybe_deferred_to_future(looked_up)


async def _getaddrinfo(host: str) -> list[str]:
    import asyncio
    import socket

    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return []
    return [str(info[4][0]) for info in infos]


def _is_dns_error(exception: BaseException | None) -> bool:
    """Scrapy wraps Twisted's DNSLookupError in CannotResolveHostError (``from`` it)."""
    seen = 0
    while exception is not None and seen < 5:
        if isinstance(exception, (DNSLookupError, *_SCRAPY_DNS_ERRORS)):
            return True
        exception, seen = exception.__cause__, seen + 1
    return False
