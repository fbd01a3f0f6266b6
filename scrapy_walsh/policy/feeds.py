"""R9 feeds first: which URL is a feed for a target, and an entry's metadata (pure).

A target is read as a feed when it is one, or when its origin lists a feed for it (robots.txt
``Sitemap:``, llms.txt) by name and directory, never fetched to find out. Only metadata
leaves a feed (R6). RSS and Atom are parsed by the spider with ``feedparser``; JSON Feed is
read here. docs/requirements/r9-structured-sources.md says why.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urljoin

from scrapy_walsh.policy.urls import split

#: Media types that are a feed by themselves.
FEED_TYPES = frozenset(
    {
        "application/rss+xml",
        "application/atom+xml",
        "application/feed+json",
        "application/rdf+xml",
    }
)
#: Media types a feed is often served as: read as a feed only when the body parses as one.
MAYBE_FEED_TYPES = frozenset({"application/xml", "text/xml", "application/json", "text/plain"})
JSON_FEED_TYPES = frozenset({"application/feed+json", "application/json"})
#: Entries read from one feed; the rest are counted, not read.
MAX_ENTRIES = 500
#: Categories kept per entry.
MAX_CATEGORIES = 20
#: A field longer than this is cut (R6 keeps metadata short anyway).
MAX_CHARS = 500
_FEED_NAME = re.compile(
    r"(^|[/._-])(feed|rss|atom|jsonfeed)([._-][a-z0-9]+)*$|\.(rss|atom)$|(^|/)index\.(rss|atom|xml)$", re.IGNORECASE
)


def looks_like_feed(url: str) -> bool:
    """A URL whose last path segment names a feed: ``feed``, ``rss.xml``, ``atom.xml``,
    ``feed.json``, ``*.rss``, ``*.atom``, ``/blog/feed/``."""
    try:
        path = split(url).path
    except ValueError:
        return False
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return bool(name) and bool(_FEED_NAME.search(name))


def _origin(url: str) -> tuple[str, str] | None:
    try:
        parts = split(url)
        return parts.scheme.lower(), parts.netloc.lower()
    except ValueError:
        return None


def feed_for(target: str, candidates: Iterable[str]) -> str | None:
    """The first candidate that looks like a feed and is on ``target``'s origin, inside
    ``target``'s directory (see the module docstring); None when there is none."""
    home = _origin(target)
    if home is None:
        return None
    directory = split(target).path or "/"
    directory = directory[: directory.rfind("/") + 1] or "/"
    for url in candidates:
        if not isinstance(url, str) or len(url) > 2000 or _origin(url) != home or not looks_like_feed(url):
            continue
        if split(url).path.startswith(directory):
            return url
    return None


def _text(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()[:MAX_CHARS]
    return None


def entry_metadata(entry: Mapping[str, Any], base: str) -> dict[str, Any]:
    """One entry's metadata from a feedparser entry (or any mapping with its keys): title,
    link (absolute), published (ISO text as written), author, categories. Never a body."""
    link = _text(entry.get("link"))
    authors = entry.get("authors")
    detail = entry.get("author_detail")  # feedparser: RSS "mail (Name)" split into its parts
    author = (_text(detail.get("name")) if isinstance(detail, Mapping) else None) or _text(entry.get("author"))
    if author is None and isinstance(authors, list) and authors and isinstance(authors[0], Mapping):
        author = _text(authors[0].get("name"))
    raw_tags = entry.get("tags")
    tags: list[Any] = raw_tags if isinstance(raw_tags, list) else []
    categories = []
    for tag in tags[:MAX_CATEGORIES]:
        term = _text(tag.get("term")) if isinstance(tag, Mapping) else _text(tag)
        if term:
            categories.append(term)
    return {
        "title": _text(entry.get("title")),
        "link": urljoin(base, link) if link else None,
        "published": _text(entry.get("published")) or _text(entry.get("updated")),
        "author": author,
        "categories": categories,
    }


def read_json_feed(body: bytes | str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """JSON Feed 1.0/1.1: ``(feed, entries)`` as feedparser-like mappings, or None when the
    body is not a JSON Feed (no ``version`` starting with ``https://jsonfeed.org/version/``)."""
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(document, dict):
        return None
    version = document.get("version")
    if not isinstance(version, str) or not version.startswith("https://jsonfeed.org/version/"):
        return None
    items = document.get("items")
    entries = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        authors = item.get("authors") or ([item["author"]] if isinstance(item.get("author"), dict) else [])
        entries.append(
            {
                "title": item.get("title"),
                "link": item.get("url") or item.get("external_url"),
                "published": item.get("date_published") or item.get("date_modified"),
                "authors": authors if isinstance(authors, list) else [],
                "tags": item.get("tags") if isinstance(item.get("tags"), list) else [],
            }
        )
    feed = {"title": document.get("title"), "link": document.get("home_page_url"), "version": "json" + version[-3:]}
    return feed, entries
