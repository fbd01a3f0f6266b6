"""One computation per key, however many requests wait for it.

A Deferred hands its result to the first callback only: a second ``await`` on the same
Deferred gets None. That is how Scrapy 2.19's ``RobotsTxtMiddleware`` lets requests that
wait on robots.txt through unchecked (docs/robotstxt-any-project.md). Here each waiter
gets a Deferred of its own, fired with the result (or the exception) of the one run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

T = TypeVar("T")

__all__ = ("OncePerKey",)


class OncePerKey(Generic[T]):
    """``run(key, produce)``: the first caller runs ``produce``; callers that arrive while it
    runs wait for that run, each on its own Deferred. Nothing is kept after the run."""

    def __init__(self) -> None:
        self._waiting: dict[str, list[Deferred[T]]] = {}

    def running(self, key: str) -> bool:
        return key in self._waiting

    async def run(self, key: str, produce: Callable[[], Awaitable[T]]) -> T:
        waiters = self._waiting.get(key)
        if waiters is not None:
            mine: Deferred[T] = Deferred()
            waiters.append(mine)
            return await maybe_deferred_to_future(mine)
        waiters = self._waiting[key] = []
        try:
            result = await produce()
        except BaseException as exc:  # a cancelled run too: no waiter is left hanging
            del self._waiting[key]
            failure = Failure(exc)
            for waiter in waiters:
                waiter.errback(failure)
            raise
        del self._waiting[key]
        for waiter in waiters:
            waiter.callback(result)
        return result
