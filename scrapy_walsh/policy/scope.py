"""R6: what counts as a sub-resource. Pure.

A request is a sub-resource when its URL path ends in an image, script, stylesheet, font,
audio or video extension, or when it says so explicitly: ``meta["resource_type"]`` (the
name scrapy-playwright uses) or a ``Sec-Fetch-Dest`` header naming one of those kinds.
Documents (``.html``, ``.md``, ``.txt``, ``.xml``, ``.json``, ``.pdf`` ...) are not.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

KINDS: dict[str, frozenset[str]] = {
    "image": frozenset("apng avif bmp gif ico jpeg jpg png svg svgz tif tiff webp".split()),
    "script": frozenset("js mjs cjs jsx ts wasm".split()),
    "stylesheet": frozenset("css less sass scss".split()),
    "font": frozenset("eot otf ttf woff woff2".split()),
    "media": frozenset("aac flac m4a m4v mkv mov mp3 mp4 mpeg mpg oga ogg ogv opus wav weba webm".split()),
}
BY_EXTENSION = {ext: kind for kind, exts in KINDS.items() for ext in exts}
#: Explicit types (``meta["resource_type"]``, ``Sec-Fetch-Dest``) mapped onto our kinds.
EXPLICIT = {
    "image": "image",
    "img": "image",
    "script": "script",
    "stylesheet": "stylesheet",
    "style": "stylesheet",
    "font": "font",
    "media": "media",
    "audio": "media",
    "video": "media",
    "track": "media",
}


def subresource_kind(url: str, resource_type: Any = None, fetch_dest: str | None = None) -> str | None:
    """The kind of sub-resource a request is for, or None for a document."""
    for explicit in (resource_type, fetch_dest):
        if isinstance(explicit, str) and explicit.strip().lower() in EXPLICIT:
            return EXPLICIT[explicit.strip().lower()]
    name = urlsplit(url).path.rsplit("/", 1)[-1]
    if "." not in name:
        return None
    return BY_EXTENSION.get(name.rsplit(".", 1)[-1].lower())
