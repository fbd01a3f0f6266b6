"""Which download handlers the checkpoint wraps, and how it sets each one's connection pool.

R4 and R5 count what the server saw, but HTTP clients resend an idempotent request on their own
when a reused keep-alive connection drops (RFC 9112 §9.3.1). ``WALSH_DOWNLOAD_HANDLER`` must name
a handler listed here, or a subclass of one: the checkpoint switches its resend off when it builds
it, and has it close a connection idle for :data:`IDLE_CONNECTION_SECONDS`; any other handler is
refused at start. docs/checkpoint.md and docs/architecture.md ("The modules, one by one") say why.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

__all__ = ("ACCEPTED", "IDLE_CONNECTION_SECONDS", "check", "load", "prepare")

#: Seconds a connection to a host stays open with no request on it: three floor intervals, so a
#: host crawled at its pace keeps its connection, and one the crawl is done with is let go (the
#: pools' own 240 s and 15 s held a socket, at both ends, for each host met meanwhile).
IDLE_CONNECTION_SECONDS = 3.0


def _twisted(handler: Any) -> None:
    handler._pool.retryAutomatically = False
    handler._pool.cachedConnectionTimeout = IDLE_CONNECTION_SECONDS


def _aiohttp(handler: Any) -> None:
    handler._session._retry_connection = False
    handler._session.connector._keepalive_timeout = IDLE_CONNECTION_SECONDS


#: class path -> how its pool is set: no resend, idle connections closed (a subclass inherits its base's entry).
ACCEPTED: Mapping[str, Callable[[Any], None]] = MappingProxyType(
    {
        "scrapy.core.downloader.handlers.http11.HTTP11DownloadHandler": _twisted,
        "scrapy.core.downloader.handlers._aiohttp.AiohttpDownloadHandler": _aiohttp,
    }
)


def load(path: str) -> type:
    """The class at ``path``; ``ValueError`` saying why when there is none."""
    module_name, _, name = path.rpartition(".")
    if not module_name:
        raise ValueError(f"{path!r} is not an import path (module.Class)")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"{path!r} can't be imported ({type(exc).__name__}: {exc})") from None
    except Exception as exc:  # a module that fails while importing
        raise ValueError(f"{path!r} fails on import ({type(exc).__name__}: {exc})") from None
    found = getattr(module, name, None)
    if not isinstance(found, type):
        raise ValueError(f"{path!r}: module {module_name} has no class {name}")
    return found


def _switch(cls: type) -> Callable[[Any], None] | None:
    for base in cls.__mro__:
        switch = ACCEPTED.get(f"{base.__module__}.{base.__qualname__}")
        if switch is not None:
            return switch
    return None


def check(path: str) -> str:
    """``path`` when it names an accepted handler; ``ValueError`` naming the problem otherwise."""
    if _switch(load(path)) is None:
        names = ", ".join(sorted(ACCEPTED))
        raise ValueError(
            f"{path!r}: the add-on can't turn off this handler's automatic resend of a request the "
            f"server already saw (R4/R5), so it is refused; use one of {names} (or a subclass)"
        )
    return path


def prepare(handler: Any) -> None:
    """Switch off the built ``handler``'s own resend, and have it close idle connections (the
    checkpoint calls it once)."""
    switch = _switch(type(handler))
    if switch is None:  # check() refused it at start; a handler swapped in later is refused here
        raise ValueError(f"{type(handler).__qualname__}: its automatic resend can't be turned off")
    switch(handler)
