"""The package's one vocabulary: gates, verdicts, meta keys and store namespaces.

Stats keys (``walsh/denied/<gate>/<verdict>``), ``response.meta["walsh"]``, the store's
keys, the summary and ``scrapy walsh explain`` all spell these names, so they are
defined once, here. Every value is a :class:`~enum.StrEnum`, so it compares and
formats as the plain string users see in stats and logs. The reference pages for meta
keys and store namespaces are generated from :data:`META_KEYS` and :data:`NAMESPACES`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from types import MappingProxyType

if sys.version_info >= (3, 11):
    from enum import StrEnum
else:  # Python 3.10: the same class, as 3.11 defines it (str() and format() give the value)
    from enum import Enum

    class StrEnum(str, Enum):
        def __str__(self) -> str:
            return str(self.value)

        def __format__(self, spec: str) -> str:
            return str(self.value).__format__(spec)


#: What messages call each requirement: its number and subject (the contract's headings), never
#: a seed file or a checklist number alone. The address rule and usage preferences have no
#: number of their own (the policy model's policy model).
REQUIREMENT_NAMES: Mapping[str, str] = MappingProxyType(
    {
        "R1": "R1 User-Agent",
        "R2": "R2 robots.txt",
        "R3": "R3 operator blocklist",
        "R4": "R4 rate limit and Crawl-delay",
        "R5": "R5 backoff and Retry-After",
        "R6": "R6 scope",
        "R7": "R7 conditional fetch and dedup",
        "R8": "R8 frequency",
        "R9": "R9 structured formats",
        "addresses": "the address rule (no private or loopback addresses)",
        "usage": "usage preferences",
    }
)


#: How a message points to help: a topic of ``scrapy walsh docs``, which prints it from the installed
#: package (a page, or a section by its heading's anchor). A message about something the user can
#: fix names the troubleshooting section that says how, so the reader lands on the fix rather than
#: on the page that explains the mechanism.
DOCS_COMMAND = "scrapy walsh docs"


def docs_topic(topic: str) -> str:
    """``"refused-at-start"`` -> ``"`scrapy walsh docs refused-at-start`"``."""
    return f"`{DOCS_COMMAND} {topic}`"


def requirement_name(requirement: str) -> str:
    """``"R2"`` -> ``"R2 robots.txt"``; a requirement without a name as it is."""
    return REQUIREMENT_NAMES.get(requirement, requirement)


class Gate(StrEnum):
    """Where a decision was taken, in request order (docs/architecture)."""

    SCOPE = "scope"
    ADDRESS = "address"
    BLOCKLIST = "blocklist"
    ROBOTS = "robots"
    CONDITIONAL = "conditional"
    FREQUENCY = "frequency"
    BACKOFF = "backoff"
    PACING = "pacing"
    IDENTITY = "identity"
    STRUCTURED = "structured"
    #: Usage preferences (Content-Usage, Content-Signal, TDMRep ...) in respect mode.
    USAGE = "usage"
    CHECKPOINT = "checkpoint"
    #: A response over its byte bound (after decompression).
    BOUNDS = "bounds"


class Verdict(StrEnum):
    """What robots.txt says about one URL for our token (the policy model's table)."""

    #: An Allow rule was the longest match.
    ALLOWED_EXPLICIT = "allowed_explicit"
    #: No rule matched, or robots.txt answered 4xx (RFC 9309 §2.3.1.3).
    ALLOWED_IMPLICIT = "allowed_implicit"
    #: A Disallow rule was the longest match.
    DISALLOWED_EXPLICIT = "disallowed_explicit"
    #: robots.txt answered 5xx/429 or the network failed (RFC 9309 §2.3.1.4).
    UNKNOWN_UNREACHABLE = "unknown_unreachable"
    #: robots.txt answered 2xx with something that is not a robots.txt.
    UNKNOWN_PARSE_ERROR = "unknown_parse_error"
    #: ``WALSH_ROBOTS_MODE = "ignore"``: robots.txt was not consulted.
    SKIPPED_BY_USER_POLICY = "skipped_by_user_policy"


class Recommendation(StrEnum):
    RECOMMENDED = "recommended"
    NOT_RECOMMENDED = "not_recommended"
    UNKNOWN_DO_NOT_FETCH_BY_DEFAULT = "unknown_do_not_fetch_by_default"
    ALLOWED_BUT_WARN = "allowed_but_warn"


#: The policy model, "Fetch recommendation".
RECOMMENDATION: Mapping[Verdict, Recommendation] = MappingProxyType(
    {
        Verdict.ALLOWED_EXPLICIT: Recommendation.RECOMMENDED,
        Verdict.ALLOWED_IMPLICIT: Recommendation.RECOMMENDED,
        Verdict.DISALLOWED_EXPLICIT: Recommendation.NOT_RECOMMENDED,
        Verdict.UNKNOWN_UNREACHABLE: Recommendation.UNKNOWN_DO_NOT_FETCH_BY_DEFAULT,
        Verdict.UNKNOWN_PARSE_ERROR: Recommendation.ALLOWED_BUT_WARN,
        Verdict.SKIPPED_BY_USER_POLICY: Recommendation.RECOMMENDED,
    }
)

#: The verdicts ``respect`` mode refuses to fetch.
BLOCKING_VERDICTS = frozenset({Verdict.DISALLOWED_EXPLICIT, Verdict.UNKNOWN_UNREACHABLE})


def recommendation(verdict: Verdict | str) -> Recommendation:
    return RECOMMENDATION[Verdict(verdict)]


class GateVerdict(StrEnum):
    """The verdicts of every gate but robots.txt (not in the policy model's table)."""

    #: R3: the host is the apex or a subdomain of an operator-blocklist entry.
    BLOCKED_BY_OPERATOR = "blocked_by_operator"
    #: R3: no blocklist entry matches.
    NOT_BLOCKED = "not_blocked"
    #: The policy model: the host is, or resolves to, a loopback, private or otherwise local address
    #: (also a twin candidate whose URL visibly points at one).
    PRIVATE_ADDRESS = "private_address"
    #: R6: not a declared target (a follow-up the spider found).
    NOT_DECLARED = "not_declared"
    #: R6: an image, style sheet, script, font or media file.
    SUBRESOURCE = "subresource"
    #: R7: the server answered 304 to our validators.
    NOT_MODIFIED = "not_modified"
    #: R8: fetched within ``WALSH_REFETCH_INTERVAL``.
    SKIPPED_RECENTLY_FETCHED = "skipped_recently_fetched"
    #: R4: the selected group's Crawl-delay is over ``WALSH_MAX_CRAWL_DELAY``.
    CRAWL_DELAY_EXCEEDS_CAP = "crawl_delay_exceeds_cap"
    #: R5: the host asked us to stay away longer than ``WALSH_BACKOFF_MAX_DELAY``.
    HOST_PAUSED_BEYOND_MAX_DELAY = "host_paused_beyond_max_delay"
    #: R9: neither markdown by content negotiation nor an llms.txt representation: the source
    #: is left out, never read as HTML.
    NO_STRUCTURED_REPRESENTATION = "no_structured_representation"
    #: Sitemaps: more than 50,000 URLs; the first 50,000 were yielded, the rest not read.
    SITEMAP_TRUNCATED = "sitemap_truncated_at_url_limit"
    #: Sitemaps: over 50 MB uncompressed; nothing was read.
    SITEMAP_OVER_SIZE_LIMIT = "sitemap_over_size_limit"
    #: Sitemaps: not a urlset or sitemapindex (not XML, another root, bad gzip, non-2xx).
    SITEMAP_UNREADABLE = "sitemap_unreadable"
    #: Checkpoint: the request reached the network's door without every gate's stamp.
    NOT_ADMITTED = "not_admitted"
    #: Checkpoint: a ``Host`` header naming another host than the URL's.
    HOST_HEADER_MISMATCH = "host_header_mismatch"
    #: Checkpoint: the request's proxy is blocklisted or a refused address.
    PROXY_REFUSED = "proxy_refused"
    #: Checkpoint: a scheme other than http and https.
    SCHEME_NOT_ALLOWED = "scheme_not_allowed"
    #: Admission and checkpoint: a URL parsers read different hosts in, or that is not the URL
    #: Scrapy would send for it (``meta["verbatim_url"]``); docs/url-model.md.
    AMBIGUOUS_URL = "ambiguous_url"
    #: Usage preferences (respect mode): robots.txt or tdmrep.json reserves one of our purposes.
    USAGE_RESERVED = "usage_reserved"
    #: The response's body is over its bound (``WALSH_MAX_BODY_BYTES``, or the
    #: request's own ``download_maxsize``), after decompression: refused, nothing of it is read.
    RESPONSE_TOO_LARGE = "response_too_large"


# Plain names for the verdicts above, as the gates spell them.
BLOCKED_BY_OPERATOR = GateVerdict.BLOCKED_BY_OPERATOR
NOT_BLOCKED = GateVerdict.NOT_BLOCKED
PRIVATE_ADDRESS = GateVerdict.PRIVATE_ADDRESS
NOT_DECLARED = GateVerdict.NOT_DECLARED
SUBRESOURCE = GateVerdict.SUBRESOURCE
NOT_MODIFIED = GateVerdict.NOT_MODIFIED
SKIPPED_RECENTLY_FETCHED = GateVerdict.SKIPPED_RECENTLY_FETCHED
CRAWL_DELAY_EXCEEDS_CAP = GateVerdict.CRAWL_DELAY_EXCEEDS_CAP
HOST_PAUSED_BEYOND_MAX_DELAY = GateVerdict.HOST_PAUSED_BEYOND_MAX_DELAY
NO_STRUCTURED_REPRESENTATION = GateVerdict.NO_STRUCTURED_REPRESENTATION
SITEMAP_TRUNCATED = GateVerdict.SITEMAP_TRUNCATED
SITEMAP_OVER_SIZE_LIMIT = GateVerdict.SITEMAP_OVER_SIZE_LIMIT
SITEMAP_UNREADABLE = GateVerdict.SITEMAP_UNREADABLE
NOT_ADMITTED = GateVerdict.NOT_ADMITTED
HOST_HEADER_MISMATCH = GateVerdict.HOST_HEADER_MISMATCH
PROXY_REFUSED = GateVerdict.PROXY_REFUSED
SCHEME_NOT_ALLOWED = GateVerdict.SCHEME_NOT_ALLOWED
AMBIGUOUS_URL = GateVerdict.AMBIGUOUS_URL
USAGE_RESERVED = GateVerdict.USAGE_RESERVED
RESPONSE_TOO_LARGE = GateVerdict.RESPONSE_TOO_LARGE


class Meta(StrEnum):
    """``Request.meta`` keys the package reads or writes (reference: :data:`META_KEYS`)."""

    WALSH = "walsh"
    INTERNAL = "walsh_internal"
    DECLARED = "walsh_declared"
    REQUEUED = "walsh_requeued"
    BACKOFF_ATTEMPT = "walsh_backoff_attempt"
    FETCH_CLAIM = "walsh_fetch_claim"
    CONDITIONAL = "walsh_conditional"
    STRUCTURED = "walsh_structured"
    DISCOVERED = "walsh_discovered"


#: What each meta key means, for the reference docs.
META_KEYS: Mapping[Meta, str] = MappingProxyType(
    {
        Meta.WALSH: 'Written by the gates, read by callbacks: `{"verdicts": {gate: verdict}, <gate>: {...}}` '
        "on `response.meta`, plus the fetch recommendation and usage warnings.",
        Meta.INTERNAL: "Informational: what a request the package sends for itself is for (robots.txt, the "
        "blocklist and its schema). Never read: the package knows its own requests by object identity.",
        Meta.DECLARED: "Marks a request R6 admitted (a start request, or a step a StructuredSourceSpider planned): "
        "a seal of its URL under the identity's secret; any other value is ignored.",
        Meta.REQUEUED: "How often pacing sent the request back to the scheduler; its verdicts are counted once.",
        Meta.BACKOFF_ATTEMPT: "R5: the retry number of a request the backoff gate rescheduled after 429/503.",
        Meta.FETCH_CLAIM: "R8: the request holds the fetch lease of its target (released if it fails, replaced by "
        "the answer's time); sealed, and valid only while the store holds that very lease.",
        Meta.CONDITIONAL: "R7: the validators (`If-None-Match`, `If-Modified-Since`) the request was sent with.",
        Meta.STRUCTURED: "R9: which step of a StructuredSourceSpider's plan the request is.",
        Meta.DISCOVERED: "R6: the manifest that listed a discovered target, and its `lastmod` (for callbacks to "
        "read); `update` when it is fetched again because that `lastmod` is newer (its items are updates, R7).",
    }
)


class IntervalWhy(StrEnum):
    """What set the interval a request kept after the one before it to the same host: the
    ``why`` of its request-journal entry, beside ``interval`` (seconds)."""

    #: ``WALSH_MIN_INTERVAL`` (R4), or the project's slower ``DOWNLOAD_SLOTS`` delay for the host
    FLOOR = "floor"
    CRAWL_DELAY = "crawl-delay"
    REQUEST_RATE = "request-rate"
    #: the host's ``RateLimit`` / ``RateLimit-Policy`` fields
    RATELIMIT = "ratelimit"
    #: a ``Retry-After`` on a 429/503 (R5)
    RETRY_AFTER = "retry-after"
    #: a computed backoff (R5: a 429/503 without a usable Retry-After), or the adaptive delay
    #: that follows errors and slow answers
    BACKOFF = "backoff"
    #: the rest after timeouts in a row (each doubles it)
    TIMEOUT_REST = "timeout-rest"


class Namespace(StrEnum):
    """State-store namespaces (keys: ``walsh:<identity>:<namespace>:<key>`` in Redis)."""

    PACING = "pacing"
    ROBOTS = "robots"
    BLOCKLIST = "blocklist"
    FETCHED = "fetched"
    FETCHED_BY = "fetched_by"
    VALIDATORS = "validators"
    SEEN = "seen"
    LLMS_TXT = "llms_txt"
    CHECK = "walsh-check"
    ADMISSION = "admission"
    CRAWLS = "crawls"
    UNDELIVERED = "undelivered"
    DELIVERING = "delivering"
    META = "meta"
    DISCOVERED = "discovered"


#: What each namespace holds and for how long, for the reference docs.
NAMESPACES: Mapping[Namespace, str] = MappingProxyType(
    {
        Namespace.PACING: "R4/R5: the per-host ledger (last start, Crawl-delay, adaptive delay, backoff pause).",
        Namespace.ROBOTS: "R2: each origin's robots.txt outcome and body, kept 30 days for the stale-copy rule.",
        Namespace.BLOCKLIST: "R3: the last adopted operator blocklist, and the published schema it was checked with.",
        Namespace.FETCHED: "R8: when each target was last answered (expires after WALSH_REFETCH_INTERVAL), or the "
        "short lease of a crawl sending it now (taken over once that crawl is gone).",
        Namespace.FETCHED_BY: "R8: who fetched each target (the project, the spider, and the command for `scrapy "
        "shell`/`fetch`/`parse`; `state forget --spider` reads it) and the final status (a 5xx after the retries "
        "is listed by `scrapy walsh state show`).",
        Namespace.VALIDATORS: "R7: each target's ETag and Last-Modified.",
        Namespace.SEEN: "R7: item URLs already emitted, per spider (`seen:<spider>`).",
        Namespace.LLMS_TXT: "R9: parsed llms.txt indexes, reused across runs.",
        Namespace.CHECK: "`scrapy walsh check`: a short-lived probe key that proves the store is writable.",
        Namespace.CRAWLS: "The crawls holding the store now (pid, machine; a heartbeat every 5 s, gone after 20 s): a "
        "lease of a crawl no longer here is taken over, and `scrapy walsh state reset` refuses while one runs.",
        Namespace.UNDELIVERED: "Items an output could not take (a full disk under the feed, a pipeline that raised), "
        "per spider (`undelivered:<spider>`), as JSON: the spider's next run delivers them first, without fetching "
        "their pages again, and removes each once delivered.",
        Namespace.DELIVERING: "The short lease of a crawl delivering a kept item now (`delivering:<spider>`), so two "
        "processes of a fleet never both deliver it; taken over once that crawl is gone.",
        Namespace.ADMISSION: "The identity's secret that seals declared targets and R8 claims in `meta` "
        "(never expires).",
        Namespace.META: "Redis: the store's id (`meta:id`, never expires), checked by every operation: a store that "
        "lost it (FLUSHALL, a restart without persistence) is refused at start and stops a running crawl.",
        Namespace.DISCOVERED: "R7: when each target a manifest listed was last answered, kept 400 days: a target whose "
        "`lastmod` is not newer is not fetched again.",
    }
)
