"""The address guard without a socket: the pure classification, the resolver wrapper over
stub resolvers, the early middleware's check, the connect-time conversion, the audit.

Nothing here opens a connection: refusals of 10.0.0.1, 169.254.169.254, fd00::1 ... are
proven on the functions that decide, never by a crawl that could send a packet there.
"""

from __future__ import annotations

import pytest
from scrapy import Request
from scrapy.exceptions import CannotResolveHostError, IgnoreRequest
from scrapy.utils.test import get_crawler
from twisted.internet.address import IPv4Address, IPv6Address
from twisted.internet.error import DNSLookupError
from twisted.internet.interfaces import IHostnameResolver
from zope.interface.verify import verifyObject

from demo_site.resolver import DemoResolver
from scrapy_walsh import Addon
from scrapy_walsh.conformance import ConformanceError
from scrapy_walsh.middlewares.addresses import (
    AddressGuardMiddleware,
    ConnectRefusalMiddleware,
    GuardedNameResolver,
    PrivateAddressRefused,
    install_guard,
)
from scrapy_walsh.policy.addresses import PrivateAddressAllowance, classify, parse_ip, refusal

REFUSED = [
    ("127.0.0.1", "loopback"),
    ("127.255.255.254", "loopback"),
    ("::1", "loopback"),
    ("0.0.0.0", "unspecified"),
    ("0.1.2.3", "unspecified"),
    ("::", "unspecified"),
    ("10.0.0.1", "private"),
    ("172.16.0.1", "private"),
    ("172.31.255.255", "private"),
    ("192.168.1.1", "private"),
    ("fd00::1", "private"),
    ("fc00::1", "private"),
    ("169.254.169.254", "cloud_metadata"),
    ("169.254.170.2", "cloud_metadata"),
    ("100.100.100.200", "cloud_metadata"),
    ("fd00:ec2::254", "cloud_metadata"),
    ("169.254.1.1", "link_local"),
    ("fe80::1", "link_local"),
    ("fe80::1%eth0", "link_local"),
    ("fec0::1", "site_local"),
    ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast"),
    ("ff02::1", "multicast"),
    ("255.255.255.255", "broadcast"),
    ("240.0.0.1", "reserved"),
    ("100.64.0.1", "shared"),
    ("100.127.255.254", "shared"),
    ("192.0.0.8", "reserved"),
    ("192.0.2.1", "documentation"),
    ("198.51.100.7", "documentation"),
    ("203.0.113.9", "documentation"),
    ("2001:db8::1", "documentation"),
    ("198.18.0.1", "benchmarking"),
    ("2001::1", "teredo"),
    ("100::1", "discard"),
    ("64:ff9b:1::1", "private"),
    # IPv6 forms carrying an IPv4 address answer for that address
    ("::ffff:127.0.0.1", "loopback"),
    ("::ffff:10.0.0.1", "private"),
    ("::ffff:169.254.169.254", "cloud_metadata"),
    ("::127.0.0.1", "loopback"),
    ("2002:7f00:1::1", "loopback"),  # 6to4 of 127.0.0.1
    ("2002:a00:1::", "private"),  # 6to4 of 10.0.0.1
    ("64:ff9b::a9fe:a9fe", "cloud_metadata"),  # NAT64 of 169.254.169.254
    ("64:ff9b::7f00:1", "loopback"),
    # legacy IPv4 spellings a C resolver accepts
    ("127.1", "loopback"),
    ("2130706433", "loopback"),
    ("0x7f000001", "loopback"),
    ("0x7f.0.0.1", "loopback"),
    ("0177.0.0.1", "loopback"),
    ("012.0.0.1", "private"),  # octal 012 = 10
    ("[::1]", "loopback"),
]

PUBLIC = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "172.32.0.1",
    "100.128.0.1",
    "192.169.0.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001::1",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
    "11.0.0.1",
    "169.255.0.1",
]


@pytest.mark.parametrize(("address", "reason"), REFUSED)
def test_non_public_addresses_are_classified(address, reason):
    assert classify(address) == reason


@pytest.mark.parametrize("address", PUBLIC)
def test_public_unicast_addresses_are_not(address):
    assert classify(address) is None


@pytest.mark.parametrize("name", ["example.com", "cafe", "deadbeef.example", "0x.example", "1.2.3.4.5", "256.1.1.1"])
def test_names_are_not_addresses(name):
    assert parse_ip(name) is None
    with pytest.raises(ValueError):
        classify(name)


