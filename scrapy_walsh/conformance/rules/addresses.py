"""The policy model: no private or local targets, checked when a request is made and at connect time."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scrapy.utils.misc import load_object

from scrapy_walsh.conformance.engine import FAIL, WARN, Finding, Subject, gate_removed, loosens, path_of
from scrapy_walsh.middlewares.addresses import AddressGuardMiddleware, ConnectRefusalMiddleware
from scrapy_walsh.settings import CHECKPOINT_HANDLER

#: Download handlers that connect through the reactor's name resolver, which the
#: address guard wraps; others (httpx, aiohttp) resolve names where it can't see.
#: Named, not imported: the HTTP/2 handler needs the optional ``h2``.
REACTOR_RESOLVED_HANDLERS = (
    "scrapy.core.downloader.handlers.http11.HTTP11DownloadHandler",
    "scrapy.core.downloader.handlers.http2.H2DownloadHandler",
)


def private_addresses(subject: Subject) -> Iterator[Finding]:
    walsh = subject.walsh
    if why := walsh.refused("WALSH_ALLOW_PRIVATE_ADDRESSES"):
        yield Finding("9", "addresses", FAIL, "WALSH_ALLOW_PRIVATE_ADDRESSES", why)
        return
    allowance = walsh.value("WALSH_ALLOW_PRIVATE_ADDRESSES")
    if allowance.allow_all or allowance.networks:
        yield loosens(
            "9",
            "addresses",
            "WALSH_ALLOW_PRIVATE_ADDRESSES",
            walsh.given("WALSH_ALLOW_PRIVATE_ADDRESSES"),
            f"private/loopback targets allowed: {allowance.describe()} (for local demos and tests only)",
        )


def address_guard(subject: Subject) -> Iterator[Finding]:
    yield from gate_removed(subject, "9", "addresses", AddressGuardMiddleware, "the addresses a request goes to")
    yield from gate_removed(
        subject, "9", "addresses", ConnectRefusalMiddleware, "connect-time address refusals (they would be retried)"
    )
    if subject.walsh.value("WALSH_ALLOW_PRIVATE_ADDRESSES").allow_all:  # a refused value: cannot audit
        return
    handlers = subject.settings.getwithbase("DOWNLOAD_HANDLERS")
    seen: set[Any] = set()
    for scheme in ("http", "https"):
        path = handlers.get(scheme)
        if path == CHECKPOINT_HANDLER and not subject.walsh.refused("WALSH_DOWNLOAD_HANDLER"):
            path = subject.walsh.value("WALSH_DOWNLOAD_HANDLER")  # the handler it wraps connects
        if path is None or path in seen:
            continue
        seen.add(path)
        try:
            handler = load_object(path) if isinstance(path, str) else path
        except (ImportError, NameError, ValueError, AttributeError):
            continue  # Scrapy itself reports a handler it cannot load
        mro = getattr(handler, "__mro__", ())
        if not any(path_of(c) in REACTOR_RESOLVED_HANDLERS for c in mro):
            yield Finding(
                "9",
                "addresses",
                WARN,
                "DOWNLOAD_HANDLERS",
                f"{scheme}: {getattr(handler, '__name__', path)} does not resolve names "
                "through the reactor: private addresses are refused when a request is "
                "checked, but not again at connect time (a DNS-rebinding window); "
                "Scrapy's HTTP11DownloadHandler and H2DownloadHandler close it",
            )
