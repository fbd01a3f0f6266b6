"""The demo site's hosts: one loopback address and one ``*.walsh-demo.test`` name each.

``.test`` is reserved for testing (RFC 2606), so these names can never reach a real
site. They resolve only through :class:`demo_site.resolver.DemoResolver`; each
host also answers on its own IP literal, for projects that do not install the resolver.
Nothing here binds 127.0.0.1: that address is kept for "must never be contacted"
sentinels in tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from scrapy_walsh.settings import BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH

DEMO_DOMAIN = "walsh-demo.test"
DEFAULT_PORT = 8787


@dataclass(frozen=True)
class DemoHost:
    key: str
    ip: str
    purpose: str

    @property
    def name(self) -> str:
        return f"{self.key}.{DEMO_DOMAIN}"


_TABLE = (
    ("open", "127.0.0.2", "allows all but /private/; sitemaps (.gz, index, over limits), X-Robots-Tag page"),
    ("named", "127.0.0.3", "a Walsh-Research group overriding * both ways"),
    ("slow", "127.0.0.4", "Crawl-delay 2 in our group (30 in *)"),
    ("down", "127.0.0.5", "robots.txt answers 503"),
    ("blocked", "127.0.0.6", "listed in the demo blocklist"),
    ("www.blocked", "127.0.0.7", "subdomain of a listed domain"),
    ("busy", "127.0.0.8", "/limited answers 429 with Retry-After once"),
    ("docs", "127.0.0.9", "markdown by content negotiation, llms.txt, an HTML-only page with a listed twin"),
    ("llmsonly", "127.0.0.10", "HTML pages and an llms.txt"),
    ("htmlonly", "127.0.0.11", "HTML only: no markdown, no llms.txt"),
    ("decoys", "127.0.0.12", "groups named bot, Mozilla, wal, sh ... that must not apply to us"),
    ("gone", "127.0.0.13", "robots.txt answers 404"),
    ("hostile", "127.0.0.14", "llms.txt listing twins on 127.0.0.1, [::1] and a disallowing origin"),
    ("ops", "127.0.0.15", "serves the blocklist and its schema"),
    (
        "usage",
        "127.0.0.16",
        "usage preferences: Content-Usage, Content-Signal and License in robots.txt, "
        "Content-Usage and tdm-reservation headers, /.well-known/tdmrep.json",
    ),
    ("ratelimit", "127.0.0.17", "pages answer with RateLimit-Policy and RateLimit headers asking 2.5 s per request"),
    ("feeds", "127.0.0.18", "RSS, Atom and JSON Feed; a feed listed by robots.txt Sitemap and one by llms.txt"),
)

HOSTS: Mapping[str, DemoHost] = MappingProxyType({key: DemoHost(key, ip, purpose) for key, ip, purpose in _TABLE})
BY_NAME: Mapping[str, DemoHost] = MappingProxyType({h.name: h for h in HOSTS.values()})
BY_IP: Mapping[str, DemoHost] = MappingProxyType({h.ip: h for h in HOSTS.values()})

__all__ = ("BLOCKLIST_PATH", "BLOCKLIST_SCHEMA_PATH", "DEMO_DOMAIN", "HOSTS", "DemoHost", "lookup")


def lookup(host: str) -> DemoHost | None:
    """The demo host behind a Host header value, a name or an IP literal (port ignored)."""
    host = host.strip().lower()
    if host.startswith("["):
        return None
    host = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    host = host.rstrip(".")
    return BY_NAME.get(host) or BY_IP.get(host)
