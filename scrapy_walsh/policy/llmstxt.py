"""R9: llms.txt (https://llmstxt.org) as data, and the choice of a page's markdown twin.
Pure: no Scrapy, no I/O.

llms.txt is a *hint* and untrusted content: it is read as data only (name, summary, link
sections, with the same CommonMark parser as any markdown) and used for one decision, which
URL is a target's twin (strict on purpose). Whatever the twin is, it still meets every gate.
docs/requirements/r9-structured-sources.md says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scrapy_walsh.policy.addresses import PrivateAddressAllowance, parse_ip, refusal
from scrapy_walsh.policy.hostkey import host_key, url_host
from scrapy_walsh.policy.markdown import ITEM_BUDGET, MAX_TEXT, clip, inline_text, links_in, parse_tokens
from scrapy_walsh.policy.urls import split

#: The section llmstxt.org reserves for secondary links.
OPTIONAL = "optional"
#: Bounds, so a hostile file can't make an item content (R6) or a crawl slow.
MAX_ENTRIES = 2000
MAX_SUMMARY = 1000
MAX_NOTE = 500


class NotLlmsTxt(ValueError):
    """The body is not an llms.txt (it does not start with an H1)."""


@dataclass(frozen=True)
class Entry:
    title: str
    url: str
    note: str

    def as_dict(self) -> dict[str, str]:
        return {"title": self.title, "url": self.url, "note": self.note}


@dataclass(frozen=True)
class Section:
    name: str
    entries: tuple[Entry, ...]


@dataclass(frozen=True)
class LlmsTxt:
    name: str
    summary: str | None
    sections: tuple[Section, ...]
    optional: tuple[Entry, ...] = field(default=())

    def entries(self) -> list[Entry]:
        """Every link, the ``Optional`` ones last."""
        return [e for s in self.sections for e in s.entries] + list(self.optional)

    @classmethod
    def from_fields(cls, fields: dict[str, Any]) -> LlmsTxt:
        """The inverse of :meth:`as_fields` (for a copy kept in the state store)."""

        def entries(items: Any) -> tuple[Entry, ...]:
            return tuple(Entry(str(e["title"]), str(e["url"]), str(e["note"])) for e in items or ())

        return cls(
            str(fields["name"]),
            fields.get("summary"),
            tuple(Section(str(s["name"]), entries(s["links"])) for s in fields.get("sections") or ()),
            entries(fields.get("optional")),
        )

    def as_fields(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "summary": self.summary,
            "sections": [{"name": s.name, "links": [e.as_dict() for e in s.entries]} for s in self.sections],
            "optional": [e.as_dict() for e in self.optional],
        }

    def item_fields(self, budget: int = ITEM_BUDGET) -> dict[str, Any]:
        """:meth:`as_fields` for an item: entries while they fit in ``budget`` characters,
        ``omitted_links`` counting the rest (R6: an item stays metadata). The stored copy
        keeps every entry (:meth:`as_fields`): the twin rule needs them all."""
        left = budget - len(self.name) - len(self.summary or "")
        kept = 0

        def fit(entries: tuple[Entry, ...]) -> list[dict[str, str]]:
            nonlocal left, kept
            out = []
            for entry in entries:
                left -= len(entry.title) + len(entry.url) + len(entry.note) + len("titleurlnote")
                if left < 0:
                    break
                out.append(entry.as_dict())
            kept += len(out)
            return out

        sections = []
        for section in self.sections:
            left -= len(section.name) + len("namelinks")
            sections.append({"name": section.name, "links": fit(section.entries) if left >= 0 else []})
        fields: dict[str, Any] = {
            "name": self.name,
            "summary": self.summary,
            "sections": sections,
            "optional": fit(self.optional),
        }
        total = sum(len(s.entries) for s in self.sections) + len(self.optional)
        if kept < total:
            fields["omitted_links"] = total - kept
        return fields


def parse(text: str, base_url: str | None = None) -> LlmsTxt:
    """Parse an llms.txt; relative links resolve against ``base_url`` (the file's URL).

    Raises :class:`NotLlmsTxt` when the first block is not an H1.
    """
    tokens = parse_tokens(text)
    if not tokens or tokens[0].type != "heading_open" or tokens[0].tag != "h1" or len(tokens) < 2:
        raise NotLlmsTxt("an llms.txt starts with an H1 naming the site")
    name = inline_text(tokens[1].children)
    summary: str | None = None
    sections: list[tuple[str, list[Entry]]] = []
    in_quote = False
    quote: list[str] = []
    list_item_depth = 0
    item_has_entry = False
    count = 0
    for index, token in enumerate(tokens[3:], start=3):
        if token.type == "heading_open" and token.tag == "h2":
            sections.append((inline_text(tokens[index + 1].children), []))
        elif token.type == "blockquote_open" and not sections and summary is None:
            in_quote = True
        elif token.type == "blockquote_close" and in_quote:
            in_quote = False
            summary = clip(" ".join(quote), MAX_SUMMARY)
        elif token.type == "list_item_open":
            list_item_depth += 1
            item_has_entry = False
        elif token.type == "list_item_close":
            list_item_depth -= 1
        elif token.type == "inline":
            if in_quote:
                quote.append(inline_text(token.children))
            elif sections and list_item_depth and not item_has_entry and count < MAX_ENTRIES:
                entry = _entry(token.children or [], base_url)
                if entry is not None:
                    sections[-1][1].append(entry)
                    item_has_entry = True
                    count += 1
    regular = tuple(Section(n, tuple(es)) for n, es in sections if n.strip().lower() != OPTIONAL)
    optional = tuple(e for n, es in sections if n.strip().lower() == OPTIONAL for e in es)
    return LlmsTxt(name, summary, regular, optional)


def _entry(children: list[Any], base_url: str | None) -> Entry | None:
    """``[title](url): note``: the item must start with the link."""
    first = next((i for i, c in enumerate(children) if not (c.type == "text" and not c.content.strip())), None)
    links = links_in(children, base_url)
    if first is None or not links or links[0][0] != first:
        return None
    _, close, link = links[0]
    note = inline_text(children[close + 1 :]).lstrip(":").strip()
    return Entry(clip(link.text, MAX_TEXT), link.url, clip(note, MAX_NOTE))


# --------------------------------------------------------------------------- twins


def origin(url: str) -> tuple[str, str, int]:
    parts = split(url)
    scheme = parts.scheme.lower()
    port = parts.port or {"http": 80, "https": 443}.get(scheme, 0)
    return scheme, host_key(parts.hostname), port


def llms_txt_url(url: str) -> str:
    """``/llms.txt`` at the root of ``url``'s origin."""
    parts = split(url)
    return f"{parts.scheme}://{parts.netloc}/llms.txt"


def twin_path(target_url: str) -> str | None:
    """The path a twin of ``target_url`` must have, or None (a target with a query has none)."""
    parts = split(target_url)
    if parts.query:
        return None
    path = parts.path or "/"
    # llmstxt.org: "URLs without file names should append index.html.md instead"
    return path + ("index.html.md" if path.endswith("/") else ".md")


def local_address_refusal(url: str, allowance: PrivateAddressAllowance) -> str | None:
    """Why ``url`` visibly points at a local or private address, or None.

    Only what the URL itself shows: an IP-literal host (any spelling the address guard
    reads as one: ``[::1]``, ``2130706433``, ``0x7f.1`` ...) that the guard's own pure
    decision (:func:`scrapy_walsh.policy.addresses.refusal`) refuses, or a ``localhost`` name.
    Names that *resolve* to such addresses are the address guard's to refuse.
    """
    host = url_host(url)
    if not host:
        return "no host"
    if host == "localhost" or host.endswith(".localhost"):
        return f"{host} is a local name"
    ip = parse_ip(host)
    if ip is None:
        return None
    reason = refusal(ip, allowance)
    if reason is None:
        return None
    return f"{ip} is a {reason} address, outside WALSH_ALLOW_PRIVATE_ADDRESSES"


@dataclass(frozen=True)
class TwinChoice:
    """The twin chosen for a target (or None), and the candidates refused on sight."""

    url: str | None
    refused: tuple[tuple[str, str], ...] = ()


def choose_twin(target_url: str, index: LlmsTxt, allowance: PrivateAddressAllowance) -> TwinChoice:
    """Apply the twin rule (module docstring) to one target."""
    wanted = twin_path(target_url)
    if wanted is None:
        return TwinChoice(None)
    home = origin(target_url)
    same: list[str] = []
    other: list[str] = []
    refused: list[tuple[str, str]] = []
    for entry in index.entries():
        parts = split(entry.url)
        if parts.scheme not in ("http", "https") or parts.query or (parts.path or "/") != wanted:
            continue
        url = entry.url.split("#", 1)[0]
        if url in same or url in other or any(url == r for r, _ in refused):
            continue
        reason = local_address_refusal(url, allowance)
        if reason is not None:
            refused.append((url, reason))
        else:
            (same if origin(url) == home else other).append(url)
    chosen = (same + other)[0] if same or other else None
    return TwinChoice(chosen, tuple(refused))


def listed_entry(target_url: str, index: LlmsTxt) -> Entry | None:
    """The llms.txt entry for the target itself, if it is listed (fragment ignored)."""
    bare = target_url.split("#", 1)[0]
    return next((e for e in index.entries() if e.url.split("#", 1)[0] == bare), None)
