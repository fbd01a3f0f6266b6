"""R3 (rows 3, 3a-3c): the operator blocklist is consulted first, retained and validated."""

from __future__ import annotations

from collections.abc import Iterator

from scrapy_walsh.config import as_list
from scrapy_walsh.conformance.engine import (
    FAIL,
    PASS,
    Finding,
    Subject,
    component_enabled,
    enabled_components,
    gate_removed,
    index,
    path_of,
)
from scrapy_walsh.middlewares.blocklist import BlocklistMiddleware
from scrapy_walsh.middlewares.robots_gate import RobotsMiddleware

_REFUSED = ("WALSH_BLOCKLIST_SCHEMA_URL", "WALSH_BLOCKLIST_EXTRA")


def blocklist_url(subject: Subject) -> Iterator[Finding]:
    walsh = subject.walsh
    if why := walsh.refused("WALSH_BLOCKLIST_URL"):
        yield Finding("3", "R3", FAIL, "WALSH_BLOCKLIST_URL", why)
    else:
        yield Finding("3", "R3", PASS, "WALSH_BLOCKLIST_URL", walsh.value("WALSH_BLOCKLIST_URL"))


def blocklist_gate(subject: Subject) -> Iterator[Finding]:
    yield from gate_removed(subject, "3", "R3", BlocklistMiddleware, "the blocklist")
    for name in _REFUSED:
        if why := subject.walsh.refused(name):
            yield Finding("3", "R3", FAIL, name, why)


def state_uri(subject: Subject) -> Iterator[Finding]:
    walsh = subject.walsh
    if walsh.refused("WALSH_STATE_URI"):
        yield Finding(
            "3b",
            "R3",
            FAIL,
            "WALSH_STATE_URI",
            f"{walsh.refused('WALSH_STATE_URI')} (the last-known blocklist must survive restarts)",
        )
        return
    location = walsh.value("WALSH_STATE_URI")
    yield Finding(
        "3b",
        "R3",
        PASS,
        "WALSH_STATE_URI",
        "a shared Redis (fleet mode)"
        if location is not None and location.scheme == "redis"
        else "a persistent sqlite location",
    )


def blocklist_first(subject: Subject) -> Iterator[Finding]:
    chain = enabled_components(subject.settings, "DOWNLOADER_MIDDLEWARES")
    blocklist, robots = index(chain, BlocklistMiddleware), index(chain, RobotsMiddleware)
    if blocklist is None or robots is None:
        return  # the gate rules fail the row
    if blocklist > robots:
        yield Finding(
            "3",
            "R3",
            FAIL,
            "DOWNLOADER_MIDDLEWARES",
            "BlocklistMiddleware runs after RobotsMiddleware: robots.txt would be "
            "fetched from a host the operator blocked",
        )
    else:
        yield Finding(
            "3",
            "R3",
            PASS,
            "DOWNLOADER_MIDDLEWARES",
            "BlocklistMiddleware runs before RobotsMiddleware (a blocked host is never contacted)",
        )


def blocklist_matching(subject: Subject) -> Iterator[Finding]:
    walsh = subject.walsh
    if not component_enabled(subject.settings, BlocklistMiddleware):
        gate = path_of(BlocklistMiddleware)
        for row, what in (
            ("3a", "no domain is matched"),
            ("3b", "no list is retained"),
            ("3c", "no list is validated"),
        ):
            yield Finding(row, "R3", FAIL, "DOWNLOADER_MIDDLEWARES", f"{gate} is disabled; {what}")
        return
    extra = as_list(walsh.given("WALSH_BLOCKLIST_EXTRA"))  # as given: the gate rule refuses a bad one
    yield Finding(
        "3a",
        "R3",
        PASS,
        "WALSH_BLOCKLIST_EXTRA",
        f"a listed domain blocks itself and every subdomain; {len(extra)} local entries added to the operator's list",
    )
    yield Finding(
        "3b",
        "R3",
        PASS,
        "DOWNLOADER_MIDDLEWARES",
        "a failed fetch keeps the list in force; the last adopted list is stored",
    )
    if not walsh.refused("WALSH_BLOCKLIST_SCHEMA_URL"):
        schema = walsh.value("WALSH_BLOCKLIST_SCHEMA_URL")
        where = schema if schema else "the bundled schema only"
        yield Finding(
            "3c",
            "R3",
            PASS,
            "WALSH_BLOCKLIST_SCHEMA_URL",
            f"validated against {where} (fallback: last stored copy, then bundled); an invalid list is never adopted",
        )
