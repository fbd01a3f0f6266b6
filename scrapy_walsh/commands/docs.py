"""``scrapy walsh docs [TOPIC]``: the help every message points to, read from the installed package.

A message about something the user can fix ends with ``see `scrapy walsh docs TOPIC```. The pages
it prints are package data (``scrapy_walsh/help/``, copied from docs/ by ``make docs``), so an
installed package answers offline, without the repository. TOPIC is a page (``troubleshooting``), a
section by its heading's anchor (``refused-at-start``), or both (``troubleshooting#refused-at-start``).
"""

from __future__ import annotations

import argparse
import re
import sys
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.settings import Settings

HELP = "print a help page or section shipped with the package (the topics messages point to)"
SYNTAX = "[TOPIC]"
#: The pages the package ships (``scrapy_walsh/help/<page>.md``): every page a message points to.
PAGES = ("troubleshooting", "journal-proof", "verifiable-identity")
#: Headings down to this level are topics (MyST's ``myst_heading_anchors``, docs/conf.py).
LEVELS = 3


class UnknownTopic(LookupError):
    """A topic that names no page or section, or more than one section."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "topic",
        metavar="TOPIC",
        nargs="?",
        help="a page, a section's anchor, or PAGE#SECTION (none: list every topic)",
    )


def run(args: argparse.Namespace, settings: Settings) -> int:
    if args.topic is None:
        print(listing())
        return 0
    try:
        print(render(text(args.topic)))
    except UnknownTopic as exc:
        print(f"scrapy walsh docs: {exc}; `scrapy walsh docs` lists the topics", file=sys.stderr)
        return 1
    return 0


def page_source(page: str) -> str:
    """The page as the package ships it (never the repository's docs/)."""
    return (resources.files("scrapy_walsh") / "help" / f"{page}.md").read_text(encoding="utf-8")


def anchor(heading: str) -> str:
    """A heading's anchor as MyST and GitHub make it: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@cache
def headings(page: str) -> tuple[tuple[int, int, str], ...]:
    """``(line, level, title)`` of every heading of ``page`` outside fenced blocks."""
    found, fence = [], ""
    for number, line in enumerate(page_source(page).splitlines()):
        opening = re.match(r"^\s*(`{3,}|~{3,})", line)
        if opening and (not fence or opening.group(1).startswith(fence)):
            fence = "" if fence else opening.group(1)
        elif not fence and (match := re.match(r"^(#{1,6}) (.+?)\s*$", line)):
            found.append((number, len(match.group(1)), match.group(2)))
    return tuple(found)


def sections(page: str) -> dict[str, str]:
    """Anchor -> title of every section of ``page`` a topic can name."""
    return {anchor(title): title for _, level, title in headings(page) if 1 < level <= LEVELS}


def resolve(topic: str) -> tuple[str, str | None]:
    """``(page, section anchor or None)`` for ``topic``; raises :class:`UnknownTopic`."""
    page, _, section = topic.strip().partition("#")
    if page in PAGES:
        if section and section not in sections(page):
            raise UnknownTopic(f"{page} has no section {section!r}")
        return page, section or None
    if section:
        raise UnknownTopic(f"no page {page!r} (pages: {', '.join(PAGES)})")
    found = [p for p in PAGES if page in sections(p)]
    if len(found) != 1:
        raise UnknownTopic(f"no topic {page!r}" if not found else f"{page!r} is a section of {', '.join(found)}")
    return found[0], page


def text(topic: str) -> str:
    """The Markdown of ``topic``: its page whole, or its section down to the next heading as high."""
    page, section = resolve(topic)
    lines = page_source(page).splitlines()
    if section is None:
        return "\n".join(lines).strip() + "\n"
    marks = headings(page)
    start, level = next((n, lvl) for n, lvl, title in marks if 1 < lvl <= LEVELS and anchor(title) == section)
    end = next((n for n, lvl, _ in marks if n > start and lvl <= level), len(lines))
    return "\n".join(lines[start:end]).strip() + "\n"


def render(markdown: str) -> str:
    """``markdown`` for a terminal: MyST roles as their text, and a link as its text plus where to
    read it (a shipped topic's command, a web address), or its text alone (a page not shipped)."""
    markdown = re.sub(r"\{[\w:-]+\}`([^`<]*?)(?:\s*<[^>]*>)?`", r"`\1`", markdown)
    return re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", _link, markdown)


def _link(match: re.Match[str]) -> str:
    label, target = match.group(1), match.group(2)
    if re.match(r"https?://", target):
        return f"{label} ({target})"
    page, _, section = target.rpartition("/")[2].partition("#")
    page = page.removesuffix(".md") or None  # type: ignore[assignment]
    if page in PAGES or (page is None and section):
        topic = f"{page}#{section}" if page and section else page or section
        return f"{label} (`scrapy walsh docs {topic}`)"
    return label


def listing() -> str:
    """Every topic: each page with its title, then its sections' anchors and titles."""
    lines = ["Help shipped with the package; print one with `scrapy walsh docs TOPIC`:", ""]
    for page in PAGES:
        title = next((t for _, level, t in headings(page) if level == 1), page)
        lines.append(f"  {page:<44} {title}")
        lines += [f"    {name:<42} {heading}" for name, heading in sections(page).items()]
    return "\n".join(lines)
