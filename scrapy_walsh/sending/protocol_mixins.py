"""A class with a mixin in front, made once per pair.

The header bound and the send gate add their checks to the classes a download handler's own
connection pool builds (its protocol factory, each connection's protocol, each request's parser)
by swapping in a subclass, as Scrapy's HTTP/1.1 handler swaps its lenient parser: Twisted's global
classes are never changed. One subclass per (mixin, class) pair, so a class swapped per connection
or per request is made once, and a class that already has the mixin is kept as it is (installing
twice changes nothing). The classes made are kept in the process's state (:mod:`scrapy_walsh.process`).
"""

from __future__ import annotations

from scrapy_walsh.process import PROCESS


def with_mixin(mixin: type, base: type, prefix: str) -> type:
    """``base`` with ``mixin`` in front (named ``prefix`` + the base's name), made once per pair."""
    if issubclass(base, mixin):
        return base
    made = PROCESS.mixed.get((mixin, base))
    if made is None:
        made = PROCESS.mixed[(mixin, base)] = type(f"{prefix}{base.__name__}", (mixin, base), {})
    return made
