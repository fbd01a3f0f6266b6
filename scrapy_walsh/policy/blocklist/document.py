"""The adopted list: :class:`Blocklist`, built from a validated document, and its matching.

Adopting checks the schema, the text (capped UTF-8 JSON), the document against the schema,
then the fields read here; any failure raises :class:`InvalidBlocklist` and the caller keeps
its previous list (R3). A listed name blocks itself and every subdomain, an IP only itself.
docs/requirements/r3-blocklist.md says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from scrapy_walsh.policy.blocklist.dates import parse_date, parse_datetime, parse_duration
from scrapy_walsh.policy.blocklist.errors import InvalidBlocklist, short
from scrapy_walsh.policy.blocklist.hosts import canonical, extract_host, listed_domain
from scrapy_walsh.policy.blocklist.jsontext import parse
from scrapy_walsh.policy.blocklist.schema import plan_for
from scrapy_walsh.policy.blocklist.validate import validate

#: The data contract and major version this module understands.
CONTRACT = "walsh-research-blocklist/v1"

#: ``refresh`` when the document has none: 1 hour. The spec lets the data source set
#: the timing, and a source that doesn't say gets a short cache so that a new opt-out
#: is honoured within the hour; the cost is one small fetch per hour per process.
DEFAULT_REFRESH_SECONDS = 3600.0
#: Lower bound on ``refresh``: a typo such as ``PT1S`` must not turn every process
#: into a once-a-second poller of the operator's server.
MIN_REFRESH_SECONDS = 60.0
#: Upper bound on ``refresh``: a typo such as ``P1Y`` must not delay new opt-outs for
#: longer than a week.
MAX_REFRESH_SECONDS = 7 * 86400.0

#: The ``reason`` of entries added by :meth:`Blocklist.with_extra`.
EXTRA_REASON = "local opt-out (WALSH_BLOCKLIST_EXTRA)"


@dataclass(frozen=True, slots=True)
class BlocklistEntry:
    """One opted-out domain."""

    #: The canonical form matched against (see :func:`normalise_host`).
    domain: str
    #: When the opt-out was recorded; ``None`` for a local opt-out (:meth:`Blocklist.with_extra`).
    added: date | None
    reason: str
    #: The domain as written in the document or the setting.
    listed: str
    #: True for an IP literal, which blocks only itself.
    is_ip: bool = False


def _bounded(seconds: float) -> float:
    return min(max(seconds, MIN_REFRESH_SECONDS), MAX_REFRESH_SECONDS)


class Blocklist:
    """An adopted operator blocklist, plus any local opt-outs.

    Build one with :meth:`from_document`, :meth:`empty` or :meth:`with_extra` (the
    constructor is internal). Treat it as immutable: :meth:`with_extra` returns a new
    list, so the middleware can swap lists atomically. ``len()`` counts distinct
    canonical domains; iterating yields the :class:`BlocklistEntry` objects.
    """

    __slots__ = ("_names", "_ips", "document", "updated", "refresh", "refresh_seconds", "duplicates", "_all")

    def __init__(
        self,
        names: dict[str, BlocklistEntry],
        ips: dict[str, BlocklistEntry],
        document: dict[str, Any] | None = None,
        updated: datetime | None = None,
        refresh: str | None = None,
        duplicates: int = 0,
    ):
        self._names = names
        self._ips = ips
        #: The validated document (without local opt-outs), to persist and re-adopt
        #: later with :meth:`from_document`; None for :meth:`empty`. Do not mutate it.
        self.document = document
        #: The document's ``updated``, timezone-aware.
        self.updated = updated
        #: The document's ``refresh`` as written, or None.
        self.refresh = refresh
        #: How long to cache the list: ``refresh`` bounded to [60 s, 7 days], or
        #: :data:`DEFAULT_REFRESH_SECONDS` when the document has none.
        self.refresh_seconds = DEFAULT_REFRESH_SECONDS if refresh is None else _bounded(parse_duration(refresh))
        #: Entries dropped because an earlier one had the same canonical domain.
        self.duplicates = duplicates
        #: Set by :meth:`refusing_all`: the entry that covers every host.
        self._all: BlocklistEntry | None = None

    @classmethod
    def refusing_all(cls, reason: str) -> Blocklist:
        """A list that covers every host, with ``reason``: R3 fails closed when the list we
        must honour can't be had (a stored list that passes no schema, and no fresh one),
        rather than crawling with an empty list."""
        blocklist = cls({}, {})
        blocklist._all = BlocklistEntry("*", None, reason, "*")
        return blocklist

    @classmethod
    def empty(cls) -> Blocklist:
        """No opt-outs: what a first-ever failed fetch leaves (R3: fail open)."""
        return cls({}, {})

    @classmethod
    def from_document(cls, doc: Mapping[str, Any] | str | bytes, schema: Mapping[str, Any] | None = None) -> Blocklist:
        """Validate and adopt a walsh-research-blocklist/v1 document.

        ``doc`` is the parsed JSON or its text/bytes (at most :data:`MAX_DOCUMENT_BYTES`,
        UTF-8 with an optional BOM). ``schema`` is the published schema, or None for the
        bundled copy. Raises :class:`InvalidSchema` if the schema is unusable and
        :class:`InvalidBlocklist` if the document is; both are ``ValueError``.

        A domain listed twice (after canonicalisation, so ``bücher.example`` and
        ``xn--bcher-kva.example`` are the same) keeps the entry with the earliest
        ``added``, the first in the document on a tie; :attr:`duplicates` counts the rest.
        """
        plan = plan_for(schema)
        data = parse(doc)
        validate(plan, data)
        return cls._build(data)

    @classmethod
    def _build(cls, data: Any) -> Blocklist:
        if not isinstance(data, Mapping):
            raise InvalidBlocklist(f"document: must be a JSON object, got {type(data).__name__}")
        contract = data.get("contract")
        if contract != CONTRACT:
            raise InvalidBlocklist(f"contract: must be {CONTRACT!r}, got {short(repr(contract), 80)}")
        try:
            updated = parse_datetime(data.get("updated"))
        except ValueError as exc:
            raise InvalidBlocklist(f"updated: {exc}") from None
        refresh = data.get("refresh")
        if refresh is not None:
            try:
                parse_duration(refresh)
            except ValueError as exc:
                raise InvalidBlocklist(f"refresh: {exc}") from None
        blocked = data.get("blocked")
        if not isinstance(blocked, list):
            raise InvalidBlocklist(f"blocked: must be a list, got {type(blocked).__name__}")
        names: dict[str, BlocklistEntry] = {}
        ips: dict[str, BlocklistEntry] = {}
        dates: dict[str, date] = {}  # the same few dates recur across thousands of entries
        duplicates = 0
        for i, item in enumerate(blocked):
            if not isinstance(item, Mapping):
                raise InvalidBlocklist(f"blocked[{i}]: must be an object, got {type(item).__name__}")
            listed = item.get("domain")
            try:
                domain, is_ip = listed_domain(listed)
            except ValueError as exc:
                raise InvalidBlocklist(f"blocked[{i}].domain: {exc}") from None
            added_text = item.get("added")
            added = dates.get(added_text) if isinstance(added_text, str) else None
            if added is None:
                try:
                    added = parse_date(added_text)
                    if isinstance(added_text, str):
                        dates[added_text] = added
                except ValueError as exc:
                    raise InvalidBlocklist(f"blocked[{i}].added: {exc}") from None
            reason = item.get("reason")
            if not isinstance(reason, str):
                raise InvalidBlocklist(f"blocked[{i}].reason: {short(repr(reason), 80)} is not a string")
            table = ips if is_ip else names
            kept = table.get(domain)
            if kept is not None:
                duplicates += 1
                if kept.added is not None and kept.added <= added:
                    continue
            table[domain] = BlocklistEntry(domain, added, reason, str(listed), is_ip)
        return cls(names, ips, dict(data), updated, refresh, duplicates)

    def with_extra(self, domains: Iterable[str] | str, reason: str = EXTRA_REASON) -> Blocklist:
        """This list plus local opt-outs (``WALSH_BLOCKLIST_EXTRA``): a new Blocklist.

        ``domains`` is an iterable of hostnames / IP literals, or one comma-separated
        string; blanks are skipped and surrounding whitespace, a trailing dot and
        ``[...]`` around an IPv6 literal are tolerated. Raises ``ValueError`` naming
        the first bad domain. A domain the operator already lists keeps the
        operator's entry.
        """
        if self._all is not None:
            return self  # already covers every host
        if isinstance(domains, str):
            domains = domains.split(",")
        names, ips = dict(self._names), dict(self._ips)
        for item in domains:
            if not isinstance(item, str):
                raise ValueError(f"blocklist domain {item!r} is not a string")
            text = item.strip()
            if not text:
                continue
            if text.startswith("[") and text.endswith("]"):
                text = text[1:-1]
            try:
                domain, is_ip = listed_domain(text)
            except ValueError as exc:
                raise ValueError(f"bad blocklist domain {item!r}: {exc}") from None
            table = ips if is_ip else names
            table.setdefault(domain, BlocklistEntry(domain, None, reason, text, is_ip))
        if len(names) == len(self._names) and len(ips) == len(self._ips):
            return self
        return Blocklist(names, ips, self.document, self.updated, self.refresh, self.duplicates)

    def match(self, host_or_url: str) -> BlocklistEntry | None:
        """The entry covering the host of ``host_or_url`` (a bare host, ``host:port``,
        ``[v6]:port`` or a URL), or None. A listed name covers itself and its
        subdomains, the most specific listed name winning; an IP only itself. Costs
        one dict probe per label of the host, whatever the size of the list."""
        if not isinstance(host_or_url, str):
            raise TypeError(f"expected a host or URL string, got {type(host_or_url).__name__}")
        if self._all is not None:
            return self._all
        host, is_ip = canonical(extract_host(host_or_url))
        if is_ip:
            return self._ips.get(host)
        names = self._names
        if not names or not host:
            return None
        entry = names.get(host)
        dot = host.find(".")
        while entry is None and dot != -1:
            entry = names.get(host[dot + 1 :])
            dot = host.find(".", dot + 1)
        return entry

    def __contains__(self, host_or_url: object) -> bool:
        return isinstance(host_or_url, str) and self.match(host_or_url) is not None

    def __iter__(self) -> Iterator[BlocklistEntry]:
        yield from self._names.values()
        yield from self._ips.values()

    def __len__(self) -> int:
        return len(self._names) + len(self._ips)

    def __repr__(self) -> str:
        updated = self.updated.isoformat() if self.updated else None
        return f"<Blocklist {len(self)} entries, updated={updated}, refresh={self.refresh_seconds:.0f}s>"
