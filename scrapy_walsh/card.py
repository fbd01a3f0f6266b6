"""The Signature Agent Card: what a signing agent publishes about itself (pure).

draft-meunier-webbotauth-registry-04 defines the card as a JSON object a registry (or the agent
itself) publishes beside its key directory. This module writes and checks the structure below,
our reading of the draft (written without network access to it; docs/verifiable-identity.md
repeats it, and tests/data/signature-agent-card.example.json is the example we test against):

=========================  =======================================================  ==========
member                     value                                                    required
=========================  =======================================================  ==========
``client_name``            the agent's name (our robots.txt product token)          yes
``client_uri``             the operator's page about the agent (policy URL)         no
``contacts``               list of contact URIs (``mailto:``, ``https:``)           no
``expected-user-agent``    the exact User-Agent the agent sends                     yes
``rfc9309-product-token``  the token robots.txt groups are matched against          yes
``rfc9309-compliance``     robots.txt fields honoured (``User-Agent``, ``Allow``,   no
                           ``Disallow``, ``Crawl-delay`` ...)
``trigger``                ``crawler`` (autonomous) or ``fetcher`` (user-driven)    no
``purpose``                list of uses of what is collected (aipref labels)        no
``rate-control``           how a site slows the agent down (text)                   no
``rate-expectation``       the most the agent sends (text: "1 request per 1 s per   no
                           host")
``keys``                   the agent's keys, a JWKS (``{"keys": [JWK ...]}``)       yes
=========================  =======================================================  ==========
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from . import webbotauth

DRAFT = "draft-meunier-webbotauth-registry-04"
REQUIRED = ("client_name", "expected-user-agent", "rfc9309-product-token", "keys")
LISTS = ("contacts", "rfc9309-compliance", "purpose")
TEXTS = (
    "client_name",
    "client_uri",
    "expected-user-agent",
    "rfc9309-product-token",
    "trigger",
    "rate-control",
    "rate-expectation",
)
TRIGGERS = ("crawler", "fetcher")
COMPLIANCE = ("User-Agent", "Allow", "Disallow", "Crawl-delay", "Request-rate", "Content-Usage")
RATE_CONTROL = (
    "robots.txt Crawl-delay and Request-rate; RateLimit response fields; 429 and 503 with Retry-After pause the host"
)
_RATE = re.compile(r"(?P<count>\d+(?:\.\d+)?)\s+requests?\s+per\s+(?P<seconds>\d+(?:\.\d+)?)\s*s", re.I)


def rate_expectation(interval: float) -> str:
    return f"at most 1 request per {interval:g} s per host"


def expected_interval(text: Any) -> float | None:
    """The seconds between two requests to one host a ``rate-expectation`` promises, when it says."""
    m = _RATE.search(text) if isinstance(text, str) else None
    if m is None or float(m["count"]) <= 0:
        return None
    return float(m["seconds"]) / float(m["count"])


def build(
    *,
    name: str,
    user_agent: str,
    keys: Iterable[Any],
    interval: float,
    purposes: Iterable[str],
    contact: str | None = None,
    policy: str | None = None,
) -> dict[str, Any]:
    card: dict[str, Any] = {
        "client_name": name,
        "expected-user-agent": user_agent,
        "rfc9309-product-token": name,
        "rfc9309-compliance": list(COMPLIANCE),
        "trigger": "crawler",
        "purpose": list(purposes),
        "rate-control": RATE_CONTROL,
        "rate-expectation": rate_expectation(interval),
        "keys": webbotauth.directory(keys),
    }
    if policy:
        card["client_uri"] = policy
    if contact:
        card["contacts"] = [contact if ":" in contact else f"mailto:{contact}"]
    return card


def validate(card: Any) -> list[str]:
    """What makes ``card`` not a Signature Agent Card of the structure above (empty: valid)."""
    if not isinstance(card, Mapping):
        return ["a card is a JSON object"]
    problems = [f"{name} is missing" for name in REQUIRED if name not in card]
    problems += [f"{n} must be a string" for n in TEXTS if n in card and not isinstance(card[n], str)]
    problems += [
        f"{n} must be a list of strings"
        for n in LISTS
        if n in card and not (isinstance(card[n], list) and all(isinstance(v, str) for v in card[n]))
    ]
    if "trigger" in card and card["trigger"] not in TRIGGERS:
        problems.append(f"trigger must be one of {', '.join(TRIGGERS)}")
    if "keys" in card:
        try:
            if not webbotauth.directory_keys(card["keys"]):
                problems.append("keys holds no Ed25519 key")
        except ValueError as exc:
            problems.append(f"keys: {exc}")
    return problems


def findings(
    card: Mapping[str, Any], *, user_agent: str, token: str, interval: float, purposes: Iterable[str], keyid: str | None
) -> list[str]:
    """Where the running settings are looser than (or not) what the card states."""
    found = validate(card)
    if found:
        return found
    if card["expected-user-agent"] != user_agent:
        found.append(f"the crawl sends User-Agent {user_agent!r}; the card states {card['expected-user-agent']!r}")
    if str(card["rfc9309-product-token"]).lower() != token.lower():
        found.append(f"the crawl's product token is {token!r}; the card states {card['rfc9309-product-token']!r}")
    promised = expected_interval(card.get("rate-expectation"))
    if promised is not None and interval < promised:
        found.append(
            f"WALSH_MIN_INTERVAL is {interval:g} s, looser than the card's rate expectation "
            f"({card['rate-expectation']!r}: {promised:g} s per host)"
        )
    stated = set(card.get("purpose") or ())
    extra = [p for p in purposes if p not in stated]
    if "purpose" in card and extra:
        found.append(f"WALSH_PURPOSES includes {', '.join(extra)}, which the card does not state")
    if keyid is not None and keyid not in webbotauth.directory_keys(card["keys"]):
        found.append(f"the crawl signs with key {keyid}, which the card does not list")
    return found