DEMO = PrivateAddressAllowance.parse(["127.0.0.2/32", "127.0.0.15/32"])


@pytest.mark.parametrize(
    ("address", "refused"),
    [
        ("127.0.0.2", None),  # the demo host itself
        ("127.0.0.15", None),
        ("127.0.0.1", "loopback"),  # the sentinel: not in the allowance
        ("::1", "loopback"),
        ("::ffff:127.0.0.2", "loopback"),  # an IPv4 network does not cover its mapped form
        ("10.0.0.1", "private"),
        ("169.254.169.254", "cloud_metadata"),
        ("8.8.8.8", None),
    ],
)
def test_the_allowance_opens_exactly_its_networks(address, refused):
    assert refusal(address, DEMO) == refused
    assert refusal(address, PrivateAddressAllowance()) == classify(address)
    assert refusal(address, PrivateAddressAllowance(allow_all=True)) is None


def test_an_address_is_classified_once_per_allowance(monkeypatch):
    """Every request asks the guard about its host's addresses: the answer is worked out once
    per address and allowance, not once per request (a cost counted, not timed)."""
    from scrapy_walsh.policy import addresses

    calls = []
    real = addresses.classify
    monkeypatch.setattr(addresses, "classify", lambda address: calls.append(address) or real(address))
    allowance = PrivateAddressAllowance.parse(["127.0.0.0/24"])
    for _ in range(100):
        assert refusal("127.0.0.2", allowance) is None
        assert refusal("10.0.0.1", allowance) == "private"
    assert sorted(calls) == ["10.0.0.1", "127.0.0.2"]
    # the kept answers are not part of the allowance's value
    assert allowance == PrivateAddressAllowance.parse(["127.0.0.0/24"])
    assert hash(allowance) == hash(PrivateAddressAllowance.parse(["127.0.0.0/24"]))
    with pytest.raises(ValueError):
        refusal("not an address", allowance)


# --- the resolver wrapper, over stub resolvers (no socket) ---------------------------


class StubResolver:
    """An IHostnameResolver answering fixed addresses, synchronously."""

    def __init__(self, answers):
        self.answers = answers
        self.asked = []

    def resolveHostName(self, receiver, hostName, portNumber=0, addressTypes=None, transportSemantics="TCP"):
        self.asked.append(hostName)
        receiver.resolutionBegan(object())
        for ip in self.answers.get(hostName, []):
            receiver.addressResolved((IPv6Address if ":" in ip else IPv4Address)("TCP", ip, portNumber))
        receiver.resolutionComplete()


class Receiver:
    def __init__(self):
        self.addresses, self.complete = [], False

    def resolutionBegan(self, resolution):
        pass

    def addressResolved(self, address):
        self.addresses.append(address.host)

    def resolutionComplete(self):
        self.complete = True


STUB = StubResolver(
    {
        "public.example": ["93.184.216.34"],
        "metadata.example": ["169.254.169.254"],
        "intranet.example": ["10.0.0.1"],
        "v6.example": ["fd00::1"],
        "mixed.example": ["93.184.216.34", "192.168.1.1"],
        "demo.example": ["127.0.0.2"],
        "sentinel.example": ["127.0.0.1"],
    }
)


@pytest.mark.parametrize(
    ("host", "address", "reason"),
    [
        ("metadata.example", "169.254.169.254", "cloud_metadata"),
        ("intranet.example", "10.0.0.1", "private"),
        ("v6.example", "fd00::1", "private"),
        ("mixed.example", "192.168.1.1", "private"),  # one refused address withholds them all
        ("sentinel.example", "127.0.0.1", "loopback"),
    ],
)
def test_the_wrapper_withholds_a_name_that_resolves_to_a_refused_address(host, address, reason):
    guard = GuardedNameResolver(STUB, DEMO)
    receiver = Receiver()
    guard.resolveHostName(receiver, host, 80)
    assert receiver.complete and receiver.addresses == []  # HostnameEndpoint: DNSLookupError, no connect
    assert guard.refused[host] == (address, reason)


@pytest.mark.parametrize(("host", "address"), [("public.example", "93.184.216.34"), ("demo.example", "127.0.0.2")])
def test_the_wrapper_passes_permitted_answers_on(host, address):
    guard = GuardedNameResolver(STUB, DEMO)
    receiver = Receiver()
    guard.resolveHostName(receiver, host, 80)
    assert receiver.addresses == [address] and receiver.complete
    assert guard.refused == {}


