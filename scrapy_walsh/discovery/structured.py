"""R9: ``StructuredSourceSpider``, the structured-source flow for feed-less targets.

For each declared target the spider tries its markdown (``Accept: text/markdown``), then the
llms.txt of its origin (a listed twin, or the llms.txt itself), and otherwise leaves it out with
``no_structured_representation``: HTML is never parsed. The llms.txt and twin requests it plans
pass R6's scope gate (:meth:`StructuredSourceSpider.planned_followup`).
docs/requirements/r9-structured-sources.md and docs/architecture.md ("The modules, one by
one") say why.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import scrapy
from scrapy.http import Response
from twisted.python.failure import Failure

from scrapy_walsh import config
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.policy import feeds, llmstxt
from scrapy_walsh.policy.addresses import PrivateAddressAllowance
from scrapy_walsh.policy.markdown import outline
from scrapy_walsh.policy.sitemaps import MAX_BYTES as SITEMAP_MAX_BYTES
from scrapy_walsh.policy.sitemaps import MAX_URLS as SITEMAP_MAX_URLS
from scrapy_walsh.policy.sitemaps import SITEMAPINDEX, read_sitemap
from scrapy_walsh.policy.urls import split
from scrapy_walsh.policy.vocabulary import (
    NO_STRUCTURED_REPRESENTATION,
    NOT_MODIFIED,
    PRIVATE_ADDRESS,
    SITEMAP_TRUNCATED,
    SITEMAP_UNREADABLE,
    SKIPPED_RECENTLY_FETCHED,
    Meta,
    Namespace,
)
from scrapy_walsh.sending import admission

logger = logging.getLogger(__name__)

#: ``meta`` key naming the declared target and step of a structured-flow request.
MARKER = Meta.STRUCTURED
TARGET, LLMS_TXT, TWIN, SITEMAP, FEED = "target", "llms_txt", "twin", "sitemap", "feed"
MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})
LLMS_TXT_TYPES = MARKDOWN_TYPES | {"text/plain"}
ACCEPT_MARKDOWN = "text/markdown, text/x-markdown;q=0.9"
ACCEPT_LLMS_TXT = "text/markdown, text/plain;q=0.9"
ACCEPT_FEED = "application/atom+xml, application/rss+xml, application/feed+json, application/xml;q=0.9, */*;q=0.1"
#: Markdown and llms.txt bodies are read only up to this size (the download is cut there).
MAX_STRUCTURED_BYTES = 1_048_576
#: Non-2xx answers reach the callbacks (redirects are still followed: no 3xx here).
ANY_ERROR_STATUS = tuple(range(400, 600))
#: Gate verdicts that mean "nothing new", not "refused" (R8 frequency, R7 304).
UNCHANGED = frozenset({SKIPPED_RECENTLY_FETCHED, NOT_MODIFIED})
#: Parsed llms.txt files are kept in the state store this long, so a later run whose
#: llms.txt request is skipped (R8) or answered 304 (R7) still knows the file.
LLMS_TXT_STORE = Namespace.LLMS_TXT
LLMS_TXT_KEEP_SECONDS = 30 * 86400.0


def media_type(response: Response) -> str:
    raw = response.headers.get(b"Content-Type") or b""
    return raw.decode("latin-1").split(";", 1)[0].strip().lower()


def body_text(response: Response) -> str:
    text = getattr(response, "text", None)
    return text if isinstance(text, str) else response.body.decode("utf-8", "replace")


def walsh_meta(response: Response) -> dict[str, Any]:
    return response.meta.get("walsh") or {}


@dataclass
class ReadFeed:
    """A feed as read: its own fields, its entries (mappings), and its format."""

    feed: dict[str, Any]
    entries: list[Any]
    version: str


def read_feed(response: Response) -> ReadFeed | None:
    """The response as a feed (R9, feeds first), or None when it is not one: a 2xx whose
    body parses as RSS or Atom (``feedparser``, from the bytes: it never fetches anything)
    or as JSON Feed. Only feed media types and the generic XML/JSON ones are tried."""
    kind = media_type(response)
    if not 200 <= response.status < 300 or len(response.body) > MAX_STRUCTURED_BYTES:
        return None
    if kind not in feeds.FEED_TYPES and kind not in feeds.MAYBE_FEED_TYPES:
        return None
    if kind in feeds.JSON_FEED_TYPES or response.body.lstrip()[:1] == b"{":
        found = feeds.read_json_feed(response.body)
        return None if found is None else ReadFeed(found[0], found[1], str(found[0]["version"]))
    import io

    import feedparser  # loaded on the first feed only

    # a stream, never bytes or str: feedparser would open a str (or bytes) naming a URL or file
    parsed = feedparser.parse(
        io.BytesIO(response.body),
        response_headers={"content-type": kind, "content-location": response.url},
        sanitize_html=False,
    )
    if not parsed.get("version"):  # not RSS or Atom (feedparser found no feed element)
        return None
    return ReadFeed(dict(parsed.get("feed") or {}), list(parsed.get("entries") or []), str(parsed["version"]))


def robots_sitemaps(response: Response) -> list[str]:
    """The origin's robots.txt ``Sitemap:`` lines, as the robots gate read them."""
    robots = walsh_meta(response).get("robots") or {}
    return [u for u in robots.get("sitemaps") or [] if isinstance(u, str)]


