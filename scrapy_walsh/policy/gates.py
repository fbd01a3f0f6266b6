"""Each gate's decision as a pure function of what was observed (no Scrapy, no I/O).

The crawl's middlewares and ``scrapy walsh explain`` fetch and resolve in their own way
(Scrapy's downloader, http.client), then hand what they saw to these functions: the
robots.txt outcome (status, redirect hops, network error, stored copy and its age), the
stored robots.txt record, the address rule, the Crawl-delay cap and R8's "recently
fetched". So the two can't drift apart: there is one copy of each rule and constant.
"""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass, field
from typing import Any

from scrapy_walsh.policy.addresses import PrivateAddressAllowance, refusal
from scrapy_walsh.policy.hostkey import host_key
from scrapy_walsh.policy.robots import MAX_BYTES, RobotsTxt
from scrapy_walsh.policy.urls import reading_urls, split
from scrapy_walsh.policy.vocabulary import PRIVATE_ADDRESS, Namespace, Verdict

# ---------------------------------------------------------------------- constants

#: RFC 9309 §2.3.1.2: follow at least five consecutive redirects (and we follow no more).
MAX_REDIRECTS = 5
#: RFC 9309 §2.4: a robots.txt outcome is reused at most 24 h.
MAX_CACHE_SECONDS = 86400.0
#: RFC 9309 §2.3.1.4: a stored copy may stand in for an unreachable robots.txt this long.
STALE_LIMIT = 30 * 86400.0
#: Only what the parser reads is stored.
STORED_BODY_LIMIT = MAX_BYTES
ROBOTS_NAMESPACE = Namespace.ROBOTS
FETCHED_NAMESPACE = Namespace.FETCHED

# What a robots.txt fetch concluded, independent of any URL.
AVAILABLE = "available"  # 2xx, parsed
UNAVAILABLE = "unavailable"  # 4xx, too many redirects: allow all
UNREACHABLE = "unreachable"  # 5xx, 429, network error, a refused hop: disallow all

#: The address rule's answers: the address gate refuses only ``private_address``; a name
#: that does not resolve is not refused there (the connection fails on its own, and
#: robots.txt, fetched first, is then unreachable).
ADDRESS_ALLOWED = "allowed"
ADDRESS_REFUSED = PRIVATE_ADDRESS
DNS_FAILURE = "dns_failure"


def cache_seconds(setting: float) -> float:
    """``WALSH_ROBOTS_CACHE_SECONDS`` as used: never over 24 h (RFC 9309 §2.4)."""
    return min(MAX_CACHE_SECONDS, setting)


def origin_key(scheme: str, host: str | None, port: int | None) -> str:
    """The origin a robots.txt governs, as the store keys it: ``http://host:80``."""
    port = port or {"http": 80, "https": 443}.get(scheme, 0)
    return f"{scheme}://{host_key(host)}:{port}"


def shown_origin(origin: str) -> str:
    """An origin as a person writes it: without its scheme's default port (``http://host``)."""
    for scheme, port in (("http", ":80"), ("https", ":443")):
        if origin.startswith(f"{scheme}://") and origin.endswith(port):
            return origin[: -len(port)]
    return origin


def origin_of(url: str) -> str:
    try:
        parts = split(url)
        return origin_key(parts.scheme, parts.hostname, parts.port)
    except ValueError:  # an unparsable netloc ("http://example.com[") or port: no origin
        return ""


# ---------------------------------------------------------------------- robots.txt


@dataclass
class OriginRobots:
    """One origin's robots.txt outcome."""

    origin: str
    outcome: str
    fetched_at: float
    status: int | None = None
    reason: str = ""
    robots: RobotsTxt | None = None
    #: ``fetched``, ``cache`` (fresh stored copy) or ``stale`` (stored copy standing
    #: in for an unreachable robots.txt).
    source: str = "fetched"
    #: When this process last asked the origin (``fetched_at`` is when the rules were read).
    checked_at: float = field(default_factory=time.time)

    @property
    def sitemaps(self) -> list[str]:
        """``Sitemap:`` lines, for discovery only (they grant no permission)."""
        return [] if self.robots is None else self.robots.sitemaps

    def verdict(self, url: str, token: str) -> Verdict:
        if self.outcome == UNREACHABLE:
            return Verdict.UNKNOWN_UNREACHABLE
        if self.outcome == UNAVAILABLE or self.robots is None:
            return Verdict.ALLOWED_IMPLICIT
        if self.robots.parse_error:
            return Verdict.UNKNOWN_PARSE_ERROR
        # the verdict holds for every path a common server may serve for this request
        verdicts = [self.robots.verdict(reading, token) for reading in reading_urls(url)]
        return next((v for v in verdicts if v is Verdict.DISALLOWED_EXPLICIT), verdicts[0])

    def crawl_delay(self, token: str) -> float | None:
        return None if self.robots is None else self.robots.crawl_delay(token)

    def request_rate(self, token: str) -> float | None:
        return None if self.robots is None else self.robots.request_rate(token)


def is_redirect(status: int, has_location: bool) -> bool:
    return 300 <= status < 400 and has_location


def follow_redirect(status: int, has_location: bool, hops: int) -> bool:
    """Whether the transport follows this answer, ``hops`` redirects into the chain."""
    return is_redirect(status, has_location) and hops < MAX_REDIRECTS


@dataclass(frozen=True)
class RobotsFetch:
    """What the transport got for robots.txt: the last answer, or why there was none."""

    status: int | None = None
    body: bytes = b""
    #: The last answer is a redirect (3xx with Location) that was not followed.
    has_location: bool = False
    #: A network error, or a hop another gate refused (then ``status`` is None).
    error: str | None = None


