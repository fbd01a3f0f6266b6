"""R5 (row 5): 429/503 pause the host and are retried with backoff, never by Scrapy at once."""

from __future__ import annotations

from collections.abc import Iterator

from scrapy.downloadermiddlewares.retry import RetryMiddleware

from scrapy_walsh.config import http_codes
from scrapy_walsh.conformance.engine import (
    FAIL,
    PASS,
    Finding,
    Subject,
    component_enabled,
    gate_removed,
    holds,
    path_of,
)
from scrapy_walsh.middlewares.admission import WalshRetryMiddleware
from scrapy_walsh.middlewares.backoff import BackoffMiddleware
from scrapy_walsh.settings import TIMEOUT_EXCEPTION

_SETTINGS = ("WALSH_BACKOFF_HTTP_CODES", "WALSH_BACKOFF_BASE", "WALSH_BACKOFF_MAX_DELAY", "WALSH_BACKOFF_MAX_RETRIES")


def backoff(subject: Subject) -> Iterator[Finding]:
    settings, walsh = subject.settings, subject.walsh
    yield from gate_removed(subject, "5", "R5", BackoffMiddleware, "429/503 backoff")
    for name in _SETTINGS:
        if why := walsh.refused(name):
            yield Finding("5", "R5", FAIL, name, why)
    retrying = any(
        component_enabled(settings, c, "DOWNLOADER_MIDDLEWARES") for c in (RetryMiddleware, WalshRetryMiddleware)
    )
    if retrying and settings.getbool("RETRY_ENABLED"):
        codes = walsh.value("WALSH_BACKOFF_HTTP_CODES", None)
        if codes is None:  # refused above; still name the codes Scrapy would retry at once
            try:
                codes = http_codes(walsh.given("WALSH_BACKOFF_HTTP_CODES"))
            except ValueError:
                codes = ()
        both = sorted(set(codes) & {int(c) for c in settings.getlist("RETRY_HTTP_CODES")})
        if both:
            yield Finding(
                "5",
                "R5",
                FAIL,
                "RETRY_HTTP_CODES",
                f"Scrapy's RetryMiddleware would retry {both} at once, ignoring "
                "Retry-After; leave them to WALSH_BACKOFF_HTTP_CODES",
            )
        exceptions = [str(path_of(e) if isinstance(e, type) else e) for e in settings.getlist("RETRY_EXCEPTIONS")]
        if TIMEOUT_EXCEPTION in exceptions:
            yield Finding(
                "5",
                "R5",
                FAIL,
                "RETRY_EXCEPTIONS",
                f"Scrapy's RetryMiddleware would retry {TIMEOUT_EXCEPTION} at once: a server that never "
                "answers would cost another time budget right away; the backoff gate pauses its host "
                "(WALSH_RECHECK_INTERVAL) first",
            )


def backoff_holds(subject: Subject) -> Iterator[Finding]:
    if holds(subject, backoff):
        walsh = subject.walsh
        codes = ", ".join(str(c) for c in walsh.value("WALSH_BACKOFF_HTTP_CODES"))
        yield Finding(
            "5",
            "R5",
            PASS,
            "WALSH_BACKOFF_HTTP_CODES",
            f"{codes} pause the host: Retry-After wins, else exponential backoff with "
            f"jitter, at most {walsh.value('WALSH_BACKOFF_MAX_RETRIES')} retries",
        )