def sitemap_candidates(response: Response) -> list[str]:
    """The origin's robots.txt ``Sitemap:`` lines, then its ``/sitemap.xml``: candidates a
    user may declare as ``sitemap_targets``; never fetched by this spider on its own."""
    robots = walsh_meta(response).get("robots") or {}
    parts = split(response.url)
    found = [u for u in robots.get("sitemaps") or [] if isinstance(u, str) and len(u) <= 2000]
    found.append(f"{parts.scheme}://{parts.netloc}/sitemap.xml")
    return list(dict.fromkeys(found))


@dataclass
class _Pending:
    """An origin's llms.txt in flight, and the targets waiting for it."""

    waiting: list[dict[str, Any]] = field(default_factory=list)


class StructuredSourceSpider(scrapy.Spider):
    """Read declared feed-less targets through markdown or llms.txt, never HTML (R9).

    Subclasses set ``name`` and ``targets`` (and optionally ``sitemap_targets``), or
    override :meth:`declared_targets` / :meth:`declared_sitemaps` when the URLs depend
    on settings. Items are plain dicts of metadata (docs/requirements/r9-structured-sources.md).
    """

    targets: list[str] = []
    sitemap_targets: list[str] = []

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        # (url, step, declared target) of follow-ups planned and not yet sent
        self._planned: set[tuple[str, str, str]] = set()
        # per origin: pending llms.txt, its parsed index, or why there is none
        self._llms: dict[tuple[str, str, int], _Pending | llmstxt.LlmsTxt | str] = {}
        self._llms_emitted: set[tuple[str, str, int]] = set()
        self._allowance: PrivateAddressAllowance | None = None
        # per declared target: the markdown item to emit if its listed feed can't be read
        self._feed_fallback: dict[str, dict[str, Any] | None] = {}

    # ------------------------------------------------------------------ declared inputs

    def declared_targets(self) -> list[str]:
        return list(self.targets)

    def declared_sitemaps(self) -> list[str]:
        return list(self.sitemap_targets)

    async def start(self) -> Any:
        # earlier targets first within a host (Scrapy's queues are LIFO among equals)
        for index, url in enumerate(self.declared_targets()):
            yield scrapy.Request(
                url,
                callback=self.parse_target,
                errback=self.target_failed,
                priority=-index,
                headers={"Accept": ACCEPT_MARKDOWN},
                meta={MARKER: {"target": url, "step": TARGET}, "handle_httpstatus_list": ANY_ERROR_STATUS},
            )
        for index, url in enumerate(self.declared_sitemaps()):
            yield scrapy.Request(
                url,
                callback=self.parse_sitemap,
                errback=self.sitemap_failed,
                priority=-index,
                meta={
                    MARKER: {"target": url, "step": SITEMAP},
                    "handle_httpstatus_list": ANY_ERROR_STATUS,
                    "download_maxsize": SITEMAP_MAX_BYTES,
                },
            )

    def parse(self, response: Response, **kwargs: Any) -> Any:
        raise NotImplementedError("StructuredSourceSpider reads targets through parse_target")

    # ------------------------------------------------------------------ R6 exemption

    def planned_followup(self, request: scrapy.Request) -> bool:
        """True once for a llms.txt or twin request this spider planned for a declared
        target (``DeclaredTargetsMiddleware`` asks); the plan is then used up."""
        marker = request.meta.get(MARKER)
        if not isinstance(marker, dict):
            return False
        key = (request.url, marker.get("step"), marker.get("target"))
        if key not in self._planned:
            return False
        if key[1] == LLMS_TXT and (
            split(request.url).path != "/llms.txt" or llmstxt.origin(request.url) != llmstxt.origin(str(key[2]))
        ):
            return False
        self._planned.discard(key)  # type: ignore[arg-type]
        return True

    def _followup(self, url: str, step: str, ctx: dict[str, Any], **kwargs: Any) -> scrapy.Request:
        request = scrapy.Request(
            url,
            dont_filter=True,
            cb_kwargs={"ctx": ctx},
            meta={
                MARKER: {"target": ctx["target"], "step": step},
                "handle_httpstatus_list": ANY_ERROR_STATUS,
                "download_maxsize": MAX_STRUCTURED_BYTES,
            },
            **kwargs,
        )
        self._planned.add((request.url, step, ctx["target"]))
        return request

    # ------------------------------------------------------------------ (a) the target

    def parse_target(self, response: Response) -> Iterator[Any]:
        target = response.meta[MARKER]["target"]
        ctx: dict[str, Any] = {
            "target": target,
            "status": response.status,
            "verdicts": walsh_meta(response).get("verdicts", {}),
            "recommendation": walsh_meta(response).get("recommendation"),
            "usage_warnings": list(walsh_meta(response).get("usage_warnings", [])),
            "sitemap_candidates": sitemap_candidates(response),
        }
        kind = media_type(response)
        if (feed := read_feed(response)) is not None:  # feeds first: the target is a feed
            yield from self._feed_items(response, ctx, feed, "feed")
            return
        markdown = 200 <= response.status < 300 and kind in MARKDOWN_TYPES
        if (listed := feeds.feed_for(target, robots_sitemaps(response))) is not None:
            # robots.txt's Sitemap lists a feed for this target: it comes before markdown
            self._feed_fallback[target] = (
                self._markdown_item(response, ctx, "markdown", count=False)
                if markdown and len(response.body) <= MAX_STRUCTURED_BYTES
                else None
            )
            ctx["markdown"] = f"answered {response.status} {kind or 'without a Content-Type'}"
            yield self._feed_request(listed, ctx, "robots.txt Sitemap")
            return
        if markdown and len(response.body) <= MAX_STRUCTURED_BYTES:
            yield self._markdown_item(response, ctx, "markdown")
            return
        ctx["markdown"] = f"answered {response.status} {kind or 'without a Content-Type'}"
        if len(response.body) > MAX_STRUCTURED_BYTES and kind in MARKDOWN_TYPES:
            ctx["markdown"] += f" over {MAX_STRUCTURED_BYTES} bytes"
        yield from self._via_llms_txt(ctx)

    def target_failed(self, failure: Failure) -> Iterator[dict[str, Any]]:
        target = failure.request.meta[MARKER]["target"]  # type: ignore[attr-defined]
        self.crawler.stats.inc_value("walsh/structured/target_failed")
        yield {"target": target, **self._refusal(failure)}

    def _markdown_item(
        self, response: Response, ctx: dict[str, Any], source: str, count: bool = True
    ) -> dict[str, Any]:
        if count:
            self.crawler.stats.inc_value(f"walsh/structured/{source}")
        item = {"url": response.url, "source": source, **ctx}
        item.update(outline(body_text(response), response.url).as_fields())
        return item

    # ------------------------------------------------------------------ (b) llms.txt

    def _via_llms_txt(self, ctx: dict[str, Any]) -> Iterator[Any]:
        target = ctx["target"]
        home = llmstxt.origin(target)
        state = self._llms.get(home)
        if state is None:
            self._llms[home] = _Pending([ctx])
            self.crawler.stats.inc_value("walsh/structured/llms_txt_requested")
            yield self._followup(
                llmstxt.llms_txt_url(target),
                LLMS_TXT,
                ctx,
                callback=self.parse_llms_txt,
                errback=self.llms_txt_failed,
                headers={"Accept": ACCEPT_LLMS_TXT},
            )
        elif isinstance(state, _Pending):
            state.waiting.append(ctx)
        elif isinstance(state, llmstxt.LlmsTxt):
            yield from self._decide(ctx, state)
        else:
            yield self._left_out(ctx, state)

    def parse_llms_txt(self, response: Response, ctx: dict[str, Any]) -> Iterator[Any]:
        home = llmstxt.origin(ctx["target"])
        kind = media_type(response)
        outcome: llmstxt.LlmsTxt | str
        if not 200 <= response.status < 300:
            outcome = f"llms.txt answered {response.status}"
        elif kind not in LLMS_TXT_TYPES:
            outcome = f"llms.txt answered {kind or 'without a Content-Type'}, not markdown or text/plain"
        else:
            try:
                outcome = llmstxt.parse(body_text(response), response.url)
            except llmstxt.NotLlmsTxt as exc:
                outcome = f"llms.txt is not an llms.txt: {exc}"
            else:
                self._keep_llms_txt(response.url, outcome)
        yield from self._settle(home, outcome, response.url)

    def llms_txt_failed(self, failure: Failure) -> Iterator[Any]:
        ctx = failure.request.cb_kwargs["ctx"]  # type: ignore[attr-defined]
        refusal = self._refusal(failure)
        home = llmstxt.origin(ctx["target"])
        kept = self._kept_llms_txt(failure.request.url) if refusal["verdict"] in UNCHANGED else None  # type: ignore[attr-defined]
        if kept is not None:
            self.crawler.stats.inc_value("walsh/structured/llms_txt_from_store")
            for out in self._settle(home, kept, failure.request.url):  # type: ignore[attr-defined]
                if isinstance(out, scrapy.Request):
                    # an errback's output skips the spider middlewares: use the plan up here
                    if self.planned_followup(out):
                        admission.declare(self.crawler, out)
                yield out
            return
        yield from self._settle(home, f"llms.txt not fetched: {refusal['reason']}", None)

    def _store(self) -> Any:
        """The add-on's state store (None when the add-on's settings are absent)."""
        if not config.applied(self.settings):
            return None
        from scrapy_walsh.store import open_crawl_store

        return CrawlContext.of(self.crawler).get(open_crawl_store)

    def _keep_llms_txt(self, url: str, index: llmstxt.LlmsTxt) -> None:
        store = self._store()
        if store is not None:
            store.set(LLMS_TXT_STORE, url, index.as_fields(), ttl=LLMS_TXT_KEEP_SECONDS)

    def _kept_llms_txt(self, url: str) -> llmstxt.LlmsTxt | None:
        store = self._store()
        fields = store.get(LLMS_TXT_STORE, url) if store is not None else None
        try:
            return llmstxt.LlmsTxt.from_fields(fields) if isinstance(fields, dict) else None
        except (KeyError, TypeError):
            return None

    def _settle(self, home: tuple[str, str, int], outcome: llmstxt.LlmsTxt | str, url: str | None) -> Iterator[Any]:
        pending = self._llms.get(home)
        self._llms[home] = outcome
        if isinstance(outcome, str):
            logger.info("R9: no llms.txt for %s://%s:%s: %s", *home, outcome)
        waiting = pending.waiting if isinstance(pending, _Pending) else []
        for ctx in waiting:
            if isinstance(outcome, llmstxt.LlmsTxt):
                ctx["llms_txt"] = url
                yield from self._decide(ctx, outcome)
            else:
                yield self._left_out(ctx, outcome)

    def _decide(self, ctx: dict[str, Any], index: llmstxt.LlmsTxt) -> Iterator[Any]:
        target = ctx["target"]
        ctx.setdefault("llms_txt", llmstxt.llms_txt_url(target))
        if "feed" not in ctx and (listed := feeds.feed_for(target, [e.url for e in index.entries()])) is not None:
            # llms.txt lists a feed for this target: read it before any twin
            self._feed_fallback[target] = None
            yield self._feed_request(listed, {**ctx, "llms_index": index}, "llms.txt")
            return
        if self._allowance is None:
            self._allowance = (
                CrawlContext.of(self.crawler).config.allow_private_addresses
                if config.applied(self.settings)
                else config.parse(self.settings, "WALSH_ALLOW_PRIVATE_ADDRESSES")  # no add-on: as set
            )
        choice = llmstxt.choose_twin(target, index, self._allowance)
        if choice.refused:
            ctx["twin_refused"] = [
                {"url": u, "gate": "structured", "verdict": PRIVATE_ADDRESS, "reason": r} for u, r in choice.refused
            ]
            for url, reason in choice.refused:
                self.crawler.stats.inc_value("walsh/structured/twin_refused/structured")
                logger.warning(
                    "R9: llms.txt of %s lists %s as the twin of %s; not chosen: %s",
                    ctx["llms_txt"],
                    url,
                    target,
                    reason,
                )
        if choice.url is not None:
            ctx["twin"] = choice.url
            yield self._followup(
                choice.url,
                TWIN,
                ctx,
                callback=self.parse_twin,
                errback=self.twin_failed,
                headers={"Accept": ACCEPT_MARKDOWN},
            )
        elif choice.refused:
            yield self._left_out(ctx, "the twins llms.txt lists point at private or local addresses")
        else:
            yield self._llms_txt_item(ctx, index)

    def _llms_txt_item(self, ctx: dict[str, Any], index: llmstxt.LlmsTxt) -> dict[str, Any]:
        """The llms.txt as the target's representation: its sections with the origin's
        first target in this run, a reference (``llms_txt``) for later ones. No ``url``:
        R7's dedup would otherwise drop the next run's new targets of the same origin."""
        self.crawler.stats.inc_value("walsh/structured/llms_txt")
        listed = llmstxt.listed_entry(ctx["target"], index)
        item: dict[str, Any] = {"source": "llms_txt", **ctx, "listed": listed.as_dict() if listed else None}
        home = llmstxt.origin(ctx["target"])
        if home not in self._llms_emitted:
            self._llms_emitted.add(home)
            item.update(index.item_fields())  # bounded for R6 (WALSH_MAX_ITEM_CHARS)
        return item

    # ------------------------------------------------------------------ the twin

    def parse_twin(self, response: Response, ctx: dict[str, Any]) -> Iterator[Any]:
        kind = media_type(response)
        if 200 <= response.status < 300 and kind in MARKDOWN_TYPES:
            ctx = {
                **ctx,
                "twin_verdicts": walsh_meta(response).get("verdicts", {}),
                "usage_warnings": ctx["usage_warnings"] + list(walsh_meta(response).get("usage_warnings", [])),
            }
            yield self._markdown_item(response, ctx, "llms_txt_twin")
            return
        yield self._left_out(ctx, f"the twin answered {response.status} {kind or 'without a Content-Type'}")

    def twin_failed(self, failure: Failure) -> Iterator[Any]:
        ctx = dict(failure.request.cb_kwargs["ctx"])  # type: ignore[attr-defined]
        refusal = self._refusal(failure)
        if refusal["verdict"] in UNCHANGED:  # the twin is unchanged since it was last read
            yield {**ctx, "verdict": refusal["verdict"], "reason": refusal["reason"]}
            return
        self.crawler.stats.inc_value(f"walsh/structured/twin_refused/{refusal.get('denied', 'network')}")
        logger.info(
            "R9: the twin %s of %s was not fetched (%s); the target is left out",
            ctx.get("twin"),
            ctx["target"],
            refusal["reason"],
        )
        ctx["twin_refused"] = [
            *ctx.get("twin_refused", []),
            {
                "url": ctx.get("twin"),
                "gate": refusal.get("denied"),
                "verdict": refusal["verdict"],
                "reason": refusal["reason"],
            },
        ]
        yield self._left_out(ctx, "the twin was refused or failed; never falling back to HTML")

    # ------------------------------------------------------------------ feeds first

    def _feed_request(self, url: str, ctx: dict[str, Any], listed_in: str) -> scrapy.Request:
        """A feed listed for the target (robots.txt Sitemap or llms.txt), read before the rest."""
        self.crawler.stats.inc_value("walsh/structured/feed_requested")
        ctx = {**ctx, "feed": url, "feed_listed_in": listed_in}
        return self._followup(
            url, FEED, ctx, callback=self.parse_feed, errback=self.feed_failed, headers={"Accept": ACCEPT_FEED}
        )

    def parse_feed(self, response: Response, ctx: dict[str, Any]) -> Iterator[Any]:
        feed = read_feed(response)
        if feed is not None:
            ctx = {k: v for k, v in ctx.items() if k != "llms_index"}
            self._feed_fallback.pop(ctx["target"], None)
            yield from self._feed_items(response, ctx, feed, "listed_feed")
            return
        kind = media_type(response)
        yield from self._after_feed(ctx, f"the feed answered {response.status} {kind or 'without a Content-Type'}")

    def feed_failed(self, failure: Failure) -> Iterator[Any]:
        ctx = failure.request.cb_kwargs["ctx"]  # type: ignore[attr-defined]
        out = list(self._after_feed(ctx, f"the feed was not fetched: {self._refusal(failure)['reason']}"))
        for request in out:
            # an errback's output skips the spider middlewares: use the plan up here
            if isinstance(request, scrapy.Request) and self.planned_followup(request):
                admission.declare(self.crawler, request)
        yield from out

    def _after_feed(self, ctx: dict[str, Any], why: str) -> Iterator[Any]:
        """The listed feed could not be read: markdown, then llms.txt, as if it were not listed."""
        self.crawler.stats.inc_value("walsh/structured/feed_unreadable")
        logger.info("R9: the feed %s of %s is not read (%s)", ctx.get("feed"), ctx["target"], why)
        index = ctx.get("llms_index")
        ctx = {k: v for k, v in ctx.items() if k != "llms_index"}
        ctx["feed_unreadable"] = why
        fallback = self._feed_fallback.pop(ctx["target"], None)
        if fallback is not None:
            self.crawler.stats.inc_value("walsh/structured/markdown")
            yield {**fallback, "feed": ctx.get("feed"), "feed_unreadable": why}
        elif isinstance(index, llmstxt.LlmsTxt):
            yield from self._decide(ctx, index)
        else:
            yield from self._via_llms_txt(ctx)

    def _feed_items(
        self, response: Response, ctx: dict[str, Any], feed: ReadFeed, source: str
    ) -> Iterator[dict[str, Any]]:
        """One item per entry (metadata only, R6; links reported, never fetched), plus one
        for the feed itself. No ``url`` on entries: R7's dedup keys on the feed's URL."""
        self.crawler.stats.inc_value(f"walsh/structured/{source}")
        entries = feed.entries[: feeds.MAX_ENTRIES]
        self.crawler.stats.inc_value("walsh/structured/feed_entries", len(entries))
        yield {
            "url": response.url,
            "source": source,
            **ctx,
            "feed_title": feeds.entry_metadata(feed.feed, response.url)["title"],
            "feed_format": feed.version,
            "entries": len(entries),
            "entries_not_read": max(0, len(feed.entries) - len(entries)),
        }
        for entry in entries:
            yield {
                "target": ctx["target"],
                "feed": response.url,
                "source": "feed_entry",
                **feeds.entry_metadata(entry, response.url),
            }

    # ------------------------------------------------------------------ (c) left out

    def _left_out(self, ctx: dict[str, Any], reason: str) -> dict[str, Any]:
        self.crawler.stats.inc_value(f"walsh/structured/{NO_STRUCTURED_REPRESENTATION}")
        logger.info("R9: %s left out (%s): %s", ctx["target"], NO_STRUCTURED_REPRESENTATION, reason)
        return {**ctx, "verdict": NO_STRUCTURED_REPRESENTATION, "reason": reason}

    @staticmethod
    def _refusal(failure: Failure) -> dict[str, Any]:
        exc = failure.value
        gate = getattr(exc, "gate", None)
        if gate is not None:
            return {
                "denied": gate,
                "verdict": getattr(exc, "verdict", None),
                "reason": str(getattr(exc, "reason", exc))[:500],
                "recommendation": getattr(exc, "details", {}).get("recommendation"),
            }
        return {"verdict": type(exc).__name__, "reason": str(exc)[:500]}

    # ------------------------------------------------------------------ sitemaps

    def parse_sitemap(self, response: Response) -> Iterator[dict[str, Any]]:
        url = response.meta[MARKER]["target"]
        if not 200 <= response.status < 300:
            yield self._sitemap_verdict(url, SITEMAP_UNREADABLE, f"answered {response.status}")
            return
        reading = read_sitemap(response.body)
        if reading.verdict is not None:
            yield self._sitemap_verdict(url, reading.verdict, reading.reason)
            return
        index = reading.kind == SITEMAPINDEX
        for entry in reading.entries:
            if index:
                yield {"sitemap": url, "child_sitemap": entry["loc"], "lastmod": entry["lastmod"]}
            else:
                yield {"sitemap": url, "loc": entry["loc"], "lastmod": entry["lastmod"]}
        self.crawler.stats.inc_value(
            "walsh/sitemaps/child_sitemaps" if index else "walsh/sitemaps/urls", len(reading.entries)
        )
        if reading.skipped:
            self.crawler.stats.inc_value("walsh/sitemaps/skipped_entries", reading.skipped)
        if reading.truncated:
            logger.warning(
                "sitemap %s lists more than %d URLs: the first %d were read, the rest were not",
                url,
                SITEMAP_MAX_URLS,
                SITEMAP_MAX_URLS,
            )
            yield self._sitemap_verdict(
                url, SITEMAP_TRUNCATED, f"more than {SITEMAP_MAX_URLS} entries; reading stopped there"
            )

    def sitemap_failed(self, failure: Failure) -> Iterator[dict[str, Any]]:
        url = failure.request.meta[MARKER]["target"]  # type: ignore[attr-defined]
        refusal = self._refusal(failure)
        if "denied" in refusal:
            yield {"sitemap": url, **refusal}
        else:
            yield self._sitemap_verdict(url, SITEMAP_UNREADABLE, refusal["reason"])

    def _sitemap_verdict(self, url: str, verdict: str, reason: str) -> dict[str, Any]:
        self.crawler.stats.inc_value(f"walsh/sitemaps/{verdict}")
        if verdict != SITEMAP_TRUNCATED:
            logger.warning("sitemap %s: %s (%s)", url, verdict, reason)
        return {"sitemap": url, "verdict": verdict, "reason": reason}
