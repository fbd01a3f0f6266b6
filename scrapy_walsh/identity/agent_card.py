"""The Signature Agent Card: what a signing agent publishes about itself (pure).

draft-meunier-webbotauth-registry-04 takes the card's members from the OAuth Dynamic Client
Registration metadata (RFC 7591) and adds one ``web_bot_auth`` object for what only a bot has.
docs/publishing.md lists the members we write, where each comes from, and why the keys are
inline and ``rate-expectation`` reads as it does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from scrapy_walsh.identity import webbotauth
from scrapy_walsh.identity.bot_page import CARD, DIRECTORY

DRAFT = "draft-meunier-webbotauth-registry-04"
BOT = "web_bot_auth"
CLIENT_TEXTS = ("client_id", "client_name", "client_uri", "logo_uri", "jwks_uri")
BOT_TEXTS = ("rfc9309-product-token", "purpose", "targeted-content", "rate-control", "rate-expectation", "ips_uri")
HTTPS_ONLY = ("jwks_uri", "ips_uri")
TRIGGERS = ("crawler", "fetcher")
RATE_CONTROL = (
    "robots.txt Crawl-delay and Request-rate; RateLimit response fields; 429 and 503 with Retry-After pause the "
    "host; timeouts rest it"
)
_NUMBER = r"\d+(?:\.\d+)?"
_PARAM = re.compile(rf"^\s*(?P<name>[a-z-]+)\s*=\s*(?P<value>{_NUMBER}|[a-z]+)\s*(?P<unit>rps|s)?\s*$")


def rate_expectation(interval: float) -> str:
    """The machine-readable promise of at most one request per ``interval`` seconds per host."""
    return f"max={1 / interval:.6g}rps;per=host;interval={interval:g}s"


def expected_interval(text: Any) -> float | None:
    """The seconds between two requests to one host a ``rate-expectation`` promises, or None when
    it promises nothing per host (no ``per=host``, or a text we cannot read)."""
    if not isinstance(text, str):
        return None
    params: dict[str, tuple[str, str | None]] = {}
    for part in text.split(";"):
        m = _PARAM.match(part)
        if m is None:
            return None
        params[m["name"]] = (m["value"], m["unit"])
    if params.get("per", ("",))[0] != "host":
        return None
    value, unit = params.get("interval", (None, None))
    if value is not None and unit == "s" and float(value) > 0:
        return float(value)
    value, unit = params.get("max", (None, None))
    if value is not None and unit == "rps" and float(value) > 0:
        return 1 / float(value)
    return None


def build(
    *,
    name: str,
    user_agent: str,
    keys: Iterable[Any],
    interval: float,
    purposes: Iterable[str],
    contact: str | None = None,
    policy: str | None = None,
    base_url: str | None = None,
) -> dict[str, Any]:
    """The card; with ``base_url`` (the https URL the bot's page is published at), it names itself
    (``client_id``, the card's URL, as a Client ID Metadata Document does) and its key directory
    (``jwks_uri``, instead of inline ``jwks``: RFC 7591 allows one of the two)."""
    bot: dict[str, Any] = {
        "expected-user-agent": user_agent,
        "rfc9309-product-token": name,
        "rfc9309-compliance": True,
        "trigger": "crawler",
        "rate-control": RATE_CONTROL,
        "rate-expectation": rate_expectation(interval),
    }
    purposes = list(purposes)
    if purposes:
        bot["purpose"] = ", ".join(purposes)
    card: dict[str, Any] = {"client_name": name}
    if policy:
        card["client_uri"] = policy
    if contact:
        card["contacts"] = [contact if ":" in contact else f"mailto:{contact}"]
    keys = list(keys)
    base = base_url.rstrip("/") + "/" if base_url and base_url.startswith("https://") else None
    if base is not None:
        card["client_id"] = base + CARD
    if keys and base is not None:
        card["jwks_uri"] = base + DIRECTORY
    elif keys:  # an unsigned bot's card names no keys
        card["jwks"] = webbotauth.directory(keys)
    card[BOT] = bot
    return card


def stated_purposes(card: Mapping[str, Any]) -> list[str] | None:
    """The purposes a card states (None when it states none)."""
    text = (card.get(BOT) or {}).get("purpose")
    return [p.strip() for p in text.split(",") if p.strip()] if isinstance(text, str) else None


def validate(card: Any) -> list[str]:
    """What makes ``card`` not a Signature Agent Card in registry-04's structure (empty: valid)."""
    if not isinstance(card, Mapping) or not card:
        return ["a card is a JSON object with at least one member"]
    problems = [f"{n} must be a string" for n in CLIENT_TEXTS if n in card and not isinstance(card[n], str)]
    if "contacts" in card and not (
        isinstance(card["contacts"], list) and all(isinstance(c, str) for c in card["contacts"])
    ):
        problems.append("contacts must be a list of strings")
    if "jwks" in card and "jwks_uri" in card:
        problems.append("a card must not carry both jwks and jwks_uri")
    if "jwks" in card:
        try:
            if not webbotauth.directory_keys(card["jwks"]):
                problems.append("jwks holds no Ed25519 key")
        except ValueError as exc:
            problems.append(f"jwks: {exc}")
    for flat in ("keys", "expected-user-agent", "rfc9309-product-token", "rate-expectation"):
        if flat in card:
            problems.append(f"{flat} is not a top-level member (registry-04 puts the bot's members in {BOT})")
    bot = card.get(BOT, {})
    if not isinstance(bot, Mapping):
        return [*problems, f"{BOT} must be a JSON object"]
    problems += [f"{BOT}.{n} must be a string" for n in BOT_TEXTS if n in bot and not isinstance(bot[n], str)]
    agent = bot.get("expected-user-agent")
    if agent is not None and not (
        isinstance(agent, str) or (isinstance(agent, list) and all(isinstance(a, str) for a in agent))
    ):
        problems.append(f"{BOT}.expected-user-agent must be a string or a list of strings")
    if "rfc9309-compliance" in bot and not isinstance(bot["rfc9309-compliance"], bool):
        problems.append(f"{BOT}.rfc9309-compliance must be true or false")
    if "trigger" in bot and bot["trigger"] not in TRIGGERS:
        problems.append(f"{BOT}.trigger must be one of {', '.join(TRIGGERS)}")
    for where, member in [(card, n) for n in HTTPS_ONLY] + [(bot, "ips_uri")]:
        value = where.get(member)
        if isinstance(value, str) and not value.startswith("https://"):
            problems.append(f"{member} must be an https URL")
    return list(dict.fromkeys(problems))


def findings(
    card: Mapping[str, Any], *, user_agent: str, token: str, interval: float, purposes: Iterable[str], keyid: str | None
) -> list[str]:
    """Where the running settings are looser than (or not) what the card states."""
    found = validate(card)
    if found:
        return found
    bot = card.get(BOT) or {}
    agents = bot.get("expected-user-agent")
    if agents is None:
        found.append(f"the card states no {BOT}.expected-user-agent")
    elif user_agent not in ([agents] if isinstance(agents, str) else agents):
        found.append(f"the crawl sends User-Agent {user_agent!r}; the card states {agents!r}")
    stated_token = bot.get("rfc9309-product-token")
    if not isinstance(stated_token, str) or stated_token.lower() != token.lower():
        found.append(f"the crawl's product token is {token!r}; the card states {stated_token!r}")
    promised = expected_interval(bot.get("rate-expectation"))
    if promised is None:
        found.append(f"the card's rate-expectation {bot.get('rate-expectation')!r} states no per-host rate")
    elif interval < promised:
        found.append(
            f"WALSH_MIN_INTERVAL is {interval:g} s, looser than the card's rate expectation "
            f"({bot['rate-expectation']!r}: {promised:g} s per host)"
        )
    stated = stated_purposes(card)
    extra = [p for p in purposes if stated is not None and p not in stated]
    if extra:
        found.append(f"WALSH_PURPOSES includes {', '.join(extra)}, which the card does not state")
    if keyid is not None and "jwks" in card and keyid not in webbotauth.directory_keys(card["jwks"]):
        found.append(f"the crawl signs with key {keyid}, which the card does not list")
    return found
