"""Generation counters of what a gate's decision rests on: a decision made ahead is never sent stale.

The downloader holds the next requests while one is on the network (``CONCURRENT_REQUESTS = 3``):
they pass the gates then, and wait at the checkpoint's lock with their decisions made. Three inputs
of those decisions may change before it is sent, and each has a counter here, bumped when it
changes *or starts to* (a fetch whose answer is in hand is read only after the lock has passed
on, so waiting for the new value would be too late):

* ``robots``, per origin: a robots.txt fetch starts, or its outcome is adopted;
* ``blocklist``: a refresh of the operator's list starts, or a list is adopted or refused (R3 fails closed);
* ``pace``, per pacing key: a pause (a 429 or 503, Retry-After, RateLimit, a run of timeouts).
  An answer whose pause its middlewares have not read yet needs no counter: the checkpoint
  settles the host under the lock before passing it on, so a request for the same key finds its
  slot taken at the reservation.

A gate notes the counters it read on the request it lets through (this object, as
:mod:`scrapy_walsh.admission` stamps it: nothing a spider sets in ``meta`` counts). Under its lock,
right before the reservation, the checkpoint asks :meth:`Generations.moved`: a request one of whose
counters moved is not sent; it walks the gates again (:class:`~scrapy_walsh.exceptions.DecisionStale`),
which read the new robots.txt, list or pause. A counter is one dict entry, bumped and compared in
constant time, whatever the number of hosts.
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
