"""Pure parsers behind WALSH_ALLOW_PRIVATE_ADDRESSES and WALSH_STATE_URI."""

import ipaddress
from pathlib import Path

import pytest

from scrapy_walsh.policy.addresses import PrivateAddressAllowance
from scrapy_walsh.store import parse_state_uri


@pytest.mark.parametrize("value", [None, False, "False", "0", "", "none"])
def test_allowance_off(value):
    allowance = PrivateAddressAllowance.parse(value)
    assert not allowance.allow_all and allowance.networks == ()
    assert not allowance.permits("127.0.0.2")


@pytest.mark.parametrize("value", [True, "True", "1", "yes"])
def test_allowance_all(value):
    assert PrivateAddressAllowance.parse(value).permits("10.0.0.1")


@pytest.mark.parametrize("value", [["127.0.0.2/32", "::1/128"], "127.0.0.2/32,::1/128", ("127.0.0.2", "::1")])
def test_allowance_networks_only(value):
    allowance = PrivateAddressAllowance.parse(value)
    assert allowance.networks == (ipaddress.ip_network("127.0.0.2/32"), ipaddress.ip_network("::1/128"))
    assert allowance.permits("127.0.0.2") and allowance.permits("::1")
    assert not allowance.permits("127.0.0.1") and not allowance.permits("169.254.169.254")


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("127.0.0.2/8", "host bits set"),
        ("localhost", "not a CIDR"),
        ([1], "not a CIDR"),
        ({"a": 1}, "expected True, False"),
        (3.5, "expected True, False"),
    ],
)
def test_allowance_rejects_with_reason(value, reason):
    with pytest.raises(ValueError, match=reason):
        PrivateAddressAllowance.parse(value)


def test_state_uri_default_is_the_given_path():
    loc = parse_state_uri(None, "/p/.scrapy/walsh-state.sqlite3")
    assert loc.scheme == "sqlite" and loc.path == Path("/p/.scrapy/walsh-state.sqlite3")


def test_state_uri_sqlalchemy_convention():
    assert parse_state_uri("sqlite:///rel/state.sqlite3", "x").path == Path("rel/state.sqlite3")
    assert parse_state_uri("sqlite:////abs/state.sqlite3", "x").path == Path("/abs/state.sqlite3")


@pytest.mark.parametrize(
    ("uri", "reason"),
    [
        ("sqlite://", "use sqlite:///"),
        ("sqlite:///", "use sqlite:///"),
        ("sqlite:///:memory:", "in-memory"),
        ("mysql://x/y", "unsupported scheme"),
        ("redis:///0", "names its server"),
        (5, "expected a URI"),
    ],
)
def test_state_uri_rejects_with_reason(uri, reason):
    with pytest.raises(ValueError, match=reason):
        parse_state_uri(uri, "x")