def robots_outcome(origin: str, fetch: RobotsFetch, now: float) -> OriginRobots:
    """RFC 9309 §2.3.1: 2xx available, 4xx and too many redirects unavailable (allow all),
    5xx, 429 and network errors unreachable (disallow all; see :func:`with_stale_copy`)."""
    status = fetch.status
    if fetch.error is not None or status is None:
        return OriginRobots(origin, UNREACHABLE, now, None, fetch.error or "no answer")
    if is_redirect(status, fetch.has_location):
        # §2.3.1.2: "MAY assume that the robots.txt file is unavailable"
        return OriginRobots(origin, UNAVAILABLE, now, None, f"more than {MAX_REDIRECTS} redirects")
    if 200 <= status < 300:
        return OriginRobots(origin, AVAILABLE, now, status, "", RobotsTxt.parse(fetch.body))
    if status == 429 or status >= 500:
        return OriginRobots(origin, UNREACHABLE, now, status, f"HTTP {status}")
    return OriginRobots(origin, UNAVAILABLE, now, status, f"HTTP {status}")


def fetched_after(saved: Any, since: float) -> bool:
    """A stored record fetched after ``since``: the one freshness rule, which the state store's
    ``claim_unless_fresh`` also applies (its Redis Lua repeats it). Whatever else is stored (no
    record, a record without a time) is not fresh."""
    fetched_at = saved.get("fetched_at") if isinstance(saved, dict) else None
    return isinstance(fetched_at, (int, float)) and not isinstance(fetched_at, bool) and fetched_at > since


def usable_copy(saved: dict[str, Any] | None, now: float, max_age: float) -> bool:
    """A stored record younger than ``max_age`` (the cache time, or :data:`STALE_LIMIT`)."""
    return fetched_after(saved, now - max_age)


def with_stale_copy(result: OriginRobots, saved: dict[str, Any] | None, now: float) -> OriginRobots:
    """RFC 9309 §2.3.1.4: an unreachable robots.txt is replaced by a stored copy under
    30 days old (``source = "stale"``); anything else is returned as it is."""
    if result.outcome == UNREACHABLE and saved is not None and usable_copy(saved, now, STALE_LIMIT):
        return restore(result.origin, saved, "stale")
    return result


def record(result: OriginRobots, body: bytes) -> dict[str, Any] | None:
    """The store record for a fetched outcome, or None when it must not be stored
    (unreachable: the last good copy is kept for :func:`with_stale_copy`)."""
    if result.outcome == UNREACHABLE or result.source != "fetched":
        return None
    return {
        "outcome": result.outcome,
        "fetched_at": result.fetched_at,
        "status": result.status,
        "reason": result.reason,
        "body": base64.b64encode(body[:STORED_BODY_LIMIT] if result.outcome == AVAILABLE else b"").decode("ascii"),
    }


def restore(origin: str, saved: dict[str, Any], source: str) -> OriginRobots:
    """An outcome back from its :func:`record`."""
    robots = None
    if saved["outcome"] == AVAILABLE:
        robots = RobotsTxt.parse(base64.b64decode(saved["body"]))
    return OriginRobots(
        origin, saved["outcome"], saved["fetched_at"], saved.get("status"), saved.get("reason", ""), robots, source
    )


# ---------------------------------------------------------------------- addresses


@dataclass(frozen=True)
class AddressDecision:
    """The address rule on one host's resolved addresses (the policy model)."""

    verdict: str
    address: str | None = None
    #: Why the address is refused (``loopback``, ``private`` ...), when it is.
    address_class: str | None = None


def address_decision(addresses: list[str], allowance: PrivateAddressAllowance) -> AddressDecision:
    """Refused when *any* address is refused; a name with no address is a DNS failure,
    which the address gate lets through (it fails at connect time, refusing nothing)."""
    if not addresses:
        return AddressDecision(DNS_FAILURE)
    for address in addresses:
        try:
            reason = refusal(address, allowance)
        except ValueError:
            reason = "not_an_address"
        if reason is not None:
            return AddressDecision(ADDRESS_REFUSED, address, reason)
    return AddressDecision(ADDRESS_ALLOWED, addresses[0])


# ---------------------------------------------------------------------- pacing and R8


def crawl_delay_over_cap(crawl_delay: float | None, cap: float) -> bool:
    """R4: a Crawl-delay over ``WALSH_MAX_CRAWL_DELAY`` keeps the host out (never clamped)."""
    return crawl_delay is not None and crawl_delay > cap


def refetch_after(now: float, interval: float) -> float:
    """R8: a fetch recorded no later than this no longer holds its target back. The interval in
    force decides, for the crawl and its plan alike, not the expiry the store gave the record
    (computed from the interval in force when it was written)."""
    return now - interval


def recently_fetched(fetched_at: float | None, now: float, interval: float) -> bool:
    """R8: the target was fetched (or claimed) less than ``WALSH_REFETCH_INTERVAL`` ago."""
    return interval > 0 and fetched_at is not None and fetched_at > refetch_after(now, interval)


def recently_fetched_reason(fetched_at: float | None, now: float, interval: float) -> str:
    ago = max(0.0, now - fetched_at) if fetched_at is not None else 0.0
    return f"fetched (or being fetched) {ago:.0f} s ago; WALSH_REFETCH_INTERVAL is {interval:.0f} s (R8)"
