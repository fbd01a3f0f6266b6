"""Discovery as declared targets (R6): which URLs a site's own manifests surface become targets. Pure.

A sitemap, a feed or an llms.txt grants no permission; a URL one of them lists becomes a
declared target only when the spider's own routing names it (:class:`Route`, built from the
spider by :mod:`scrapy_walsh.discovery.manifests`), so the crawl and ``scrapy walsh plan`` decide with
this one function (:func:`route_for`). docs/link-following-projects.md says why.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from types import MappingProxyType

from scrapy_walsh.policy.urls import UnsafeURL, sent_url, split

#: The manifest kinds ``WALSH_DISCOVERY`` may name.
SITEMAP, FEED, LLMS_TXT = "sitemap", "feed", "llms.txt"
KINDS = (SITEMAP, FEED, LLMS_TXT)
#: The key, in an item's ``walsh`` dict, that marks an item of a page fetched again because its
#: manifest's lastmod is newer than our last fetch: R7 delivers it again, as an update.
UPDATE = "update"
#: What a spider with rules (or ``WALSH_DISCOVERY_ROUTES``) reads when ``WALSH_DISCOVERY`` is unset.
DEFAULT_KINDS = (SITEMAP,)
#: Manifests read per host in one run (robots.txt's Sitemap lines, /sitemap.xml, the children of
#: an index): a site that nests indexes without end, or lists thousands, is read this far.
MAX_MANIFESTS_PER_HOST = 50
#: Targets one run takes from manifests, over every host: what a crawl of a huge or hostile site
#: holds in memory and in its scheduler. The rest are counted, not kept.
MAX_TARGETS = 50_000
#: The manifests tried on a host when robots.txt names none, by kind.
WELL_KNOWN: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {SITEMAP: ("/sitemap.xml",), FEED: ("/feed.xml",), LLMS_TXT: ("/llms.txt",)}
)


@dataclass(frozen=True)
class Route:
    """One route a spider declares: the URLs it names and the callback (by name) they go to.

    An empty ``allow`` names every URL (as a link extractor without ``allow`` does).
    """

    callback: str
    allow: tuple[re.Pattern[str], ...] = ()
    deny: tuple[re.Pattern[str], ...] = ()
    allow_domains: frozenset[str] = frozenset()
    deny_domains: frozenset[str] = frozenset()
    #: Extensions with their dot, lower case (``.png``); a URL whose path ends so is not named.
    deny_extensions: frozenset[str] = frozenset()

    def names(self, url: str) -> bool:
        parts = split(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return False
        if self.allow and not any(p.search(url) for p in self.allow):
            return False
        if any(p.search(url) for p in self.deny):
            return False
        host = parts.hostname.lower()
        if self.allow_domains and not in_domains(host, self.allow_domains):
            return False
        if self.deny_domains and in_domains(host, self.deny_domains):
            return False
        path = parts.path.lower()
        return not any(path.endswith(ext) for ext in self.deny_extensions)


def in_domains(host: str, domains: Iterable[str]) -> bool:
    """``host`` is one of ``domains`` or a subdomain of one (Scrapy's ``url_is_from_any_domain``)."""
    return any(host == d or host.endswith("." + d) for d in (str(d).lower().lstrip(".") for d in domains) if d)


def route_for(url: str, routes: Sequence[Route]) -> Route | None:
    """The first route naming ``url`` (a spider's rules are tried in order, as Scrapy does); None:
    no route names it, so it is not a target."""
    for route in routes:
        if route.names(url):
            return route
    return None


def same_host(url: str, manifest: str) -> bool:
    """A manifest speaks for its own host only (sitemaps.org: a sitemap lists URLs of its host;
    an index's children on another host are another site's). Both are judged as the requests they
    become; a URL whose host or port can't be read shares no host."""
    try:  # judged as the requests they become, never as the text a manifest holds
        a, b = split(sent_url(url)), split(sent_url(manifest))
    except UnsafeURL:
        return False
    return bool(a.hostname) and (a.scheme, a.hostname, a.port) == (b.scheme, b.hostname, b.port)


def lastmod_time(value: str | None) -> float | None:
    """A sitemap ``lastmod`` (W3C datetime: a date, or a date and time with a zone) or a feed's
    date as seconds since the epoch; None when absent or unreadable (then it says nothing)."""
    if not value or not isinstance(value, str) or len(value) > 64:
        return None
    text = value.strip().replace("Z", "+00:00").replace("z", "+00:00")
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)  # a bare date (or time without zone): read as UTC
    return when.timestamp()


def discovered_at(record: object) -> float | None:
    """When a discovered target was last answered, from its record: ``{"at": t, "by": who}``
    (who lets ``state forget --spider`` find it after R8's own record expired), or a bare time."""
    if isinstance(record, dict):
        record = record.get("at")
    return float(record) if isinstance(record, int | float) and not isinstance(record, bool) else None


def unchanged_since(lastmod: str | None, fetched_at: float | None, now: float | None = None) -> bool:
    """R7 with R8: the manifest says the page is not newer than our last fetch of it, so it is not
    fetched again, whatever ``WALSH_REFETCH_INTERVAL`` allows. No lastmod or no fetch: changed.

    A date-only lastmod is compared as a date (UTC): a change dated before the day of our fetch is
    not newer, one dated after it is; one dated the day of our fetch may have come after it, so it
    is newer once that day is over (``now`` is on a later day)."""
    when = lastmod_time(lastmod)
    if when is None or fetched_at is None:
        return False
    if not _date_only(str(lastmod)):
        return when <= fetched_at
    changed, fetched = _day(when), _day(fetched_at)
    if changed != fetched:
        return changed < fetched
    return now is None or _day(now) <= fetched


def _date_only(lastmod: str) -> bool:
    """``2026-11-02``: a W3C date without a time (which then says nothing about the hour)."""
    return "t" not in lastmod.strip().lower()


def _day(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).date().isoformat()


def manifest_kinds(value: object) -> tuple[str, ...] | None:
    """``WALSH_DISCOVERY``: a list of manifest kinds among :data:`KINDS` (``ValueError`` otherwise);
    None (unset) lets the spider decide: its rules or routes read the sitemap (:data:`DEFAULT_KINDS`)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"must be a list of manifest kinds among {list(KINDS)}, got {value!r}")
    unknown = [v for v in value if v not in KINDS]
    if unknown:
        raise ValueError(f"{unknown[0]!r} is not a manifest kind; the kinds are {list(KINDS)}")
    return tuple(dict.fromkeys(value))


def route_table(value: object) -> tuple[tuple[str, str], ...]:
    """``WALSH_DISCOVERY_ROUTES``: ``{regex: callback name}``; each regex must compile."""
    if value is None:
        return ()
    if isinstance(value, str) and value.strip().startswith("{"):  # -s WALSH_DISCOVERY_ROUTES='{...}'
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise ValueError(f"{value!r} is not a JSON object: {exc}") from None
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError(f"must be a dict of {{regex: callback name}} strings, got {value!r}")
    for pattern, callback in value.items():
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"{pattern!r} is not a regular expression: {exc}") from None
        if not callback.isidentifier():
            raise ValueError(f"{callback!r} (for {pattern!r}) is not the name of a spider method")
    return tuple(value.items())
