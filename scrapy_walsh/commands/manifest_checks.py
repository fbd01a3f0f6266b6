"""``check`` on a discovery spider's manifests (a SitemapSpider's ``sitemap_urls``, the robots.txt
discovery reads first on each host), as on start URLs: the address rule on an IP literal, the
blocklist (``WALSH_BLOCKLIST_EXTRA`` and the list last adopted, as stored), robots.txt (the copy
stored by an earlier run). A refused manifest lists nothing: said before the crawl reads nothing.
Nothing is fetched, and the store is only read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scrapy.settings import BaseSettings

from scrapy_walsh.config import Readings, raw, state_location
from scrapy_walsh.policy.addresses import PrivateAddressAllowance, parse_ip, refusal
from scrapy_walsh.policy.blocklist import Blocklist, InvalidBlocklist
from scrapy_walsh.policy.blocklist.stored import from_stored
from scrapy_walsh.policy.discovery import in_domains
from scrapy_walsh.policy.gates import ROBOTS_NAMESPACE, origin_of, restore
from scrapy_walsh.policy.robots import Verdict
from scrapy_walsh.policy.urls import split
from scrapy_walsh.policy.vocabulary import Namespace
from scrapy_walsh.settings import ROBOTS_TOKEN
from scrapy_walsh.store import StateStoreError, open_store


def manifests(spidercls: type, routing: Any) -> list[tuple[str, str]]:
    """(where it is declared, URL) of each manifest discovery reads first for the spider."""
    name = getattr(spidercls, "name", spidercls.__name__)
    if routing.manifests is not None:
        return [(f"spider {name}.sitemap_urls", url) for url in routing.manifests]
    found: dict[str, str] = {}
    for url in getattr(spidercls, "start_urls", None) or ():
        if isinstance(url, str) and (origin := _origin(url)):
            found.setdefault(origin + "/robots.txt", f"spider {name}.start_urls")
    for domain in getattr(spidercls, "allowed_domains", None) or ():
        if isinstance(domain, str) and domain and not any(in_domains(split(o).hostname or "", [domain]) for o in found):
            found.setdefault(f"https://{domain.lower()}/robots.txt", f"spider {name}.allowed_domains")
    return [(where, url) for url, where in found.items()]


def _origin(url: str) -> str | None:
    try:
        parts = split(url)
    except ValueError:
        return None
    return f"{parts.scheme}://{parts.netloc.lower()}" if parts.scheme in ("http", "https") and parts.hostname else None


def refused(listed: list[tuple[str, str]], settings: BaseSettings) -> Iterator[tuple[str, str, str, str]]:
    """(where, URL, the gate, why) for each manifest a gate would refuse."""
    walsh = Readings(settings)
    allowance = walsh.value("WALSH_ALLOW_PRIVATE_ADDRESSES", PrivateAddressAllowance())
    blocklist = Blocklist.empty().with_extra(list(walsh.value("WALSH_BLOCKLIST_EXTRA", ())))
    stored, robots = _stored(settings, {origin_of(url) for _, url in listed} - {""})
    token = walsh.value("WALSH_ROBOTS_TOKEN", ROBOTS_TOKEN)
    for where, url in listed:
        try:
            host = (split(url).hostname or "").lower()
        except ValueError:
            continue
        address = "127.0.0.1" if host == "localhost" or host.endswith(".localhost") else host
        if host and parse_ip(address) is not None and (why := refusal(address, allowance)):
            yield where, url, "address rule", f"a {why} address, which WALSH_ALLOW_PRIVATE_ADDRESSES does not allow"
            continue
        entry = blocklist.match(host) or (stored.match(host) if stored is not None else None)
        if entry is not None:
            yield where, url, "blocklist", f"{host} is on the operator's blocklist ({entry.reason})"
            continue
        origin_robots = robots.get(origin_of(url))
        if origin_robots is not None and origin_robots.verdict(url, token) is Verdict.DISALLOWED_EXPLICIT:
            yield where, url, "robots.txt", "its robots.txt (as stored by an earlier run) disallows it"


def _stored(settings: BaseSettings, origins: set[str]) -> tuple[Blocklist | None, dict[str, Any]]:
    """The blocklist last adopted and the robots.txt copies of ``origins``, read from an existing
    store (one that does not exist yet is not created)."""
    try:
        location = state_location(settings)
    except ValueError:
        return None, {}
    if location.scheme == "sqlite" and not location.path.exists():
        return None, {}
    try:
        store = open_store(location, raw(settings, "WALSH_ROBOTS_TOKEN") or ROBOTS_TOKEN)
    except (StateStoreError, OSError):
        return None, {}
    try:
        blocklist = None
        saved = store.get(Namespace.BLOCKLIST, str(raw(settings, "WALSH_BLOCKLIST_URL")))
        if saved:
            try:
                blocklist = from_stored(saved)[0]
            except InvalidBlocklist:
                blocklist = None
        robots = {}
        for origin in origins:
            record = store.get(ROBOTS_NAMESPACE, origin)
            if isinstance(record, dict) and "outcome" in record:
                try:
                    robots[origin] = restore(origin, record, "cache")
                except (KeyError, ValueError, TypeError):
                    continue
        return blocklist, robots
    except (StateStoreError, OSError):
        return None, {}
    finally:
        store.close()
