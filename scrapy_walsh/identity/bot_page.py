"""The bot's page: the HTML a site owner reads at the URL our User-Agent names (pure).

What draft-illyes-webbotauth-cbcp asks a crawler operator to say: who operates the bot and how to
reach them, what it is for, how it identifies itself (the exact User-Agent and the robots.txt
product token), how to block it in robots.txt (the exact lines), the rate it keeps and how a site
slows it down, the networks it sends from when they are stated, and how to verify its requests
and its journal. The facts a machine compares (token, interval, keys) are also in ``data-walsh-*``
attributes, so ``scrapy walsh check`` can tell when a page served no longer matches the settings.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from types import MappingProxyType
from typing import Any

#: What each aipref purpose means to a site owner.
PURPOSE_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "search": "building a search index (pages are found and linked, not reused as text)",
        "train-ai": "training AI models",
        "ai-input": "feeding AI applications at answer time",
    }
)
#: The published folder's files (the key directory at its well-known URI).
DIRECTORY = ".well-known/http-message-signatures-directory"
CARD = ".well-known/signature-agent-card.json"
IPS = "ips.json"


@dataclass(frozen=True)
class BotFacts:
    """What the page states, from the settings."""

    token: str
    user_agent: str
    interval: float
    purposes: tuple[str, ...]
    operator: str | None = None
    contact: str | None = None
    policy: str | None = None
    keyids: tuple[str, ...] = ()
    ip_ranges: tuple[str, ...] = ()
    heads: int = 0


def robots_lines(token: str, path: str = "/") -> str:
    """The robots.txt group that keeps the bot out of ``path`` (RFC 9309: matched by product token)."""
    return f"User-agent: {token}\nDisallow: {path}"


def render(facts: BotFacts) -> str:
    """The page: who runs the bot and what for, how to recognise, block and pace it, how to check it."""
    e = html.escape
    who, contact, policy = _operator(facts), _contact(facts), _policy_link(facts)
    purposes, signed, ranges, journal = _purposes(facts), _signing(facts), _networks(facts), _journal(facts)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{e(facts.token)}: about this web crawler</title>{_ranges_link(facts)}
<style>body{{font-family:sans-serif;max-width:46em;margin:2em auto;padding:0 1em;color:#111;line-height:1.45}}
pre,code{{background:#f3f3f3}}pre{{padding:.6em;overflow-x:auto}}h2{{margin-top:1.6em}}</style>
</head><body>
<h1 data-walsh-token="{e(facts.token)}">{e(facts.token)}</h1>
<p>{e(facts.token)} is a web crawler operated by {who}. Contact: {contact}.</p>
{policy}
<h2>What it is for</h2>
<ul>{purposes or "<li>not stated</li>"}</ul>
<h2>How to recognise it</h2>
<p>Every request carries exactly this User-Agent:</p>
<pre data-walsh-user-agent="{e(facts.user_agent)}">{e(facts.user_agent)}</pre>
<p>Its robots.txt product token is <code>{e(facts.token)}</code> (matched case-insensitively, RFC 9309).</p>
<p data-walsh-rendering="no">It does not render pages: it runs no JavaScript and fetches none of the images,
styles or scripts a page refers to; it reads the HTML (and the robots.txt) as your server sends it.</p>
{signed}
{ranges}
<h2>How to block it</h2>
<p>It reads <code>/robots.txt</code> before anything else on a host and follows the group for its token
(or <code>*</code> when there is none). To keep it out of your whole site, add:</p>
<pre>{e(robots_lines(facts.token))}</pre>
<p>To keep it out of one part only, for example <code>/private/</code>:</p>
<pre>{e(robots_lines(facts.token, "/private/"))}</pre>
<p>If robots.txt can't be fetched (a 5xx, a 429, a timeout), it fetches nothing else from the host.
To be left out entirely, write to the contact above: the operator's blocklist is honoured on every request.</p>
<h2>The rate it keeps</h2>
<p data-walsh-interval="{facts.interval:g}">At most one request every {facts.interval:g} s to each host,
one at a time. It goes slower, never faster, when your site asks: a robots.txt <code>Crawl-delay</code> or
<code>Request-rate</code>, <code>RateLimit</code> response fields, a <code>429</code> or <code>503</code>
(with <code>Retry-After</code> honoured), and repeated timeouts, which rest the host.</p>
<h2>Checking what it did</h2>
{journal}
</body></html>
"""


def _operator(facts: BotFacts) -> str:
    """Who operates the bot, as the page names them."""
    return html.escape(facts.operator) if facts.operator else "an operator who has not given a name here"


def _contact(facts: BotFacts) -> str:
    """How to reach the operator: a link, or a plain statement that none is given."""
    e = html.escape
    return (
        f'<a href="{e(_contact_uri(facts.contact))}">{e(facts.contact)}</a>'
        if facts.contact
        else "none given on this page"
    )


