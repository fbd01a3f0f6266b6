"""Generation counters of what a gate's decision rests on: a decision made ahead is never sent stale.

A gate notes on the request it lets through the counters it read (an origin's robots.txt, the
operator's list, a pacing key's pause); under the in-flight lock the checkpoint asks
:meth:`Generations.moved`, and a request whose inputs moved walks the gates again
(:class:`~scrapy_walsh.exceptions.DecisionStale`). docs/checkpoint.md says why.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy import Request

ROBOTS = "robots"
BLOCKLIST = "blocklist"
PACE = "pace"


class Generations:
    """One crawl's counters (``CrawlContext.of(crawler).get(Generations)``)."""

    def __init__(self, crawler: Any = None):
        self._counts: dict[tuple[str, str], int] = {}
        self._noted: weakref.WeakKeyDictionary[Request, dict[tuple[str, str], int]] = weakref.WeakKeyDictionary()

    def bump(self, kind: str, key: str = "") -> None:
        """``kind``'s input ``key`` changed, or is about to: decisions read before are stale."""
        at = (kind, key)
        self._counts[at] = self._counts.get(at, 0) + 1

    def note(self, request: Request, kind: str, key: str = "") -> None:
        """``request``'s decision rests on ``kind``'s input ``key`` as it is now."""
        at = (kind, key)
        noted = self._noted.get(request)
        if noted is None:
            noted = self._noted[request] = {}
        noted[at] = self._counts.get(at, 0)

    def moved(self, request: Request) -> str | None:
        """The kind of the first input that changed since ``request``'s gates read it (None: none)."""
        noted = self._noted.get(request)
        if noted:
            counts = self._counts
            for at, generation in noted.items():
                if counts.get(at, 0) != generation:
                    return at[0]
        return None
