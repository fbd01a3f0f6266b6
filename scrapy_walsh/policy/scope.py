"""R6: what counts as a sub-resource. Pure.

A request is one when its URL path ends in an image, script, stylesheet, font, audio or video
extension (read by meaning, as a server reads it), or says so (``meta["resource_type"]``,
``Sec-Fetch-Dest``); a response is one by its ``Content-Type`` (:func:`subresource_type`).
Documents and data are not. docs/requirements/r6-scope.md says why.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any
from urllib.parse import unquote

from scrapy_walsh.policy.urls import split

KINDS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "image": frozenset("apng avif bmp gif ico jpeg jpg png svg svgz tif tiff webp".split()),
        "script": frozenset("js mjs cjs jsx ts wasm".split()),
        "stylesheet": frozenset("css less sass scss".split()),
        "font": frozenset("eot otf ttf woff woff2".split()),
        "media": frozenset("aac flac m4a m4v mkv mov mp3 mp4 mpeg mpg oga ogg ogv opus wav weba webm".split()),
    }
)
BY_EXTENSION: Mapping[str, str] = MappingProxyType({ext: kind for kind, exts in KINDS.items() for ext in exts})
#: Explicit types (``meta["resource_type"]``, ``Sec-Fetch-Dest``) mapped onto our kinds.
EXPLICIT: Mapping[str, str] = MappingProxyType(
    {
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
)
#: Media types by their top-level type: every subtype is a sub-resource.
TOP_LEVEL_TYPES: Mapping[str, str] = MappingProxyType(
    {"image": "image", "font": "font", "audio": "media", "video": "media"}
)
#: Other media types of sub-resources, lower case, without parameters.
MEDIA_TYPES: Mapping[str, str] = MappingProxyType(
    {
        "text/css": "stylesheet",
        **dict.fromkeys(
            [
                "text/javascript",  # RFC 9239: the one to use; the rest are its obsolete aliases
                "application/javascript",
                "application/x-javascript",
                "application/ecmascript",
                "application/x-ecmascript",
                "text/ecmascript",
                "text/x-javascript",
                "text/jscript",
                "text/livescript",
                "application/wasm",
            ],
            "script",
        ),
        **dict.fromkeys(
            [
                "application/font-woff",
                "application/font-woff2",
                "application/font-sfnt",
                "application/x-font-ttf",
                "application/x-font-otf",
                "application/x-font-woff",
                "application/vnd.ms-fontobject",
            ],
            "font",
        ),
        **dict.fromkeys(
            ["application/ogg", "application/vnd.apple.mpegurl", "application/x-mpegurl", "application/dash+xml"],
            "media",
        ),
    }
)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:").match
#: What is not part of a name's extension at its end: dots and whitespace (``logo.png.``).
_TRAILING = ". \t\r\n\f\v\x00"


def _path(url: str) -> str:
    """The URL's path, also when ``urlsplit`` refuses its authority (``http://a[/x.png``)."""
    try:
        return split(url).path
    except ValueError:
        rest = url.split("#", 1)[0].split("?", 1)[0]
        scheme = _SCHEME(rest)
        rest = rest[scheme.end() :] if scheme else rest
        if rest[:2] == "//":
            slash = rest.find("/", 2)
            rest = rest[slash:] if slash != -1 else ""
        return rest


def last_name(url: str) -> str:
    """The last non-empty segment of the URL's path as a server reads it: percent-decoded
    (twice at most: ``%252E``), without path parameters, lower case, no trailing dots."""
    path = _path(url)
    for _ in range(3):
        decoded = unquote(path)
        if decoded == path:
            break
        path = decoded
    for segment in reversed(path.split("/")):
        name = segment.split(";", 1)[0].rstrip(_TRAILING).lower()
        if name:
            return name
    return ""


def subresource_kind(url: str, resource_type: Any = None, fetch_dest: str | None = None) -> str | None:
    """The kind of sub-resource a request is for, or None for a document."""
    for explicit in (resource_type, fetch_dest):
        if isinstance(explicit, str) and explicit.strip().lower() in EXPLICIT:
            return EXPLICIT[explicit.strip().lower()]
    name = last_name(url)
    if "." not in name:
        return None
    return BY_EXTENSION.get(name.rsplit(".", 1)[-1])


def subresource_type(content_type: str | bytes | None) -> str | None:
    """The kind of sub-resource a ``Content-Type`` names, or None (a document, or no type)."""
    if content_type is None:
        return None
    if isinstance(content_type, bytes):
        content_type = content_type.decode("latin-1")
    media = content_type.split(";", 1)[0].strip().lower()
    top, _, sub = media.partition("/")
    if not sub:
        return None
    return TOP_LEVEL_TYPES.get(top) or MEDIA_TYPES.get(media)
