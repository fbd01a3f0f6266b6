"""The verdict and fetch-recommendation names of seed 000, shared by every gate.

A boolean allowed/denied is too coarse to audit: the robots gate answers with one of
the seed-000 verdicts, and each verdict maps to a fetch recommendation. The other
gates add their own verdict names (``blocked_by_operator`` ...) as plain constants
here, so stats keys and ``response.meta["walsh"]`` use one vocabulary.
"""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    """What robots.txt says about one URL for our token (seed 000's table)."""

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


#: Seed 000, "Fetch recommendation".
RECOMMENDATION: dict[Verdict, Recommendation] = {
    Verdict.ALLOWED_EXPLICIT: Recommendation.RECOMMENDED,
    Verdict.ALLOWED_IMPLICIT: Recommendation.RECOMMENDED,
    Verdict.DISALLOWED_EXPLICIT: Recommendation.NOT_RECOMMENDED,
    Verdict.UNKNOWN_UNREACHABLE: Recommendation.UNKNOWN_DO_NOT_FETCH_BY_DEFAULT,
    Verdict.UNKNOWN_PARSE_ERROR: Recommendation.ALLOWED_BUT_WARN,
    Verdict.SKIPPED_BY_USER_POLICY: Recommendation.RECOMMENDED,
}

#: The verdicts ``respect`` mode refuses to fetch.
BLOCKING_VERDICTS = frozenset({Verdict.DISALLOWED_EXPLICIT, Verdict.UNKNOWN_UNREACHABLE})


def recommendation(verdict: Verdict | str) -> Recommendation:
    return RECOMMENDATION[Verdict(verdict)]


# Verdicts of the other gates (not robots.txt, so not in the seed-000 table).
#: R3: the host is the apex or a subdomain of an operator-blocklist entry.
BLOCKED_BY_OPERATOR = "blocked_by_operator"
#: R3: no blocklist entry matches.
NOT_BLOCKED = "not_blocked"

# R9, structured sources (scrapy_walsh.spiders).
#: Neither markdown by content negotiation nor an llms.txt representation: the source is
#: left out, never read as HTML.
NO_STRUCTURED_REPRESENTATION = "no_structured_representation"
#: A twin candidate whose URL visibly points at a private or local address: never chosen.
PRIVATE_ADDRESS = "private_address"
#: Sitemaps: more than 50,000 URLs; the first 50,000 were yielded, the rest not read.
SITEMAP_TRUNCATED = "sitemap_truncated_at_url_limit"
#: Sitemaps: over 50 MB uncompressed; nothing was read.
SITEMAP_OVER_SIZE_LIMIT = "sitemap_over_size_limit"
#: Sitemaps: not a urlset or sitemapindex (not XML, another root, bad gzip, non-2xx).
SITEMAP_UNREADABLE = "sitemap_unreadable"
