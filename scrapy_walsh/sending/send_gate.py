"""R4 as the server sees it: a host's slot is held from its reservation until the request leaves.

The reservation takes a host lease, renewed while the connection is made; right before the bytes
are written (:func:`before_write`, hooked into the HTTP/1.1 client protocol by :func:`install`) a
late request stamps its start again atomically or is not written (:class:`NotWritten`), and
:func:`after_write` stamps a write that came late after its stamp. docs/fleet.md says why.
"""

from __future__ import annotations

import inspect
import time
from contextlib import suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from twisted.internet.defer import Deferred, fail
from twisted.internet.interfaces import IHandshakeListener
from twisted.protocols.tls import TLSMemoryBIOProtocol
from zope.interface import implementer

from scrapy_walsh.process import PROCESS
from scrapy_walsh.sending.pacer import PACING_MARGIN
from scrapy_walsh.sending.protocol_mixins import with_mixin
from scrapy_walsh.store import StateStoreError, waiting

if TYPE_CHECKING:
    from twisted.internet.base import DelayedCall

    from scrapy_walsh.sending.pacer import Lease, SharedPacer

#: A request written within this many seconds of its reservation needs no second stamp: the
#: slot's ready time adds ``PACING_MARGIN``, so its next request still comes a full interval
#: after it. Measured from before the reservation's round trip, so the store's own latency counts.
FAST_WRITE = PACING_MARGIN * 0.9


class NotWritten(Exception):  # noqa: N818 - not an error: the request waits and goes again
    """The request was not written: ``wait`` s until the host's slot may be free, or ``cause``
    (the store could not say). Nothing reached the server but, perhaps, a TCP handshake (so the
    journal has no send for it); the checkpoint turns it into a wait (``NotYourTurn``) or an
    outage (``StoreUnavailable``)."""

    def __init__(self, host: str, wait: float = 0.0, cause: BaseException | None = None):
        self.host, self.wait, self.cause = host, wait, cause
        why = f"the store could not confirm the slot ({cause})" if cause else f"its slot is {wait:.3f} s away now"
        super().__init__(f"{host}: not written: {why}")


@dataclass
class Send:
    """The process's one request on its way to the network (the checkpoint's in-flight lock)."""

    politeness: SharedPacer
    host: str
    lease: Lease
    #: ``time.monotonic()`` before the reservation's round trip
    began: float
    written: bool = False
    #: ``time.monotonic()`` before the store call whose stamp the write relies on, once the write
    #: is let through; None before that and once :meth:`after_write` has looked at it
    stamped: float | None = None
    refusal: NotWritten | None = None
    _renewal: DelayedCall | None = field(default=None, repr=False)

    def start(self) -> None:
        """Renew the lease every half slot until the request is written (or the download ends)."""
        half = (self.politeness.interval(self.host) + PACING_MARGIN) / 2
        self._renewal = waiting.call_later(half, self._renew)

    def _renew(self) -> None:
        self._renewal = None
        if self.written:
            return
        try:
            self.politeness.renew(self.host, self.lease)
        except StateStoreError:
            pass  # unavailable: the lease lapses unless a later renewal reaches the store
        self.start()

    def stop(self) -> None:
        if self._renewal is not None and self._renewal.active():
            self._renewal.cancel()
        self._renewal = None

    def before_write(self) -> None:
        """The request's bytes are about to be written: go, or raise :class:`NotWritten`."""
        if self.written:
            return
        self.written = True
        self.stop()
        if time.monotonic() - self.began <= FAST_WRITE:
            self.politeness.written(self.lease)
            self.stamped = self.began
            return  # the reservation is the send
        asked = time.monotonic()
        try:
            wait = self.politeness.confirm(self.host, self.lease)
        except StateStoreError as exc:
            self.refusal = NotWritten(self.host, cause=exc)
            raise self.refusal from None
        if wait:
            self.refusal = NotWritten(self.host, wait=wait)
            raise self.refusal
        self.stamped = asked

    def after_write(self) -> None:
        """The request's bytes were just handed to the kernel: stamp its start again if they left
        more than :data:`FAST_WRITE` after the store call that stamped it."""
        if self.stamped is None:  # not a request this send let through, or already looked at
            return
        late, self.stamped = time.monotonic() - self.stamped, None
        if late > FAST_WRITE:
            with suppress(StateStoreError):  # away: the answer's settle is kept and moves the start
                self.politeness.stamp_written(self.host, self.lease, late)


