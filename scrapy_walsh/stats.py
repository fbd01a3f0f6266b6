"""Every stat the package writes, with its meaning: the registry of ``walsh/...`` stats keys.

Stats are the machine-readable account of a crawl (``crawler.stats``; Scrapy dumps them at
the end). Keys are documented here, once: the reference page (docs/reference/stats) is
generated from :data:`STATS`, and a test checks that every key the code writes is listed.
``<name>`` in a key stands for one path segment (a host, a gate, a verdict ...).
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Stat(NamedTuple):
    key: str
    meaning: str


STATS: tuple[Stat, ...] = (
    Stat(
        "walsh/spec_version",
        "`walsh-research-compliance/v1`, so stats dumps are comparable.",
    ),
    Stat(
        "walsh/identity/user_agent",
        "The User-Agent every request carried.",
    ),
    Stat(
        "walsh/identity/ua_overridden",
        "Requests that reached the checkpoint with another User-Agent (spider attribute, request "
        "header, `USER_AGENT`, any middleware) and were corrected there.",
    ),
    Stat(
        "walsh/requests/sent",
        "Requests that reached a server, every kind included (robots.txt, the blocklist, retries): a"
        " response came back, or the download failed after connecting. A name that did not resolve, a"
        " refused connection and the address guard's connect-time refusal sent nothing and are not counted.",
    ),
    Stat(
        "walsh/requests/not_connected/<why>",
        "Downloads that failed before anything was sent: `dns` (the name did not resolve) or `refused` "
        "(the connection was refused or could not be made). Not counted as sent.",
    ),
    Stat(
        "walsh/requests/failed/<exception>",
        "Downloads that failed after connecting (a timeout, a reset, data loss), per exception class; "
        "counted as sent, since the server may have seen them.",
    ),
    Stat(
        "walsh/requests/host/<host>",
        "The same, per host name.",
    ),
    Stat(
        "walsh/requests/max_in_flight",
        "The most requests on the network at once in the whole process, counted at the checkpoint from "
        "the reservation to the answer (R4 requires 1). The downloader also holds the next request, "
        "prepared behind the checkpoint's lock; it is not on the network and not counted.",
    ),
    Stat(
        "walsh/denied",
        "Requests a gate refused, in total.",
    ),
    Stat(
        "walsh/denied/<gate>",
        "… per gate (`blocklist`, `robots`, `scope`, …).",
    ),
    Stat(
        "walsh/denied/<gate>/<verdict>",
        "… per gate and verdict.",
    ),
    Stat(
        "walsh/blocklist/local_copy",
        "1 when the list in force at start came from this machine's copy of the last adopted list, the "
        "state store having none (a store started afresh) or an older one (R3: never an empty list).",
    ),
    Stat(
        "walsh/blocklist/source",
        "Where the list in force came from: `fetched`, `stored` (the last adopted list, from the state "
        "store), `empty` (first-ever failure) or `refused` (the stored list passes no schema and no fresh "
        "one could be had: every request is refused, R3 fails closed).",
    ),
    Stat(
        "walsh/blocklist/entries",
        "Entries in force, `WALSH_BLOCKLIST_EXTRA` included.",
    ),
    Stat(
        "walsh/blocklist/adopted/<source>",
        "Lists adopted, per source (`fetched`, `stored`).",
    ),
    Stat(
        "walsh/blocklist/fetch_failed",
        "Fetches that failed (network, non-200, invalid); the previous list was kept.",
    ),
    Stat(
        "walsh/blocklist/rejected",
        "Fetched lists that failed validation and were not adopted.",
    ),
    Stat(
        "walsh/store/failures",
        "State store operations that failed mid-run (the first stops the crawl, with one ERROR and exit status 1).",
    ),
    Stat(
        "walsh/store/failed_unsent",
        "Requests not sent because the state store failed (a full disk, a broken file); the crawl stops at the first.",
    ),
    Stat(
        "walsh/blocklist/refresh_deferred",
        "Refreshes put off because the list's host was paused or in its interval (the list in force was kept).",
    ),
    Stat(
        "walsh/blocklist/older_refused",
        "Fetched lists whose ``updated`` is older than the adopted list's: not adopted (R3).",
    ),
    Stat(
        "walsh/blocklist/stored_rejected",
        "A stored list that passes neither the schema it was adopted with nor the bundled one: never "
        "replaced by an empty list (a fresh list, or every request refused).",
    ),
    Stat(
        "walsh/blocklist/empty_first_failure",
        "1 when no list was ever adopted and the first fetch failed: crawling with an empty operator list.",
    ),
    Stat(
        "walsh/blocklist/schema",
        "Which schema validated the list: `published` (fetched in this run), `cached` (the published one, "
        "fetched within a day), `stored` (an older copy, when it can't be fetched) or `bundled`.",
    ),
    Stat(
        "walsh/blocklist/blocked",
        "Requests refused by the blocklist (also under `walsh/denied/blocklist/...`).",
    ),
    Stat(
        "walsh/blocklist/redirect_blocked",
        "… of which redirect hops into a blocked domain.",
    ),
    Stat(
        "walsh/blocklist/robots_blocked",
        "… of which robots.txt fetches (a robots.txt redirecting into a blocked domain).",
    ),
    Stat(
        "walsh/robots/mode",
        '`WALSH_ROBOTS_MODE` of the run; the summary flags anything but `respect` as "R2 NOT ENFORCED".',
    ),
    Stat(
        "walsh/robots/verdict/<verdict>",
        "Requests evaluated by the robots gate, per robots.txt verdict of the policy model, in every mode.",
    ),
    Stat(
        "walsh/robots/fetched",
        "Origins whose robots.txt was fetched.",
    ),
    Stat(
        "walsh/robots/status/<code>",
        "… per final HTTP status.",
    ),
    Stat(
        "walsh/robots/redirects",
        "robots.txt redirect hops followed (at most 5 per origin).",
    ),
    Stat(
        "walsh/robots/redirect_scheme_refused",
        "robots.txt redirects to a non-http(s) URL (file://, ftp:// ...): not followed, nothing read; "
        "robots.txt is unreachable.",
    ),
    Stat(
        "walsh/robots/cache_hit",
        "Origins whose robots.txt came from the state store (fetched by an earlier run within "
        "`WALSH_ROBOTS_CACHE_SECONDS`).",
    ),
    Stat(
        "walsh/robots/unreachable",
        "robots.txt fetches that answered 5xx/429 or failed at the network.",
    ),
    Stat(
        "walsh/robotstxt/unreachable",
        "Without the add-on, scrapy_walsh.RobotsTxtMiddleware: requests refused because their "
        "origin's robots.txt answered 5xx/429 or failed at the network (RFC 9309 §2.3.1.4).",
    ),
    Stat(
        "walsh/robots/stale_used",
        "… where a stored copy under 30 days old stood in.",
    ),
    Stat(
        "walsh/robots/report_only_fetched",
        "Requests fetched although robots.txt refused them (`report_only`).",
    ),
    Stat(
        "walsh/scope/followups_dropped",
        "Requests yielded from callbacks or errbacks (or scheduled any other way around the spider "
        "middlewares) and dropped: only declared targets are fetched (R6).",
    ),
    Stat(
        "walsh/discovery/targets",
        "URLs the site's manifests listed that the spider's routing names: declared targets (R6), "
        "each still meets every gate.",
    ),
    Stat(
        "walsh/discovery/not_routed",
        "URLs the manifests listed (or start URLs) that no route of the spider names: not fetched (R6).",
    ),
    Stat(
        "walsh/discovery/lastmod_unchanged",
        "Targets whose manifest `lastmod` is not newer than our last fetch of them: not fetched (R7).",
    ),
    Stat(
        "walsh/discovery/changed",
        "Of the targets, pages fetched before whose manifest `lastmod` is newer than our last fetch: "
        "fetched again (after `WALSH_REFETCH_INTERVAL`), their items delivered as updates (R7).",
    ),
    Stat(
        "walsh/discovery/updates_unmarked",
        "Items of a changed page that can't carry `walsh.update` (an Item class without a `walsh` "
        "field): delivered as updates all the same, without the mark (R7).",
    ),
    Stat(
        "walsh/discovery/<skip>",
        "URLs discovery did not declare, per reason: `not_routed`, `lastmod_unchanged`, `other_host` (listed "
        "by another host's manifest), `unsafe_url` (not an http(s) URL, or parsers read different hosts in it), "
        "`over_bound` (past the targets one run takes from manifests).",
    ),
    Stat("walsh/discovery/manifests_requested", "Manifests (sitemaps, feeds, llms.txt) asked for, through the gates."),
    Stat("walsh/discovery/manifests_read", "Manifests that answered 2xx and were read."),
    Stat("walsh/discovery/manifests_unreadable", "Manifests refused by a gate, failed, not 2xx, or not readable."),
    Stat("walsh/discovery/manifests_over_bound", "Manifests of a host past the number read per host."),
    Stat(
        "walsh/discovery/manifests_given_up",
        "Manifests still answering 429/503 (or another retried status, or failing on the network) after "
        "the retries a page gets (R5): given up with a WARNING naming each; the pages they list are not "
        "fetched this run. Also counted in `manifests_unreadable`.",
    ),
    Stat(
        "walsh/scope/shell_declared",
        "Requests `scrapy shell` scheduled for a URL typed at the prompt (or on its command line): declared targets.",
    ),
    Stat(
        "walsh/scope/followups_already_declared",
        "Follow-ups dropped because their URL is a declared target of its own (fetched as that target).",
    ),
    Stat(
        "walsh/items/content_rejected",
        "Items dropped for carrying content (a string over `WALSH_MAX_FIELD_CHARS`, or bytes).",
    ),
    Stat(
        "walsh/progress/done",
        "Targets answered so far (`WALSH_PROGRESS_INTERVAL`; robots.txt and the blocklist are not targets).",
    ),
    Stat(
        "walsh/progress/refused",
        "Requests refused by a gate so far (the same count as `walsh/denied`).",
    ),
    Stat(
        "walsh/progress/left",
        "Targets waiting in the scheduler at the last progress line (0 at the end of a finished crawl).",
    ),
    Stat(
        "walsh/progress/seconds_left",
        "Seconds until the last waiting target may start, by the pacing bound (R4): the longest host's queue.",
    ),
    Stat(
        "walsh/items/content_added",
        "Items dropped after the project's pipelines, one of which added content to them (R6, checked last too).",
    ),
    Stat(
        "walsh/conditional/sent",
        "Requests sent with `If-None-Match` / `If-Modified-Since` from stored validators.",
    ),
    Stat(
        "walsh/conditional/not_modified",
        "304 answers to them: no new data, callback not called.",
    ),
    Stat(
        "walsh/conditional/validators_stored",
        "Responses whose `ETag` / `Last-Modified` were stored.",
    ),
    Stat(
        "walsh/frequency/server_error",
        "Declared targets whose final answer, after the retries, was a 5xx: counted as fetched (R8), listed "
        "in the summary and by `scrapy walsh state show`.",
    ),
    Stat(
        "walsh/frequency/server_error_urls",
        "The first 20 of them, each with its status.",
    ),
    Stat(
        "walsh/frequency/callback_error",
        "Declared targets whose callback raised: counted as fetched (R8: the server was hit) once the items "
        "it yielded before the exception left the pipelines; listed in the summary and by `scrapy walsh "
        "state show`, `scrapy walsh state forget URL` fetches one again once the spider is fixed.",
    ),
    Stat(
        "walsh/frequency/callback_error_urls",
        "The first 20 of them.",
    ),
    Stat(
        "walsh/frequency/refused",
        "Declared targets whose answer was refused as too large (`walsh/bounds/refused/<kind>`): counted as "
        "fetched (R8), so not downloaded again within `WALSH_REFETCH_INTERVAL`; `scrapy walsh state show` "
        "lists them.",
    ),
    Stat(
        "walsh/frequency/deferred_records",
        "Attempts to record an answer while the state store was away (a fleet's Redis down): the record "
        "is written when the store answers again, or said in the crawl's closing message.",
    ),
    Stat(
        "walsh/frequency/unmarked",
        "Answers not recorded as fetched because an item of theirs could be neither delivered nor kept: "
        "the next run fetches those pages again.",
    ),
    Stat(
        "walsh/outputs/failed",
        "Item writes an output refused: a feed (a full disk, an exporter that raised) or an item pipeline "
        "that raised. The first stops the crawl (close reason `walsh_output_failed`, exit status 1).",
    ),
    Stat(
        "walsh/outputs/kept",
        "Items an output could not take, kept in the state store (`undelivered:<spider>`): the spider's "
        "next run delivers them first, without fetching their pages again.",
    ),
    Stat(
        "walsh/outputs/not_kept",
        "Items an output could not take and the state store could not keep (the store failed, or JSON "
        "can't hold a value): their pages are left unmarked (R8), so the next run fetches them again.",
    ),
    Stat(
        "walsh/outputs/redelivered",
        "Items kept by an earlier run, delivered by this one (and removed from the store).",
    ),
    Stat(
        "walsh/dedup/first_seen",
        "Items emitted for a URL this spider never emitted before.",
    ),
    Stat(
        "walsh/dedup/updates",
        "Items of a page fetched again because its manifest's `lastmod` is newer, already emitted "
        "before: delivered again, marked `walsh.update` (R7).",
    ),
    Stat(
        "walsh/dedup/dropped",
        "Items dropped because their URL was already emitted (this run or an earlier one).",
    ),
    Stat(
        "walsh/dedup/shared_key",
        "Of the dropped items, those whose key another item of the same crawl already had "
        "(several items of one page share it: see `WALSH_DEDUP_KEY`).",
    ),
    Stat(
        "walsh/dedup/unchecked",
        "Items delivered without the R7 check: the crawl was stopping while the state store was away "
        "(a fleet's Redis down). A later run may deliver them again.",
    ),
    Stat(
        "walsh/dedup/no_url",
        "Items without a dedup key (`WALSH_DEDUP_KEY`, the `url` field by default), passed unchanged.",
    ),
    Stat(
        "walsh/pacing/wait_seconds",
        "Time a request waited in the pacing middleware because no other host was ready sooner.",
    ),
    Stat(
        "walsh/pacing/requeued",
        "Requests sent back to the scheduler because another host was ready sooner (their gate verdicts "
        "are counted once).",
    ),
    Stat(
        "walsh/robots/requeued_after_fetch",
        "Of those, the ones the robots.txt gate sent back right after fetching their host's robots.txt "
        "(the host must now wait its interval), before the later gates.",
    ),
    Stat(
        "walsh/pacing/confirmed_late",
        "Requests written more than 9 ms after their reservation (a new connection on a busy machine, a "
        "slow connect), whose start the store stamped again as they left: one store step more each.",
    ),
    Stat(
        "walsh/pacing/stamped_after_write",
        "Requests whose bytes left more than 9 ms after the store call that stamped their start (a slow "
        "answer from the store, a stalled process), stamped again once out so that the host's next request "
        "counts from the write: one store step more each.",
    ),
    Stat(
        "walsh/pacing/written_after_lapse",
        "Of those, the ones that found another process's start or a pause already there (the process "
        "stalled for longer than the host's slot between the stamp and the write): each is logged as a "
        "warning, and its start is written all the same, so the host's next request counts from it.",
    ),
    Stat(
        "walsh/pacing/clock_step_hosts",
        "Pacing-ledger entries (hosts and addresses) a clock step had left ahead of this clock (it was set back "
        "since, or a run's clock was ahead), mended: their starts count from now and a pause keeps the length "
        "the site asked for, so no host is held or refused for the step. Said once per crawl at WARNING.",
    ),
    Stat(
        "walsh/checkpoint/slot_taken",
        "Requests the checkpoint found without a free pacing slot (another process, an internal fetch or an "
        "`engine.download` took it first): nothing sent; they waited or were requeued.",
    ),
    Stat(
        "walsh/url/resolved",
        "Requests whose path held dot segments (`/a/../b`, `%2e`): sent again with them removed, as servers "
        "resolve them, and judged by every gate in that form.",
    ),
    Stat(
        "walsh/checkpoint/not_written",
        "Requests connected but not written: their host lease lapsed while they connected and another "
        "process took the host, or the store could not confirm the slot; they waited and went again.",
    ),
    Stat(
        "walsh/checkpoint/redone/<kind>",
        "Requests prepared while another was on the network whose gates decided again at the checkpoint: "
        "`robots` (their origin's robots.txt was fetched), `blocklist` (the operator's list was refreshed) "
        "or `pace` (their host was paused); nothing was sent on the old verdict.",
    ),
    Stat(
        "walsh/checkpoint/next_prepared/<kind>",
        "Sends that ended with the next request already waiting at the checkpoint's lock, its gates passed "
        "while this one was on the network, by the kind of the one that ended (`page`, `robots`, ...): "
        "the overlap at work. A send without it leaves the network idle while the next request's gates run.",
    ),
    Stat(
        "walsh/checkpoint/timeout_raised",
        "Requests whose `download_timeout` was under the floor (5 s) and was raised to it at the checkpoint.",
    ),
    Stat(
        "walsh/pacing/interval/<host>",
        "The host's effective interval at its last request: max(`WALSH_MIN_INTERVAL`, Crawl-delay, "
        "Request-rate, adaptive delay).",
    ),
    Stat(
        "walsh/pacing/capped_hosts",
        "Hosts not crawled because their Crawl-delay exceeds `WALSH_MAX_CRAWL_DELAY` (requests under "
        "`walsh/denied/pacing/crawl_delay_exceeds_cap`).",
    ),
    Stat(
        "walsh/backoff/count",
        "429/503 answers handled by backoff (robots.txt included).",
    ),
    Stat(
        "walsh/backoff/status/<code>",
        "… per status.",
    ),
    Stat(
        "walsh/backoff/timeout",
        "Requests that got no answer within `DOWNLOAD_TIMEOUT`: their host rested at least "
        "`WALSH_RECHECK_INTERVAL`, then they were retried like a 503.",
    ),
    Stat(
        "walsh/bounds/refused/<kind>",
        "Responses whose body went over its bound after decompression (`page`: `WALSH_MAX_BODY_BYTES`; "
        "`sitemap`, `llms_txt`, `twin`, `blocklist`, `tdmrep` ...: their own), refused with `ResponseTooLarge`.",
    ),
    Stat(
        "walsh/bounds/refused_headers/<kind>",
        "Responses whose header block went over its bound while it was received (2,000 header lines "
        "or 256 KiB): the connection was closed and the request refused with `ResponseTooLarge`.",
    ),
    Stat(
        "walsh/bounds/cut/<kind>",
        "robots.txt files read up to their bound (the parse limit plus 64 KiB), the rest not read.",
    ),
    Stat(
        "walsh/backoff/retries",
        "Retries scheduled.",
    ),
    Stat(
        "walsh/backoff/paused_seconds",
        "Total pause imposed on hosts.",
    ),
    Stat(
        "walsh/backoff/bad_retry_after",
        "Unusable `Retry-After` values (logged; the computed delay was used, never under what they could have meant).",
    ),
    Stat(
        "walsh/backoff/gave_up",
        "Requests whose retries ran out; the last response went on down the chain.",
    ),
    Stat(
        "walsh/backoff/gave_up_retry_after",
        "Requests given up because `Retry-After` exceeded `WALSH_BACKOFF_MAX_DELAY` (the host's other "
        "requests are refused while the pause lasts: `walsh/denied/pacing/host_paused_beyond_max_delay`).",
    ),
    Stat(
        "walsh/scope/structured_followups",
        "llms.txt and twin requests a `StructuredSourceSpider` planned for a declared target, let through"
        " by `DeclaredTargetsMiddleware` (R9).",
    ),
    Stat(
        "walsh/structured/<outcome>",
        "Structured-source outcomes per target: `markdown`, `llms_txt_twin`, `llms_txt`, "
        "`no_structured_representation`, `target_failed` (a gate refused the target or the network "
        "failed); and `llms_txt_requested` (origins whose llms.txt was asked for).",
    ),
    Stat(
        "walsh/structured/llms_txt_from_store",
        "llms.txt files not fetched (R8 skip or 304) and read from the state store's copy instead.",
    ),
    Stat(
        "walsh/structured/twin_refused/<gate>",
        "Twin candidates not fetched, per refusing gate (`structured`: a visibly private address, never "
        "requested; `robots`, `blocklist` ...: refused at the gate).",
    ),
    Stat(
        "walsh/sitemaps/urls",
        "`loc` entries yielded from declared sitemaps (never fetched).",
    ),
    Stat(
        "walsh/sitemaps/child_sitemaps",
        "Child sitemaps yielded from declared sitemap indexes (never fetched).",
    ),
    Stat(
        "walsh/sitemaps/skipped_entries",
        "Sitemap entries without a usable `loc` (not http(s), or over 2,000 characters).",
    ),
    Stat(
        "walsh/sitemaps/<verdict>",
        "Sitemaps that stopped or said nothing: `sitemap_truncated_at_url_limit` (over 50,000 URLs), "
        "`sitemap_over_size_limit` (over 50 MB uncompressed), `sitemap_unreadable`.",
    ),
    Stat(
        "walsh/address/refused",
        "Requests refused because their host is, or resolves to, a non-public address (also under "
        "`walsh/denied/address/private_address`).",
    ),
    Stat(
        "walsh/address/refused/<class>",
        "… per address class (`loopback`, `private`, `link_local`, `cloud_metadata`, …).",
    ),
    Stat(
        "walsh/address/refused_at/<stage>",
        "… per check: `request` (the URL or its name, before anything is sent) or `connect` (the name's "
        "answer at connect time, e.g. DNS rebinding).",
    ),
    Stat(
        "walsh/usage/responses",
        "Responses whose `X-Robots-Tag` carries directives that apply to us (usage warnings; never blocking).",
    ),
    Stat(
        "walsh/usage/directive/<directive>",
        "… per directive (`noindex`, `noai`, `unavailable_after`, …; names that aren't plain tokens count as `other`).",
    ),
    Stat(
        "walsh/usage/items_without_field",
        "Items yielded for such a response whose class has no `usage_warnings` field (the class is named "
        "once in a WARNING).",
    ),
    Stat("walsh/usage/mode", "`WALSH_USAGE_MODE` and `WALSH_PURPOSES` of the run, for the summary."),
    Stat("walsh/usage/decided", "Responses whose usage preferences were judged (every spider response)."),
    Stat("walsh/usage/allowed/<purpose>", "… per declared purpose (`search`, `train-ai`, `ai-input`) the site allows."),
    Stat("walsh/usage/reserved/<purpose>", "… per declared purpose the site reserves."),
    Stat("walsh/usage/unknown/<purpose>", "… per declared purpose the site says nothing about."),
    Stat("walsh/usage/reserved_responses", "Responses whose source reserves at least one declared purpose."),
    Stat("walsh/usage/items", "Items that carry the usage decision (`walsh.usage`)."),
    Stat("walsh/usage/items_reserved", "… of which the source reserves a declared purpose (report mode keeps them)."),
    Stat("walsh/usage/items_dropped", "Respect mode: items dropped because their source reserves a declared purpose."),
    Stat(
        "walsh/usage/tdmrep/<outcome>",
        "Respect mode: `/.well-known/tdmrep.json` per origin: `read`, `absent`, `invalid`, `refused`, `failed`.",
    ),
    Stat(
        "walsh/structured/feed_unreadable",
        "Listed feeds that could not be read (the target went on to markdown, llms.txt).",
    ),
    Stat(
        "walsh/structured/feed_entries", "Feed entries emitted as metadata items (never their bodies, never fetched)."
    ),
    Stat(
        "walsh/journal/entries",
        "Entries this process appended to the request journal (sends, refusals, signed heads).",
    ),
    Stat(
        "walsh/journal/fsyncs",
        "fsync calls on the journal file: at most one per 100 entries or per second, and one at close.",
    ),
    Stat(
        "walsh/journal/cpu_seconds",
        "CPU seconds (this thread) spent building, hashing, signing and writing journal entries.",
    ),
    Stat(
        "walsh/journal/unwritable",
        "Why the request journal could not be written; the crawl closed (reason `walsh_journal_unwritable`) "
        "and sent nothing more.",
    ),
    Stat(
        "walsh/store/round_trips",
        "Fleet mode: commands sent to the Redis state store (a script or a pipeline counts once).",
    ),
    Stat(
        "walsh/store/round_trips/<kind>",
        "Fleet mode: the same, by what each was for: its operation and the namespaces of its keys "
        "(`reserve pacing`, `SET NX+GET fetched` ...); `kept`: answers' records written on their own, "
        "by their deadline or at the close, as no other round trip came first.",
    ),
    Stat(
        "walsh/store/kept/rode",
        "Fleet mode: answers' records (with what waits for them) written in the round trip of another "
        "operation: no round trip of their own.",
    ),
    Stat(
        "walsh/store/kept/alone",
        "Fleet mode: answers' records written on their own round trip (`walsh/store/round_trips/kept`, "
        "which may write several at once).",
    ),
    Stat(
        "walsh/store/unreachable_seconds",
        "Fleet mode: time spent waiting for an unreachable Redis (nothing was sent meanwhile).",
    ),
    Stat(
        "walsh/store/wait_seconds",
        "Fleet mode: time spent waiting for Redis's answers, outages included (store calls are synchronous: "
        "the process does nothing else meanwhile).",
    ),
    Stat("walsh/store/reads", "sqlite: read queries of the state store (per request, flat in the hosts)."),
    Stat("walsh/store/keys_read", "sqlite: keys read from the state store."),
    Stat("walsh/store/transactions", "sqlite: write transactions committed with an fsync (FULL)."),
    Stat(
        "walsh/store/unsynced_transactions",
        "sqlite: write transactions committed to the WAL without their own fsync (reservations, settles, "
        "fetch claims: kill -9 safe; [durability](../state-store-durability.md)).",
    ),
    Stat(
        "walsh/store/unavailable",
        "Requests not sent because the state store was unavailable; each went back to the scheduler.",
    ),
    Stat(
        "walsh/store/dropped_unsent",
        "Requests dropped, unsent, because the state store was unavailable while the crawl was stopping.",
    ),
    Stat(
        "walsh/stopping/unsent",
        "Requests not sent because the crawl was stopping: their wait (a host's slot or pause, a robots.txt "
        "another process fetched) ended at the stop, or they reached the checkpoint after it. A target went "
        "back to the scheduler (kept in `JOBDIR` when set), an own fetch was dropped; nothing is recorded as "
        "fetched: the next run sends them.",
    ),
    Stat(
        "walsh/blocklist/stored_schema",
        "Which schema the stored list passed when re-adopted: `adopted` (the one it was adopted with, "
        "kept with it) or `bundled`.",
    ),
    Stat(
        "walsh/scope/subresource_responses_dropped",
        "Responses whose `Content-Type` is a sub-resource type (image, font, audio, video, CSS, "
        "JavaScript): dropped before any callback, counted as `subresource` denials (R6).",
    ),
)


def documented(key: str) -> bool:
    """True when ``key`` (a literal key, or a prefix the code completes) matches a listed pattern."""
    for stat in STATS:
        pattern = re.sub(r"<[^>]+>", "[^/]+", re.escape(stat.key).replace(r"\<", "<").replace(r"\>", ">"))
        if re.fullmatch(pattern, key) or re.fullmatch(pattern, key + "x") or re.fullmatch(pattern, key + "/x"):
            return True
    return False
