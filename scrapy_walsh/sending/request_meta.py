"""What a request carries about the gates it passed: verdicts, whether it was requeued, its host.

``meta["walsh"]`` is information for callbacks and items, never a switch: the checkpoint
decides from admission stamps (:mod:`scrapy_walsh.sending.admission`), not from ``meta``. The host key
every gate, the queue and the checkpoint ask for is worked out once per Request object
(:func:`request_host`), as Scrapy's ``urlparse_cached`` parses a URL once, and never kept in
``meta``, which spider code can set.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any
from urllib.parse import SplitResult

from scrapy_walsh.policy import hostkey, urls
from scrapy_walsh.policy.vocabulary import Meta
from scrapy_walsh.process import PROCESS

if TYPE_CHECKING:
    from scrapy import Request

#: ``meta`` key counting how often pacing sent a request back to the scheduler; the
#: gates evaluate such a request again but count its verdicts once.
REQUEUED = Meta.REQUEUED


def record_verdict(request: Request, gate: str, verdict: str, **extra: Any) -> dict[str, Any]:
    """Write a gate's verdict into ``request.meta["walsh"]`` (copy-on-write).

    ``meta["walsh"]`` is ``{"verdicts": {gate: verdict}, <gate>: {...}, ...}``; Scrapy
    copies ``request.meta`` onto the response, so callbacks read it from
    ``response.meta["walsh"]``. A redirect or retry copies meta shallowly, so the
    dict is replaced rather than mutated: each hop keeps its own verdicts.
    """
    info = dict(request.meta.get("walsh") or {})
    info["verdicts"] = {**info.get("verdicts", {}), gate: str(verdict)}
    info.update(extra)
    request.meta["walsh"] = info
    return info


class Added(enum.Enum):
    """What :func:`add_to_item` did with the value."""

    ADDED = "added"
    PRESENT = "present"  #: a value of ours was there already, and is kept
    FOREIGN = "foreign"  #: the item's own ``walsh`` field is not a dict: not ours to change
    NO_FIELD = "no_field"  #: the item has no field to carry it


def add_to_item(item: Any, name: str, value: Any) -> Added:
    """``item["walsh"][name] = value``, in the item's own ``walsh`` dict when it has one (never over
    a value already there)."""
    from itemadapter import ItemAdapter

    adapter = ItemAdapter(item)
    try:
        current = adapter.get("walsh")
        if isinstance(current, dict):
            if current.get(name) is not None:
                return Added.PRESENT
            adapter["walsh"] = {**current, name: value}
        elif current is None:
            adapter["walsh"] = {name: value}
        else:
            return Added.FOREIGN
    except (KeyError, TypeError, AttributeError, ValueError):
        return Added.NO_FIELD
    return Added.ADDED


def first_pass(request: Request) -> bool:
    """False for a request pacing sent back to the scheduler (already counted)."""
    return not request.meta.get(REQUEUED)


def _parsed(request: Request) -> tuple[str, SplitResult | None, str]:
    """(the URL its parts and host key were worked out from, those parts, that key), kept per
    Request object in the process's state."""
    found = PROCESS.hosts.get(request)
    if found is None or found[0] != request.url:
        try:
            parts: SplitResult | None = urls.split(request.url)
        except ValueError:
            parts = None
        found = PROCESS.hosts[request] = (request.url, parts, hostkey.url_host(request.url))
    return found


def request_host(request: Request) -> str:
    """The host key of ``request``'s URL (:func:`scrapy_walsh.policy.hostkey.url_host`), worked
    out the first time it is asked for and kept with the Request object (again only if its URL
    changed)."""
    return _parsed(request)[2]


def request_parts(request: Request) -> SplitResult:
    """``request``'s URL split as the download handler reads it (:func:`scrapy_walsh.policy.urls.split`),
    kept with the Request object like its host key; ``ValueError`` for one that can't be split."""
    parts = _parsed(request)[1]
    if parts is None:
        raise ValueError(f"{request.url!r} can't be split into parts")
    return parts