def _policy_link(facts: BotFacts) -> str:
    """The paragraph linking the operator's own page about the bot, when there is one."""
    e = html.escape
    return f'<p>More about the bot: <a href="{e(facts.policy)}">{e(facts.policy)}</a></p>' if facts.policy else ""


def _purposes(facts: BotFacts) -> str:
    """The list items saying what the crawl is for."""
    e = html.escape
    return "".join(f"<li><code>{e(p)}</code>: {e(PURPOSE_WORDS.get(p, p))}</li>" for p in facts.purposes)


def _signing(facts: BotFacts) -> str:
    """How requests are signed and with which keys, or that they are not."""
    e = html.escape
    keys = "".join(f"<li><code>{e(k)}</code></li>" for k in facts.keyids)
    return (
        f"<p>Every request is signed (HTTP Message Signatures, Web Bot Auth). The public keys are in the key "
        f'directory <a href="{DIRECTORY}"><code>/{DIRECTORY}</code></a> and in the '
        f'<a href="{CARD}">Signature Agent Card</a>; a valid signature names one of these keys:</p>'
        f'<ul data-walsh-keyids="{e(" ".join(facts.keyids))}">{keys}</ul>'
        if facts.keyids
        else '<p data-walsh-keyids="">Requests are not signed: identify the bot by its User-Agent.</p>'
    )


def _networks(facts: BotFacts) -> str:
    """The networks the bot sends from, or that they are not published."""
    e = html.escape
    return (
        "<p>Requests come only from these networks (also in "
        f'<a rel="client-ranges" href="{IPS}"><code>{IPS}</code></a>):</p>'
        f'<ul data-walsh-ip-ranges="{e(" ".join(facts.ip_ranges))}">'
        + "".join(f"<li><code>{e(r)}</code></li>" for r in facts.ip_ranges)
        + "</ul>"
        if facts.ip_ranges
        else "<p>The networks the bot sends from are not published: rely on the User-Agent and the signature.</p>"
    )


def _ranges_link(facts: BotFacts) -> str:
    """The crawler best practices' link to the published IP ranges (draft-illyes-webbotauth-cbcp)."""
    return f'\n<link rel="client-ranges" href="{IPS}" type="application/json">' if facts.ip_ranges else ""


def _journal(facts: BotFacts) -> str:
    """Where the signed journal heads are, and how a site checks its journal against them."""
    return (
        "<p>Every request is recorded in a signed journal. Its signed heads, one per file, each naming the one "
        "published before it, are in "
        f'<a href="journal-heads.json"><code>journal-heads.json</code></a> ({facts.heads} heads): ask us for '
        "the journal of your site and check it with "
        "<code>scrapy walsh journal verify --published URL_OF_THIS_PAGE</code>. "
        "A journal cut or rewritten after these heads were published fails that check.</p>"
    )


def _contact_uri(contact: str) -> str:
    return contact if ":" in contact else f"mailto:{contact}"


def ip_document(ranges: Iterable[str], created: str) -> dict[str, Any]:
    """The networks as the JSON list large crawlers publish (``ipv4Prefix`` / ``ipv6Prefix``)."""
    return {
        "creationTime": created,
        "prefixes": [{"ipv6Prefix" if ":" in r else "ipv4Prefix": r} for r in ranges],
    }


class _Facts(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name.startswith("data-walsh-") and value is not None:
                self.found.setdefault(name.removeprefix("data-walsh-"), value)


def stated(page: str) -> dict[str, str]:
    """The ``data-walsh-*`` facts a published page states (token, user-agent, interval, keyids ...)."""
    parser = _Facts()
    parser.feed(page)
    return parser.found


def disagreements(page: str, facts: BotFacts) -> list[str]:
    """Where a published page states other facts than the settings (what ``check`` warns about)."""
    found = stated(page)
    problems = []
    if found.get("token", "").lower() != facts.token.lower():
        problems.append(f"the page states product token {found.get('token')!r}; the crawl's is {facts.token!r}")
    if found.get("user-agent") != facts.user_agent:
        problems.append(f"the page states User-Agent {found.get('user-agent')!r}; the crawl sends {facts.user_agent!r}")
    try:
        interval = float(found.get("interval", ""))
    except ValueError:
        interval = None
    if interval is None or abs(interval - facts.interval) > 1e-9:
        problems.append(
            f"the page states {found.get('interval')!r} s between requests to a host; "
            f"WALSH_MIN_INTERVAL is {facts.interval:g} s"
        )
    keyids = set(found.get("keyids", "").split())
    if keyids != set(facts.keyids):
        problems.append(
            f"the page lists keys {sorted(keyids) or 'none'}; the crawl signs with {sorted(facts.keyids) or 'none'}"
        )
    return problems
