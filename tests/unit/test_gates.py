"""The gates' pure decisions (scrapy_walsh.policy.gates), as tables of observed inputs."""

from __future__ import annotations

import pytest

from scrapy_walsh.policy.addresses import PrivateAddressAllowance
from scrapy_walsh.policy.gates import (
    ADDRESS_ALLOWED,
    ADDRESS_REFUSED,
    AVAILABLE,
    DNS_FAILURE,
    MAX_REDIRECTS,
    STALE_LIMIT,
    UNAVAILABLE,
    UNREACHABLE,
    RobotsFetch,
    address_decision,
    cache_seconds,
    crawl_delay_over_cap,
    follow_redirect,
    origin_of,
    recently_fetched,
    record,
    restore,
    robots_outcome,
    usable_copy,
    with_stale_copy,
)
from scrapy_walsh.policy.vocabulary import Verdict

ORIGIN = "http://example.com:80"
NOW = 1_800_000_000.0
BODY = b"User-agent: *\nDisallow: /private/\n"


@pytest.mark.parametrize(
    ("fetch", "outcome", "verdict"),
    [
        (RobotsFetch(200, BODY), AVAILABLE, Verdict.DISALLOWED_EXPLICIT),
        (RobotsFetch(404), UNAVAILABLE, Verdict.ALLOWED_IMPLICIT),
        (RobotsFetch(410), UNAVAILABLE, Verdict.ALLOWED_IMPLICIT),
        (RobotsFetch(304), UNAVAILABLE, Verdict.ALLOWED_IMPLICIT),  # a 3xx with no Location
        (RobotsFetch(302, has_location=True), UNAVAILABLE, Verdict.ALLOWED_IMPLICIT),  # RFC 9309 §2.3.1.2
        (RobotsFetch(429), UNREACHABLE, Verdict.UNKNOWN_UNREACHABLE),
        (RobotsFetch(503, b"User-agent: *\nAllow: /\n"), UNREACHABLE, Verdict.UNKNOWN_UNREACHABLE),
        (RobotsFetch(error="DNS lookup failed"), UNREACHABLE, Verdict.UNKNOWN_UNREACHABLE),
        (RobotsFetch(200, b"\x00\x01<html>"), AVAILABLE, Verdict.UNKNOWN_PARSE_ERROR),
    ],
)
def test_robots_outcome_from_the_answer(fetch, outcome, verdict):
    result = robots_outcome(ORIGIN, fetch, NOW)
    assert result.outcome == outcome
    assert result.verdict("http://example.com/private/x", "Walsh-Research") is verdict


def test_redirects_are_followed_five_times_and_no_more():
    assert [follow_redirect(301, True, hops) for hops in range(MAX_REDIRECTS + 1)] == [True] * 5 + [False]
    assert not follow_redirect(301, False, 0)
    assert robots_outcome(ORIGIN, RobotsFetch(301, has_location=True), NOW).reason == "more than 5 redirects"


def test_the_stored_record_round_trips_and_stands_in_for_an_unreachable_file():
    fetched = robots_outcome(ORIGIN, RobotsFetch(200, BODY), NOW - 2 * 86400)
    saved = record(fetched, BODY)
    assert saved is not None and restore(ORIGIN, saved, "cache").verdict("http://example.com/private/", "x") is (
        Verdict.DISALLOWED_EXPLICIT
    )
    down = robots_outcome(ORIGIN, RobotsFetch(503), NOW)
    stale = with_stale_copy(down, saved, NOW)
    assert (stale.source, stale.outcome) == ("stale", AVAILABLE)
    too_old = {**saved, "fetched_at": NOW - STALE_LIMIT}
    assert with_stale_copy(down, too_old, NOW) is down
    assert with_stale_copy(down, None, NOW) is down
    assert record(down, b"") is None  # the last good copy is kept


@pytest.mark.parametrize(
    "saved",
    [{}, {"outcome": AVAILABLE}, {"fetched_at": str(NOW)}, {"fetched_at": True}, {"fetched_at": None}, [NOW], "x"],
)
def test_a_stored_record_without_its_time_is_never_fresh_and_never_raises(saved):
    """Another version's record, or a damaged one, is read as no copy: the origin's robots.txt is
    fetched again. Raising instead made the gate read the origin as unreachable, every page refused."""
    assert not usable_copy(saved, NOW, STALE_LIMIT)
    down = robots_outcome(ORIGIN, RobotsFetch(503), NOW)
    assert with_stale_copy(down, saved, NOW) is down


def test_an_unavailable_outcome_is_stored_without_a_body():
    saved = record(robots_outcome(ORIGIN, RobotsFetch(404, b"not found"), NOW), b"not found")
    assert saved is not None and saved["body"] == "" and saved["outcome"] == UNAVAILABLE


def test_address_decision():
    none = PrivateAddressAllowance()
    assert address_decision([], none).verdict == DNS_FAILURE
    assert address_decision(["93.184.216.34"], none).verdict == ADDRESS_ALLOWED
    refused = address_decision(["93.184.216.34", "10.0.0.1"], none)  # any refused address refuses the name
    assert (refused.verdict, refused.address, refused.address_class) == (ADDRESS_REFUSED, "10.0.0.1", "private")
    assert address_decision(["10.0.0.1"], PrivateAddressAllowance.parse(["10.0.0.0/8"])).verdict == ADDRESS_ALLOWED


def test_cap_cache_and_r8():
    assert crawl_delay_over_cap(61.0, 60.0) and not crawl_delay_over_cap(60.0, 60.0)
    assert not crawl_delay_over_cap(None, 60.0)
    assert cache_seconds(10 * 86400) == 86400 and cache_seconds(60) == 60
    assert recently_fetched(NOW - 10, NOW, 86400)
    assert not recently_fetched(NOW - 86400, NOW, 86400)
    assert not recently_fetched(None, NOW, 86400)
    assert not recently_fetched(NOW - 10, NOW, 0)  # WALSH_REFETCH_INTERVAL = 0 disables R8
    assert origin_of("https://User@Example.com/x") == "https://example.com:443"


@pytest.mark.parametrize(
    "origin,shown",
    [
        ("http://www.example.test:80", "http://www.example.test"),
        ("https://www.example.test:443", "https://www.example.test"),
        ("http://www.example.test:443", "http://www.example.test:443"),
        ("https://www.example.test:8443", "https://www.example.test:8443"),
        ("http://[::1]:80", "http://[::1]"),
    ],
)
def test_an_origin_in_a_message_is_written_as_a_person_writes_it(origin, shown):
    """The store keys an origin with its port; a refusal names it without the scheme's default
    port, as docs/plan.md shows it ("robots.txt of https://blog.example disallows it")."""
    from scrapy_walsh.policy.gates import shown_origin

    assert shown_origin(origin) == shown