def before_write() -> None:
    """Called right before a request's bytes are written: raises :class:`NotWritten` to stop it."""
    if PROCESS.sends:
        PROCESS.sends[0].before_write()


def after_write() -> None:
    """Called once a request's bytes were handed to the kernel (:meth:`Send.after_write`)."""
    if PROCESS.sends:
        PROCESS.sends[0].after_write()


def _push_out(transport: Any) -> None:
    """Hand what was just written to the kernel now, not at the reactor's next turn: the stamp
    is the send, so nothing (a long callback, a store call) may run between the two."""
    while isinstance(transport, TLSMemoryBIOProtocol):
        transport = transport.transport
    push = getattr(transport, "doWrite", None)
    if push is not None and getattr(transport, "connected", False):
        push()  # an error is left buffered: the reactor's own doWrite meets it again and reports it


@implementer(IHandshakeListener)
class _WriteGate:
    """Mixed into the HTTP/1.1 client protocol of the wrapped handler's pool: asks
    :func:`before_write` right before the request is written. Over TLS, a request handed over
    before the handshake is done is held until it is (its bytes would only leave then), so the
    check is made when they really go."""

    _tls = False
    _handshaken = False
    _held: tuple[Any, Deferred[Any]] | None = None
    transport: Any

    def makeConnection(self, transport: Any) -> None:  # noqa: N802 - Twisted's name
        self._tls = isinstance(transport, TLSMemoryBIOProtocol)
        super().makeConnection(transport)  # type: ignore[misc]

    def handshakeCompleted(self) -> None:  # noqa: N802 - Twisted's name
        self._handshaken = True
        if self._held is not None:
            request, waiting = self._held
            self._held = None
            self._write(request).chainDeferred(waiting)

    def request(self, request: Any) -> Deferred[Any]:
        if self._tls and not self._handshaken:
            waiting: Deferred[Any] = Deferred(self._cancel_held)
            self._held = (request, waiting)
            return waiting
        return self._write(request)

    def _cancel_held(self, waiting: Deferred[Any]) -> None:
        self._held = None
        self.transport.abortConnection()

    def connectionLost(self, reason: Any) -> None:  # noqa: N802 - Twisted's name
        if self._held is not None:
            _, waiting = self._held
            self._held = None
            waiting.errback(reason)
        super().connectionLost(reason)  # type: ignore[misc]

    def _write(self, request: Any) -> Deferred[Any]:
        try:
            before_write()
        except NotWritten as exc:
            self.transport.abortConnection()
            return fail(exc)
        written: Deferred[Any] = super().request(request)  # type: ignore[misc]
        _push_out(self.transport)
        after_write()
        return written


class _GatingFactory:
    """Mixed into the pool's protocol factory: each new connection's protocol gets the gate."""

    def buildProtocol(self, addr: Any) -> Any:  # noqa: N802 - Twisted's name
        protocol = super().buildProtocol(addr)  # type: ignore[misc]
        protocol.__class__ = with_mixin(_WriteGate, type(protocol), "WriteGated")  # as Scrapy swaps its parser's
        return protocol


def install(handler: Any) -> bool:
    """Mix the write gate into the protocols of ``handler``'s connection pool (Scrapy's
    ``HTTP11DownloadHandler``: its ``_pool``, whose ``_factory`` builds them); False when the
    handler has no such pool (no write hook: the module's docstring says what then)."""
    pool: Any = getattr(handler, "_pool", None)
    base: Any = getattr(pool, "_factory", None)
    if not inspect.isclass(base) or not hasattr(base, "buildProtocol"):
        return False
    pool._factory = with_mixin(_GatingFactory, base, "WriteGated")
    return True