def test_the_wrapper_refuses_a_demo_name_that_resolves_to_loopback():
    """The real demo resolver, in-process: its names answer without a socket."""
    from twisted.internet._resolver import SimpleResolverComplexifier

    demo = SimpleResolverComplexifier(DemoResolver(reactor=None, cache_size=0, timeout=5))
    guard = GuardedNameResolver(demo, DEMO)
    for host, address in [("loopback.walsh-demo.test", "127.0.0.1"), ("open.walsh-demo.test", None)]:
        receiver = Receiver()
        guard.resolveHostName(receiver, host, 80)
        assert receiver.complete
        assert receiver.addresses == ([] if address else ["127.0.0.2"])
    assert guard.refused == {"loopback.walsh-demo.test": ("127.0.0.1", "loopback")}
    # and the rebinding name: a permitted answer first, loopback the next time
    first, second = Receiver(), Receiver()
    guard.resolveHostName(first, "rebind.walsh-demo.test", 80)
    guard.resolveHostName(second, "rebind.walsh-demo.test", 80)
    assert first.addresses == ["127.0.0.2"] and second.addresses == []
    assert guard.refused["rebind.walsh-demo.test"] == ("127.0.0.1", "loopback")


class FakeReactor:
    """Just the resolver-plugging API of a reactor (IReactorPluggableNameResolver)."""

    def __init__(self, name_resolver):
        self.nameResolver = name_resolver
        self.resolver = None

    def installNameResolver(self, resolver):
        self.nameResolver, self.resolver = resolver, ("simplifier of", resolver)


def test_install_wraps_once_and_keeps_the_strictest_allowance():
    reactor = FakeReactor(STUB)
    guard = install_guard(reactor, DEMO)
    verifyObject(IHostnameResolver, guard)
    assert reactor.nameResolver is guard and guard.inner is STUB
    assert reactor.resolver == ("simplifier of", guard)  # the simple API goes through it too
    again = install_guard(reactor, PrivateAddressAllowance(allow_all=True))
    assert again is guard and guard.inner is STUB
    assert guard.refusal("127.0.0.1") == "loopback"  # allow-all in one crawler opens nothing for the other


# --- the early middleware's check and the connect-time conversion (no socket) --------


@pytest.fixture
def crawler():
    return get_crawler(settings_dict={"ADDONS": {Addon: 500}, "WALSH_ALLOW_PRIVATE_ADDRESSES": ["127.0.0.2/32"]})


