"""Every ``WALSH_*`` setting (the preset the add-on applies is :mod:`scrapy_walsh.preset`).

This module is the single source of truth for both tables in the README; a test keeps
them in sync. Defaults are written at Scrapy's ``"default"`` priority, so
``settings.getpriority(name) > 0`` always means "the user chose this".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

SPEC_VERSION = "walsh-research-compliance/v1"

#: R1: the exact header every request carries (the contract (§4.1)).
USER_AGENT = "Mozilla/5.0 (compatible; Walsh-Research/1.0; +https://wal.sh/bot/)"
#: R1/R2: the product token robots.txt groups are matched against, case-insensitively.
ROBOTS_TOKEN = "Walsh-Research"
#: R3: where the operator publishes opt-outs (the contract (§4.2)).
BLOCKLIST_URL = "https://wal.sh/.well-known/walsh-research/blocklist.json"
#: R3: the published JSON Schema of ``walsh-research-blocklist/v1`` (the contract (§4.2)).
BLOCKLIST_SCHEMA_URL = "https://wal.sh/.well-known/walsh-research/blocklist.schema.json"
#: The paths of the two on an operator's site (the live check's conformance site serves them there).
BLOCKLIST_PATH = "/.well-known/walsh-research/blocklist.json"
BLOCKLIST_SCHEMA_PATH = "/.well-known/walsh-research/blocklist.schema.json"
#: R2: RFC 9309 §2.4, robots.txt is cached at most 24 hours.
ROBOTS_CACHE_SECONDS = 86400
#: R4: the absolute floor between two requests to one host, in seconds.
MIN_INTERVAL_FLOOR = 1.0
#: R4/R5: the lowest ``DOWNLOAD_TIMEOUT`` / ``meta["download_timeout"]``, in seconds. A request we
#: abandon sooner is still being answered when its retry or the host's next request goes out;
#: 5 s is five minimum intervals, and above the time a healthy server takes to start answering.
DOWNLOAD_TIMEOUT_FLOOR = 5.0
#: The preset's ``DOWNLOAD_TIMEOUT``, the time budget of one request, in seconds. The
#: crawl is serial (R4): while one server makes us wait, every other host waits too, so the
#: budget is what one hanging server costs everyone. 30 s lets a healthy server start answering
#: (well under a second) and deliver a body of ``WALSH_MAX_BODY_BYTES`` at about 2 Mbit/s;
#: Scrapy's 180 s costs six times as much per hang (at 1 % of 10,000 hosts: 5 h instead of 50 min).
DOWNLOAD_TIMEOUT = 30.0
#: How long an origin whose robots.txt was unreachable, or a host that timed out,
#: is left alone before it is asked again (seconds).
RECHECK_INTERVAL = 600.0
#: The decoded bytes of a page we read at most (see scrapy_walsh.policy.bounds). Items
#: carry metadata only (R6), and 8 MiB is far above what an HTML page, a feed or a markdown twin
#: weighs (the HTTP Archive's median HTML document is about 30 KB, its 99th percentile under 1 MB).
MAX_BODY_BYTES = 8 * 1024 * 1024
#: Scrapy's default ``RETRY_HTTP_CODES``.
SCRAPY_RETRY_HTTP_CODES = (500, 502, 503, 504, 522, 524, 408, 429)


@dataclass(frozen=True)
class WalshSetting:
    name: str
    default: Any
    #: the requirement the setting serves, by name ("R4", "address rule (SSRF)" ...)
    requirement: str
    doc: str
    #: the values that make the crawl looser than the specification asks, and what they relax;
    #: empty for a setting that can only make it stricter (docs/loosening.md lists the same)
    loosens: str = ""


WALSH_SETTINGS: tuple[WalshSetting, ...] = (
    WalshSetting(
        "WALSH_USER_AGENT",
        USER_AGENT,
        "R1",
        "The exact `User-Agent` of every request, robots.txt, blocklist and retries "
        "included. Any other value set by a spider, a request or `USER_AGENT` is "
        "overridden, logged once and counted. Another value runs the package as another operator's "
        "bot (said once at INFO, held to every requirement): set `WALSH_ROBOTS_TOKEN` and "
        "`WALSH_BLOCKLIST_URL` with it.",
    ),
    WalshSetting(
        "WALSH_ROBOTS_TOKEN",
        ROBOTS_TOKEN,
        "R1, R2",
        "The product token matched, case-insensitively, against robots.txt "
        "`User-agent` lines. Letters, `_` and `-` only (RFC 9309 §2.2.1).",
        loosens="Under the Walsh-Research User-Agent, another token makes the robots.txt groups sites write "
        "for `Walsh-Research` not apply (R2); the audit warns when the token is not in `WALSH_USER_AGENT`. "
        "With your own `WALSH_USER_AGENT`, it is your bot's token.",
    ),
    WalshSetting(
        "WALSH_BLOCKLIST_URL",
        BLOCKLIST_URL,
        "R3",
        "The operator blocklist (`walsh-research-blocklist/v1`). Must be an "
        "absolute http(s) URL. Read by the blocklist gate.",
        loosens="Under the Walsh-Research User-Agent, another list gives up that operator's opt-outs (R3). "
        "With your own `WALSH_USER_AGENT` and `WALSH_ROBOTS_TOKEN`, it is your bot's list.",
    ),
    WalshSetting(
        "WALSH_BLOCKLIST_SCHEMA_URL",
        BLOCKLIST_SCHEMA_URL,
        "R3",
        "The published schema the blocklist is validated against (format checks on). "
        "When it can't be fetched or isn't a valid draft 2020-12 schema, the last "
        "stored copy, then the copy bundled in the package, is used. `None`: bundled only.",
    ),
    WalshSetting(
        "WALSH_BLOCKLIST_EXTRA",
        [],
        "R3",
        "Local opt-outs added to the operator list: a list of domains, each blocking "
        "itself and its subdomains. A malformed domain stops the crawl at start.",
    ),
    WalshSetting(
        "WALSH_BLOCKLIST_OPERATOR",
        None,
        "R3",
        "`operator` of a blocklist file created by `scrapy walsh blocklist add` "
        "(when `--operator` is not given). Not read by crawls. Deprecated: pass `--operator` to "
        "`blocklist add` or `publish`; read, with a warning, in this release only.",
    ),
    WalshSetting(
        "WALSH_BLOCKLIST_CONTACT",
        None,
        "R3",
        "`contact` of a blocklist file created by `scrapy walsh blocklist add` "
        "(when `--contact` is not given), and the `contacts` of the Signature Agent Card "
        "(`scrapy walsh keys card`). Not read by crawls. Deprecated: pass `--contact` to "
        "`blocklist add`, `keys card` or `publish`; read, with a warning, in this release only.",
    ),
    WalshSetting(
        "WALSH_BLOCKLIST_POLICY",
        None,
        "R3",
        "`policy` (an absolute URI) of a blocklist file created by `scrapy walsh blocklist add` "
        "(when `--policy` is not given), and the `client_uri` of the Signature Agent Card "
        "(`scrapy walsh keys card`). Not read by crawls. Deprecated: pass `--policy` to "
        "`blocklist add`, `keys card` or `publish`; read, with a warning, in this release only.",
    ),
    WalshSetting(
        "WALSH_BLOCKLIST_REFRESH",
        None,
        "R3",
        "`refresh` (ISO-8601 duration, e.g. `PT6H`) of a blocklist file created by "
        "`scrapy walsh blocklist add` (when `--refresh` is not given; optional). Not read by crawls. "
        "Deprecated: pass `--refresh`; read, with a warning, in this release only.",
    ),
    WalshSetting(
        "WALSH_ROBOTS_MODE",
        "respect",
        "R2",
        "`respect` blocks `disallowed_explicit` and `unknown_unreachable`. `report_only` "
        "records the verdict and fetches anyway; `ignore` never fetches robots.txt "
        "(`skipped_by_user_policy`). Both are for auditing sites you run: they do not "
        "meet R2, and the crawl says so in a WARNING at start and in the summary.",
        loosens='`"report_only"` (robots.txt read and recorded, not obeyed) and `"ignore"` (not fetched) give up R2.',
    ),
    WalshSetting(
        "WALSH_ROBOTS_CACHE_SECONDS",
        ROBOTS_CACHE_SECONDS,
        "R2",
        "How long a robots.txt outcome is reused, across runs, from the state store. "
        "0 < value <= 86400 (RFC 9309 §2.4).",
    ),
    WalshSetting(
        "WALSH_MIN_INTERVAL",
        MIN_INTERVAL_FLOOR,
        "R4",
        "Seconds between the starts of two requests to one host. May be raised, "
        "never lowered under 1.0. The add-on derives `DOWNLOAD_DELAY` from it.",
    ),
    WalshSetting(
        "WALSH_MAX_CRAWL_DELAY",
        60.0,
        "R4",
        "A host whose robots.txt Crawl-delay is longer is not crawled: its requests are "
        "refused with `crawl_delay_exceeds_cap`, logged once per host (never clamped).",
    ),
    WalshSetting(
        "WALSH_BACKOFF_HTTP_CODES",
        [429, 503],
        "R5",
        "Statuses that pause the host and are retried with backoff. Must include 429 and "
        "503; the add-on removes them from Scrapy's `RETRY_HTTP_CODES`.",
    ),
    WalshSetting(
        "WALSH_BACKOFF_BASE",
        1.0,
        "R5",
        "Seconds: without `Retry-After`, attempt n waits `uniform(0, min(MAX_DELAY, BASE × 2^n))`, "
        "never under the host's pacing interval.",
    ),
    WalshSetting(
        "WALSH_BACKOFF_MAX_DELAY",
        3600.0,
        "R5",
        "The longest pause we wait out. A `Retry-After` beyond it means giving up on the "
        "request (and refusing the host's other requests while the pause lasts), never "
        "retrying early.",
    ),
    WalshSetting(
        "WALSH_BACKOFF_MAX_RETRIES",
        5,
        "R5",
        "Retries per request; after the last, the response goes on down the chain (`walsh/backoff/gave_up`).",
    ),
    WalshSetting(
        "WALSH_MAX_FIELD_CHARS",
        2000,
        "R6",
        "The longest string an item may carry, nested values included; longer means a "
        "page body, and the item is dropped naming the field. Bytes are always refused.",
        loosens="A value above 2000 relaxes R6: more of a page body passes as metadata.",
    ),
    WalshSetting(
        "WALSH_REFETCH_INTERVAL",
        86400,
        "R8",
        "Seconds before a target that got a final answer (any status) may be fetched again; earlier "
        "requests are skipped with `skipped_recently_fetched`. `0` disables the guard "
        "(a WARNING naming R8).",
        loosens="A value under 86400 (a day) relaxes R8; `0` turns the guard off.",
    ),
    WalshSetting(
        "WALSH_DEDUP_RESET",
        False,
        "R7",
        "`True` makes the spider forget, at start, which item URLs it already emitted "
        "(a deliberate re-harvest). Set it for one run, not in `settings.py`.",
    ),
    WalshSetting(
        "WALSH_DEDUP_KEY",
        "url",
        "R7",
        "What makes two items the same for R7's dedup: the name of an item field (default "
        '`"url"`, read as a canonical URL as the contract says), or the import path of a callable '
        "`f(item) -> str | None`. Set it when one page yields several items that share the page's "
        'URL, e.g. `WALSH_DEDUP_KEY = "sku"`. An item without a key is not deduplicated.',
    ),
    WalshSetting(
        "WALSH_ALLOW_PRIVATE_ADDRESSES",
        False,
        "address rule (SSRF)",
        '`False`, `True`, or a list of CIDR networks (e.g. `["127.0.0.2/32"]`) the '
        "crawler may reach although they are loopback or private. For local demos "
        "and tests only.",
        loosens="`True`, or a list of networks, relaxes the address rule, for sites you run.",
    ),
    WalshSetting(
        "WALSH_SIGNING_KEY",
        None,
        "R1 (verifiable)",
        "Path of the operator's Ed25519 private key (PEM, PKCS#8) for Web Bot Auth: "
        "`scrapy walsh keys generate PATH` writes one, `scrapy walsh keys directory` prints its "
        "key directory. With it (and `WALSH_SIGNATURE_AGENT`), every request is signed at the "
        "checkpoint; a key that can't be read stops the start.",
    ),
    WalshSetting(
        "WALSH_SIGNATURE_AGENT",
        None,
        "R1 (verifiable)",
        "The https URL of the operator's key directory "
        "(`/.well-known/http-message-signatures-directory`), sent as `Signature-Agent`.",
    ),
    WalshSetting(
        "WALSH_STATE_URI",
        None,
        "R3, R7",
        "Where persistent state lives: `sqlite:///relative.sqlite3`, "
        "`sqlite:////absolute.sqlite3`. `None` means the identity's one store on this machine, "
        "`$XDG_STATE_HOME/scrapy-walsh/<identity>.sqlite3` (`~/.local/state` without XDG_STATE_HOME), "
        "shared by every project and command of the identity. `redis://host:port/db` (extra `redis`) "
        "shares it with every process of the identity on any machine: fleet mode.",
    ),
    WalshSetting(
        "WALSH_SEPARATE_BOT",
        False,
        "R4",
        "`True`: this project is a bot of its own on purpose, so its state store may differ from the one "
        "another crawl of the identity uses on this machine at the same time. By default such a second "
        "store is refused at start, naming both: two stores pace as strangers, and one host would get the "
        "requests of both, each under 1 s after the other (the one rate R4 sets for the identity is then "
        "yours to keep).",
        loosens="`True` relaxes R4 for the identity: two of its stores pace as strangers, so one host may get "
        "the requests of both less than the interval apart.",
    ),
    WalshSetting(
        "WALSH_PACE_BY",
        "host",
        "R4",
        "What one pacing interval covers: `host` (the canonical host name, the default: one IP "
        "address may serve thousands of unrelated sites on shared hosting) or `ip` (the address "
        "the name resolved to, so aliases and IP literals of one server share its interval).",
    ),
    WalshSetting(
        "WALSH_PURPOSES",
        None,
        "usage preferences",
        "The uses made of what the crawl collects, as aipref labels: `search`, `train-ai`, "
        "`ai-input` (a list, or a comma-separated string). `None` (not declared, the default; `check` "
        "says so) means all three: an undeclared use may be any use, so every reservation counts.",
    ),
    WalshSetting(
        "WALSH_USAGE_MODE",
        "report",
        "usage preferences",
        "`report`: every item carries the site's usage decision (`walsh.usage`), counted. "
        "`respect`: items whose source reserves one of `WALSH_PURPOSES` are dropped, and a "
        "target whose robots.txt already reserves one is not fetched.",
    ),
    WalshSetting(
        "WALSH_MAX_ITEM_CHARS",
        40000,
        "R6",
        "The most characters an item may carry in all its strings together, nested values "
        "included: a body cut into many short strings is still a body, and the item is dropped. "
        "A StructuredSourceSpider's outlines and llms.txt sections fit in 30,000 (the rest is "
        "counted as omitted).",
        loosens="A value above 40000 relaxes R6, the same bound over all of an item's strings.",
    ),
    WalshSetting(
        "WALSH_DOWNLOAD_HANDLER",
        "scrapy.core.downloader.handlers.http11.HTTP11DownloadHandler",
        "R1-R6",
        "The download handler the checkpoint wraps for http and https (the preset routes both "
        "schemes to `scrapy_walsh.sending.checkpoint.CheckpointDownloadHandler`). Set this, not "
        "`DOWNLOAD_HANDLERS`, to use another handler; its connection pool's silent resend is "
        "turned off when it has one.",
    ),
    WalshSetting(
        "WALSH_SIGNATURE_AGENT_FORM",
        "string",
        "R1 (verifiable)",
        '`"string"`: `Signature-Agent: "URL"`, covered whole as `"signature-agent"`, which strict '
        "RFC 9421 verifiers, Cloudflare's and the npm `web-bot-auth` library all verify. "
        '`"dictionary"`: the current draft\'s `Signature-Agent: sig1="URL"`, covered as '
        '`"signature-agent";key="sig1"`, which `web-bot-auth` rejects '
        "([verifiable identity](../verifiable-identity.md)).",
    ),
    WalshSetting(
        "WALSH_MAX_BODY_BYTES",
        MAX_BODY_BYTES,
        "hostile servers (bounded reads)",
        "The most bytes a response body may have after decompression (8 MiB). A longer one is "
        "refused (`ResponseTooLarge`, `walsh/bounds/refused/<kind>`) as soon as it goes over, so "
        "a compression bomb never takes the memory. robots.txt is read up to its parse limit "
        "instead; sitemaps may have 50 MiB. The add-on derives `DOWNLOAD_MAXSIZE` from it.",
    ),
    WalshSetting(
        "WALSH_RECHECK_INTERVAL",
        RECHECK_INTERVAL,
        "R2, R5",
        "Seconds before an origin whose robots.txt was unreachable (5xx, 429, a network error, "
        "a timeout) is asked again (not before its host's pause is over), and the pause of a host "
        "after a request to it timed out, doubled for each timeout in a row (at most a day): a "
        "hanging server costs the crawl one `DOWNLOAD_TIMEOUT` per pause.",
    ),
    WalshSetting(
        "WALSH_JOURNAL",
        True,
        "proof of conformance",
        "The request journal: each request is recorded before it is sent, and a request that cannot be "
        "recorded is not sent ([what the journal proves](../journal-proof.md)). `False` switches it off, to "
        "measure its cost (bench/scale_bench.py --journal-cost): a loosening the crawl announces, after which nothing "
        "proves what was sent.",
        loosens="`False` gives up the proof of conformance: nothing records what the crawl sent.",
    ),
    WalshSetting(
        "WALSH_JOURNAL_DIR",
        None,
        "proof of conformance",
        "Where the request journal is written (one file per process per UTC day, hash-chained, "
        "signed with `WALSH_SIGNING_KEY` when set). `None`: beside the state store, "
        "`<state dir>/<identity>.journal/` ([the journal](../journal.md)).",
    ),
    WalshSetting(
        "WALSH_JOURNAL_RETENTION_DAYS",
        90,
        "proof of conformance",
        "Days of journal kept: older whole days are deleted when a crawl starts, and the deletion "
        "is recorded in the new day's chain.",
    ),
    WalshSetting(
        "WALSH_JOURNAL_SIGN_EVERY",
        1000,
        "proof of conformance",
        "With a signing key, a signed chain head is appended after this many entries (and always at crawl close).",
    ),
    WalshSetting(
        "WALSH_IP_RANGES",
        None,
        "R1",
        "The networks the bot sends its requests from (CIDR, a list or a comma-separated string), "
        "stated on the bot's page and in its `ips.json` (`scrapy walsh publish`). Not read by crawls. "
        "Deprecated: pass `--ip-range` to `publish` (once per network); read, with a warning, in this release only.",
    ),
    WalshSetting(
        "WALSH_PUBLISHED",
        None,
        "R1",
        "Where the output of `scrapy walsh publish` is (a folder, or the https URL it is served at): "
        "`scrapy walsh check` warns when the published page, card or key directory disagrees with "
        "the settings (product token, User-Agent, rate, keys). An https URL also makes `publish` write a "
        "card that names itself (`client_id`) and its key directory (`jwks_uri`). Not read by crawls. "
        "Deprecated: pass `--published` to `check`, `keys card` or `publish`; read, with a warning, in this "
        "release only.",
    ),
    WalshSetting(
        "WALSH_PROGRESS_INTERVAL",
        60.0,
        "R4",
        "Seconds between two progress lines (logger `scrapy_walsh.outputs.progress`, in the style of Scrapy's "
        "LogStats; the first comes after 10 s when this is longer): targets done, refused and left, and the "
        "time left by the pacing bound, or, while manifests are read, how many; also the "
        "`walsh/progress/*` stats. 0 switches it off.",
    ),
    WalshSetting(
        "WALSH_DISCOVERY",
        None,
        "R6",
        'Manifest kinds read for declared targets: `"sitemap"`, `"feed"`, `"llms.txt"`. They are '
        "read, through every gate, for the hosts of the spider's `start_urls` and `allowed_domains`; a URL "
        "they list becomes a target when the spider's routing names it (a `CrawlSpider`'s rules with a "
        "callback, or `WALSH_DISCOVERY_ROUTES`). Unset, a spider with `rules` or routes reads the sitemap "
        '(`["sitemap"]`) and any other spider none; `[]` turns discovery off. A `SitemapSpider` needs no '
        'setting. See "Link-following projects".',
    ),
    WalshSetting(
        "WALSH_DISCOVERY_ROUTES",
        {},
        "R6",
        "`{regex: callback name}`: which discovered URLs are targets of a spider that is neither a "
        "`CrawlSpider` nor a `SitemapSpider`, and the method that parses each (setting it turns discovery "
        "on, reading the sitemap). A URL no route names is not fetched. `scrapy walsh check` prints the "
        "line for a spider that follows links.",
    ),
)

SETTINGS_BY_NAME: Mapping[str, WalshSetting] = MappingProxyType({s.name: s for s in WALSH_SETTINGS})


def download_handlers() -> dict[str, str | None]:
    """``DOWNLOAD_HANDLERS`` of the preset: the checkpoint for http(s), ``None`` for every
    other scheme Scrapy knows."""
    from scrapy.settings.default_settings import DOWNLOAD_HANDLERS_BASE

    handlers: dict[str, str | None] = dict.fromkeys(DOWNLOAD_HANDLERS_BASE)
    handlers.update(dict.fromkeys(CHECKPOINT_SCHEMES, CHECKPOINT_HANDLER))
    return handlers


#: The exception a server that never answers in time raises (not retried by Scrapy at once).
TIMEOUT_EXCEPTION = "scrapy.exceptions.DownloadTimeoutError"


def retry_exceptions() -> list[Any]:
    """``RETRY_EXCEPTIONS`` of the preset: Scrapy's, without the timeout (R5 retries it)."""
    from scrapy.settings.default_settings import RETRY_EXCEPTIONS

    return [e for e in RETRY_EXCEPTIONS if e != TIMEOUT_EXCEPTION]


CHECKPOINT_HANDLER = "scrapy_walsh.sending.checkpoint.CheckpointDownloadHandler"
CHECKPOINT_SCHEMES = ("http", "https")
