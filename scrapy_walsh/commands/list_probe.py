"""``check``: can the operator blocklist be fetched now, as a crawl would fetch it (R3)?

One GET of ``WALSH_BLOCKLIST_URL`` as ``WALSH_USER_AGENT``, refused as the crawl refuses an
address, and the body read as the gate reads it: a pass with its entries, or a warning saying
what a crawl does without it (the last list it adopted; none: an EMPTY list, R3's fail-open).
docs/command-check.md says why.
"""

from __future__ import annotations

import http.client
import socket
from typing import Any

from scrapy.settings import BaseSettings
from scrapy.utils.misc import load_object

from scrapy_walsh.config import Readings
from scrapy_walsh.conformance import PASS, WARN, Finding
from scrapy_walsh.policy.addresses import PrivateAddressAllowance, refusal
from scrapy_walsh.policy.blocklist import Blocklist
from scrapy_walsh.policy.urls import split

#: Seconds the probe waits for the list's server.
TIMEOUT = 10.0
#: What a crawl does with a list it cannot fetch.
WITHOUT = (
    "a crawl keeps the last list it adopted, and one that never adopted any crawls with an EMPTY "
    "blocklist (R3 first-ever failure: fail open) until a fetch succeeds"
)


def list_finding(settings: BaseSettings) -> Finding | None:
    """Row 3's finding on the list as fetched now; None when the audit refuses the settings it needs."""
    readings = Readings(settings)
    if any(readings.refused(n) for n in ("WALSH_BLOCKLIST_URL", "WALSH_USER_AGENT", "WALSH_ALLOW_PRIVATE_ADDRESSES")):
        return None  # the audit names the refused value
    url = readings.value("WALSH_BLOCKLIST_URL")
    try:
        entries = len(Blocklist.from_document(fetch(settings, url, readings)))
    except (OSError, ValueError, http.client.HTTPException) as exc:
        return Finding("3", "R3", WARN, "WALSH_BLOCKLIST_URL", f"{url} can't be fetched now ({exc}): {WITHOUT}")
    return Finding("3", "R3", PASS, "WALSH_BLOCKLIST_URL", f"{url} fetched now: a valid list of {entries} entries")


def fetch(settings: BaseSettings, url: str, readings: Readings) -> bytes:
    """The list's body (200 only, no redirect followed), from the address a crawl would use."""
    parts = split(url)
    host, secure = parts.hostname or "", parts.scheme == "https"
    port = parts.port or (443 if secure else 80)
    address = _address(settings, host, port)
    allowance: PrivateAddressAllowance = readings.value("WALSH_ALLOW_PRIVATE_ADDRESSES")
    if why := refusal(address, allowance):
        raise ValueError(f"{host} is at {address}, a {why} address the crawl refuses (address rule)")
    if secure:
        connection: http.client.HTTPConnection = http.client.HTTPSConnection(host, port, timeout=TIMEOUT)
    else:
        connection = http.client.HTTPConnection(address, port, timeout=TIMEOUT)
    try:
        target = parts.path or "/"
        connection.request(
            "GET", f"{target}?{parts.query}" if parts.query else target, headers=_headers(parts, readings)
        )
        response = connection.getresponse()
        if response.status != 200:
            raise ValueError(f"HTTP {response.status}")
        return response.read()
    finally:
        connection.close()


def _headers(parts: Any, readings: Readings) -> dict[str, str]:
    return {"Host": parts.netloc.rsplit("@", 1)[-1], "User-Agent": readings.value("WALSH_USER_AGENT")}


def _address(settings: BaseSettings, host: str, port: int) -> str:
    """Where ``host`` is: the project's resolver's fixed answer when it has one (a resolver with a
    ``fixed_address(name)``, such as the demo's), else the system's."""
    name = settings.get("TWISTED_DNS_RESOLVER") or settings.get("DNS_RESOLVER")
    try:
        fixed = getattr(load_object(name), "fixed_address", None) if name else None
    except (ImportError, NameError, ValueError, AttributeError):
        fixed = None
    if fixed is not None and (answer := fixed(host)) is not None:
        return str(answer)
    return str(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][4][0])
