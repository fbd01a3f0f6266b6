"""R9: the metadata of a markdown document (title, headings, links), read with a CommonMark
parser. Pure: no Scrapy, no I/O.

Markdown is read generically, as tokens of markdown-it-py, never with regular expressions
(R9); raw HTML stays text, link URLs pass markdown-it's validation and are kept only when
http(s). Everything returned is bounded (``MAX_HEADINGS``, ``MAX_LINKS``, ``MAX_TEXT``,
``MAX_URL``) so an item stays metadata (R6). docs/requirements/r9-structured-sources.md says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from scrapy_walsh.policy.urls import split

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

MAX_TEXT = 300
MAX_URL = 2000
MAX_HEADINGS = 500
MAX_LINKS = 2000
#: R6: the characters an outline or an llms.txt puts into one item, all strings together,
#: under the default WALSH_MAX_ITEM_CHARS (40,000) with room for the item's other fields.
#: What does not fit is counted (``omitted``), never cut mid-string.
ITEM_BUDGET = 30_000


@cache
def _parser() -> MarkdownIt:
    """Built on first use: markdown-it costs ~35 ms to import, and most crawls read no markdown."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False})


def parse_tokens(text: str) -> list[Token]:
    """The block token stream of ``text`` (CommonMark, raw HTML off)."""
    return _parser().parse(text)


def clip(text: str, limit: int = MAX_TEXT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def inline_text(children: Iterable[Token] | None) -> str:
    """The plain text of an inline token's children (emphasis and code spans flattened,
    images by their alt text, line breaks as spaces)."""
    parts: list[str] = []
    for child in children or ():
        if child.type in ("text", "code_inline", "image"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return clip("".join(parts))


def http_url(href: Any, base_url: str | None) -> str | None:
    """``href`` made absolute against ``base_url``; None unless an http(s) URL, not too long,
    that a request can be made of (w3lib's ``safe_url_string``, which Scrapy's ``Request``
    uses, refuses a port out of range or a broken IPv6 literal: remote input must not make
    the spider fail)."""
    if not isinstance(href, str) or not href:
        return None
    try:
        url = urljoin(base_url, href) if base_url else href
        parts = split(url)
        if parts.scheme not in ("http", "https") or not parts.hostname or len(url) > MAX_URL:
            return None
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
        from w3lib.url import safe_url_string  # imported on first use: it loads urllib.request

        safe_url_string(url)
    except ValueError:
        return None
    return url


@dataclass(frozen=True)
class Link:
    text: str
    url: str


def links_in(children: Sequence[Token] | None, base_url: str | None) -> list[tuple[int, int, Link]]:
    """The links among an inline token's children: (index of link_open, index of link_close, link)."""
    found: list[tuple[int, int, Link]] = []
    children = children or []
    i = 0
    while i < len(children):
        if children[i].type != "link_open":
            i += 1
            continue
        start, depth, j = i, 0, i
        while j < len(children):
            if children[j].type == "link_open":
                depth += 1
            elif children[j].type == "link_close":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        url = http_url(children[start].attrGet("href"), base_url)
        if url is not None:
            found.append((start, j, Link(inline_text(children[start + 1 : j]), url)))
        i = j + 1
    return found


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Outline:
    """What a markdown document offers a citation: its title, headings and links."""

    title: str | None
    headings: tuple[Heading, ...]
    links: tuple[Link, ...]

    def as_fields(self, budget: int = ITEM_BUDGET) -> dict[str, Any]:
        """The item fields: title, then headings, then links, while they fit in ``budget``
        characters; ``omitted`` counts what did not fit (R6: an item stays metadata)."""
        left = budget - len(self.title or "")
        headings: list[dict[str, Any]] = []
        links: list[dict[str, str]] = []
        for h in self.headings:
            left -= len(h.text) + len("level") + len("text")
            if left < 0:
                break
            headings.append({"level": h.level, "text": h.text})
        for link in self.links if left >= 0 else ():
            left -= len(link.text) + len(link.url) + len("text") + len("url")
            if left < 0:
                break
            links.append({"text": link.text, "url": link.url})
        fields: dict[str, Any] = {"title": self.title, "headings": headings, "links": links}
        if len(headings) < len(self.headings) or len(links) < len(self.links):
            fields["omitted"] = {
                "headings": len(self.headings) - len(headings),
                "links": len(self.links) - len(links),
            }
        return fields


def outline(text: str, base_url: str | None = None) -> Outline:
    """Title (the first level-1 heading), headings and links of a markdown document.

    Relative links are resolved against ``base_url``; a link is kept once per URL.
    """
    tokens = parse_tokens(text)
    title: str | None = None
    headings: list[Heading] = []
    links: list[Link] = []
    seen: set[str] = set()
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and index + 1 < len(tokens):
            level = int(token.tag[1:])
            heading_text = inline_text(tokens[index + 1].children)
            if level == 1 and title is None:
                title = heading_text
            if len(headings) < MAX_HEADINGS:
                headings.append(Heading(level, heading_text))
        elif token.type == "inline":
            for _, _, link in links_in(token.children, base_url):
                if link.url not in seen and len(links) < MAX_LINKS:
                    seen.add(link.url)
                    links.append(link)
    return Outline(title, tuple(headings), tuple(links))