def run(coroutine):
    """Drive a middleware coroutine that never waits (stub answers are synchronous)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise AssertionError("the coroutine waited: something would have touched the reactor")


@pytest.mark.parametrize(
    ("url", "address", "reason"),
    [
        ("http://10.0.0.1/", "10.0.0.1", "private"),
        ("http://192.168.1.1:8080/admin", "192.168.1.1", "private"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254", "cloud_metadata"),
        ("http://[fd00::1]/", "fd00::1", "private"),
        ("http://[::ffff:10.0.0.1]/", "::ffff:10.0.0.1", "private"),
        ("http://2130706433/", "127.0.0.1", "loopback"),
        ("http://127.0.0.1:8787/", "127.0.0.1", "loopback"),
        ("http://[::1]:8787/", "::1", "loopback"),
        ("http://metadata.example/computeMetadata/v1/", "169.254.169.254", "cloud_metadata"),
        ("http://intranet.example/", "10.0.0.1", "private"),
        ("http://mixed.example/", "192.168.1.1", "private"),
    ],
)
def test_the_early_check_refuses_before_anything_is_sent(crawler, url, address, reason):
    stub = StubResolver(STUB.answers)
    mw = AddressGuardMiddleware(crawler, guard=GuardedNameResolver(stub, DEMO))
    with pytest.raises(PrivateAddressRefused) as info:
        run(mw.process_request(Request(url)))
    exc = info.value
    assert isinstance(exc, IgnoreRequest)
    assert (exc.gate, exc.verdict) == ("address", "private_address")
    assert parse_ip(exc.details["address"]) == parse_ip(address)
    assert exc.details["address_class"] == reason and exc.details["stage"] == "request"
    assert "WALSH_ALLOW_PRIVATE_ADDRESSES" in exc.reason
    stats = crawler.stats.get_stats()
    assert stats["walsh/address/refused"] == 1 and stats["walsh/denied/address/private_address"] == 1
    assert stats[f"walsh/address/refused/{reason}"] == 1
    assert stub.asked == (
        [] if parse_ip(url.split("/")[2].rsplit(":", 1)[0] if "[" not in url else "::") else [url.split("/")[2]]
    )  # IP literals are never looked up


def test_the_early_check_lets_public_and_allowed_hosts_through(crawler):
    mw = AddressGuardMiddleware(crawler, guard=GuardedNameResolver(STUB, DEMO))
    for url in ("http://public.example/", "http://demo.example/", "http://127.0.0.2:8787/", "http://8.8.8.8/"):
        assert run(mw.process_request(Request(url))) is None
    assert crawler.stats.get_value("walsh/address/refused") is None


@pytest.mark.parametrize("error", [DNSLookupError("no results"), CannotResolveHostError("no results")])
def test_a_connect_time_refusal_becomes_the_gate_refusal(crawler, error):
    guard = GuardedNameResolver(STUB, DEMO)
    guard.resolveHostName(Receiver(), "metadata.example", 80)
    mw = ConnectRefusalMiddleware(crawler, guard=guard)
    with pytest.raises(PrivateAddressRefused) as info:
        mw.process_exception(Request("http://metadata.example/x"), error)
    assert info.value.details["stage"] == "connect"
    assert info.value.details["address_class"] == "cloud_metadata"
    assert crawler.stats.get_value("walsh/address/refused_at/connect") == 1
    # any other failure, or a DNS failure the guard did not cause, passes on unchanged
    assert mw.process_exception(Request("http://metadata.example/x"), error) is None
    assert mw.process_exception(Request("http://public.example/"), ConnectionError()) is None


# --- the audit ---------------------------------------------------------------------


def _later_addon(changes):
    class Later:
        def update_settings(self, settings):
            for name, value in changes.items():
                if name == "DOWNLOADER_MIDDLEWARES":
                    for cls, prio in value.items():
                        settings.set_in_component_priority_dict(name, cls, prio)
                else:
                    settings.set(name, value, "addon")

    return Later


@pytest.mark.parametrize(
    "changes",
    [
        {"DOWNLOADER_MIDDLEWARES": {"scrapy_walsh.middlewares.addresses.AddressGuardMiddleware": None}},
        {"DOWNLOADER_MIDDLEWARES": {"scrapy_walsh.middlewares.addresses.ConnectRefusalMiddleware": None}},
    ],
)
def test_the_guard_cannot_be_removed_or_bypassed(changes):
    with pytest.raises(ConformanceError) as info:
        get_crawler(settings_dict={"ADDONS": {Addon: 500, _later_addon(changes): 900}})
    assert {f.requirement for f in info.value.findings} == {"addresses"}


def test_a_handler_resolving_outside_the_reactor_is_a_warning():
    from scrapy.settings import Settings

    from scrapy_walsh.conformance import WARN, audit_settings

    aiohttp = "scrapy.core.downloader.handlers._aiohttp.AiohttpDownloadHandler"
    settings = Settings({"DOWNLOAD_HANDLERS": {"https": aiohttp}})
    Addon().update_settings(settings)
    found = [f for f in audit_settings(settings) if f.setting == "DOWNLOAD_HANDLERS"]
    assert [f.status for f in found] == [WARN] and "rebinding" in found[0].message


def test_reactorless_crawls_check_names_through_asyncio(monkeypatch):
    """Scrapy's reactorless mode (aiohttp/httpx): no resolver to wrap, the check still runs.

    The name's lookup is a stub (a real lookup could send a DNS query off this machine);
    the numeric lookup is real: getaddrinfo parses it without a query.
    """
    import asyncio

    from scrapy_walsh.middlewares import addresses

    crawler = get_crawler(settings_dict={"ADDONS": {Addon: 500}, "TWISTED_REACTOR_ENABLED": False})
    mw = AddressGuardMiddleware.from_crawler(crawler)
    assert mw.reactorless
    assert asyncio.run(addresses._getaddrinfo("10.0.0.1")) == ["10.0.0.1"]

    async def stub(host):
        return {"intranet.example": ["10.0.0.1"], "public.example": ["93.184.216.34"]}[host]

    monkeypatch.setattr(addresses, "_getaddrinfo", stub)
    assert asyncio.run(mw.process_request(Request("http://public.example/"))) is None
    with pytest.raises(PrivateAddressRefused):
        asyncio.run(mw.process_request(Request("http://intranet.example/")))
    # the connect-time converter has nothing to convert, and imports no reactor
    assert (
        ConnectRefusalMiddleware.from_crawler(crawler).process_exception(
            Request("http://intranet.example/"), DNSLookupError("x")
        )
        is None
    )
