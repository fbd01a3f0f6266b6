"""The preset: the Scrapy settings the add-on writes at ``"addon"`` priority, read from the
``WALSH_*`` values (the registry is :mod:`scrapy_walsh.settings`, the parsers :mod:`scrapy_walsh.config`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy_walsh.config import http_codes, parse, raw
from scrapy_walsh.settings import (
    DOWNLOAD_TIMEOUT,
    MAX_BODY_BYTES,
    MIN_INTERVAL_FLOOR,
    SCRAPY_RETRY_HTTP_CODES,
    download_handlers,
    retry_exceptions,
)

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings


@dataclass(frozen=True)
class PresetEntry:
    name: str
    value: Any
    requirement: str
    why: str


def preset(settings: BaseSettings) -> tuple[PresetEntry, ...]:
    """The Scrapy settings the add-on writes at ``"addon"`` priority.

    A project's own ``settings.py`` (priority ``"project"``) still wins; the
    conformance audit then refuses any value that breaks a MUST, so a project can make
    the crawl stricter. Only the loosening ``WALSH_*`` settings (docs/loosening.md) can
    make it looser, each with a warning.
    """
    return (
        *_pacing_entries(settings),
        *_retry_entries(settings),
        *_download_entries(_or_default(lambda: parse(settings, "WALSH_MAX_BODY_BYTES"), MAX_BODY_BYTES)),
    )


def _pacing_entries(settings: BaseSettings) -> tuple[PresetEntry, ...]:
    """Who the crawl says it is, and how often it asks: one request at a time, the floor per host."""
    min_interval = _or_default(lambda: parse(settings, "WALSH_MIN_INTERVAL"), MIN_INTERVAL_FLOOR)
    return (
        PresetEntry(
            "USER_AGENT",
            raw(settings, "WALSH_USER_AGENT"),
            "R1",
            "Scrapy's own `UserAgentMiddleware` sends our identity by default.",
        ),
        PresetEntry(
            "CONCURRENT_REQUESTS",
            3,
            "R4",
            "Requests are serial per process: the checkpoint's lock lets one on the network at a "
            "time. The downloader holds the next ones, their gates passed, ready to go the moment the "
            "first is answered, one of them even while a page waits for its origin's robots.txt "
            "(1 and 2 also conform, with less or no overlap).",
        ),
        PresetEntry("CONCURRENT_REQUESTS_PER_DOMAIN", 1, "R4", "One request in flight per host."),
        PresetEntry(
            "DOWNLOAD_DELAY",
            min_interval,
            "R4",
            "At least `WALSH_MIN_INTERVAL` between the starts of two requests to a host.",
        ),
        PresetEntry(
            "SCHEDULER_PRIORITY_QUEUE",
            "scrapy_walsh.sending.queue.PolitenessAwarePriorityQueue",
            "R4",
            "Hands the engine the host that is ready first, so one host's delay never idles "
            "the crawl. Works with `JOBDIR`.",
        ),
    )


def _retry_entries(settings: BaseSettings) -> tuple[PresetEntry, ...]:
    """What Scrapy retries at once (never a back-off code or a timeout: they back off); a request's time budget."""
    backoff_codes = _or_default(lambda: http_codes(raw(settings, "WALSH_BACKOFF_HTTP_CODES")), (429, 503))
    return (
        PresetEntry(
            "RETRY_HTTP_CODES",
            [code for code in SCRAPY_RETRY_HTTP_CODES if code not in backoff_codes],
            "R5",
            "Scrapy's codes minus `WALSH_BACKOFF_HTTP_CODES`: those are retried with backoff, once.",
        ),
        PresetEntry(
            "RETRY_EXCEPTIONS",
            retry_exceptions(),
            "R5",
            "Scrapy's exceptions minus `DownloadTimeoutError`: a timeout pauses the host and is "
            "retried with backoff, never at once.",
        ),
        PresetEntry(
            "DOWNLOAD_TIMEOUT",
            DOWNLOAD_TIMEOUT,
            "R4",
            "The time budget of one request (Scrapy: 180). The crawl is serial: a hanging server "
            "makes every host wait this long, so it is kept short; a longer one is warned about.",
        ),
    )


def _or_default(read: Callable[[], Any], default: Any) -> Any:
    """The setting's value, or ``default`` when it is not valid: the audit then names the bad value."""
    try:
        return read()
    except ValueError:
        return default


def _download_entries(max_body_bytes: int) -> tuple[PresetEntry, ...]:
    """What is read, and how: the body bound, the handlers, no jitter under the floor."""
    return (
        PresetEntry(
            "DOWNLOAD_MAXSIZE",
            max_body_bytes,
            "hostile servers (bounded reads)",
            "`WALSH_MAX_BODY_BYTES` (Scrapy: 1 GiB): Scrapy stops reading, and decompressing, a body "
            "over it. The checkpoint gives every request its own bound.",
        ),
        PresetEntry(
            "DOWNLOAD_HANDLERS",
            download_handlers(),
            "R1-R6",
            "http and https go through the checkpoint before the network "
            "(`scrapy_walsh.sending.checkpoint.CheckpointDownloadHandler`); every other scheme "
            "(file, data, ftp, s3 ...) has no handler: nothing is read.",
        ),
        PresetEntry(
            "DOWNLOAD_HANDLERS_BASE",
            download_handlers(),
            "R1-R6",
            "The same: a project's `DOWNLOAD_HANDLERS` entry can't bring Scrapy's file, data, s3 "
            "or ftp handler back by merging over the base.",
        ),
        PresetEntry(
            "DOWNLOAD_DELAY_JITTER",
            0.0,
            "R4",
            "Scrapy's jitter draws delays *under* `DOWNLOAD_DELAY` (0.5 s at the "
            "default); no jitter may shorten the floor.",
        ),
    )
