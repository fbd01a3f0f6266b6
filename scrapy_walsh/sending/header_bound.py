"""Bounded response headers, enforced while the header block is received.

The checkpoint's handler counts the status and header lines as Twisted's parser receives them,
and gives up on a response as soon as they go over
:data:`~scrapy_walsh.policy.bounds.MAX_HEADER_COUNT` lines or
:data:`~scrapy_walsh.policy.bounds.MAX_HEADER_BYTES` bytes, before they are held in memory.
docs/hostile-servers.md ("Bounded headers") says why; docs/architecture.md says how, and lists
the private attributes reached.
"""

from __future__ import annotations

from typing import Any

from scrapy_walsh.policy.bounds import header_block_over
from scrapy_walsh.sending.protocol_mixins import with_mixin

__all__ = ("HeaderBlockOverBound", "bound_headers", "over_bound")


class HeaderBlockOverBound(Exception):
    """Raised in the parser when a response's header block goes over its bound (it ends the
    connection; the checkpoint turns it into a refusal)."""

    def __init__(self, why: str, lines: int, size: int):
        self.why, self.lines, self.size = why, lines, size
        super().__init__(f"{why} ({lines} lines, {size} bytes received)")


class _CountingParser:
    """Mixed into the response parser: counts the status line and header lines as they come."""

    _walsh_lines = -1  # the status line is not a header
    _walsh_bytes = 0

    def lineReceived(self, line: bytes) -> None:  # noqa: N802 - Twisted's name
        self._walsh_lines += 1
        self._walsh_bytes += len(line) + 2
        why = header_block_over(self._walsh_lines, self._walsh_bytes)
        if why is not None:
            raise HeaderBlockOverBound(why, self._walsh_lines, self._walsh_bytes)
        super().lineReceived(line)  # type: ignore[misc]


class _SwappingProtocol:
    """Mixed into the connection's protocol: each request's parser counts (Scrapy's lenient
    protocol swaps the parser's class the same way, which adds no state)."""

    _parser: Any

    def request(self, request: Any) -> Any:
        found = super().request(request)  # type: ignore[misc]
        if self._parser is not None:
            self._parser.__class__ = with_mixin(_CountingParser, type(self._parser), "Bounded")
        return found


class _BuildingFactory:
    """Mixed into the pool's protocol factory: each new connection's protocol swaps parsers."""

    def buildProtocol(self, addr: Any) -> Any:  # noqa: N802 - Twisted's name
        protocol = super().buildProtocol(addr)  # type: ignore[misc]
        protocol.__class__ = with_mixin(_SwappingProtocol, type(protocol), "Bounded")
        return protocol


def bound_headers(handler: Any) -> None:
    """Bound the header block of every response ``handler`` (the checkpoint's inner handler)
    receives, when it has a Twisted connection pool (Scrapy's HTTP/1.1 handler, a subclass):
    through that pool's own protocol factory, never Twisted's global classes."""
    pool = getattr(handler, "_pool", None)
    factory = getattr(pool, "_factory", None)
    if isinstance(factory, type) and hasattr(factory, "buildProtocol"):
        pool._factory = with_mixin(_BuildingFactory, factory, "Bounded")  # type: ignore[union-attr]


def over_bound(exception: BaseException) -> HeaderBlockOverBound | None:
    """The header bound a failed download went over, found in its causes (Twisted wraps it in
    ``ResponseFailed``, which Scrapy wraps in ``DownloadFailedError``), or None."""
    seen: set[int] = set()
    pending: list[BaseException] = [exception]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, HeaderBlockOverBound):
            return current
        pending += [reason.value for reason in getattr(current, "reasons", []) or [] if hasattr(reason, "value")]
        pending += [e for e in (current.__cause__, current.__context__) if e is not None]
    return None
