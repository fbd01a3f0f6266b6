"""R2 (rows 2, 2a): robots.txt fetched and obeyed by our gate, groups selected by our token."""

from __future__ import annotations

from collections.abc import Iterator

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware

from scrapy_walsh.conformance.engine import (
    FAIL,
    PASS,
    WARN,
    Finding,
    Subject,
    component_enabled,
    gate_removed,
    loosens,
    path_of,
    placed_in,
)
from scrapy_walsh.middlewares.robots_gate import RobotsMiddleware
from scrapy_walsh.middlewares.robotstxt import stock_middleware_leaks


def scrapy_robots(subject: Subject) -> Iterator[Finding]:
    setting = placed_in(RobotsTxtMiddleware)
    if component_enabled(subject.settings, RobotsTxtMiddleware):
        yield Finding(
            "2",
            "R2",
            FAIL,
            setting,
            "Scrapy's RobotsTxtMiddleware is enabled: it matches groups against "
            "the full User-Agent header and treats a network error as allow-all",
        )
        if subject.settings.getbool("ROBOTSTXT_OBEY") and (version := stock_middleware_leaks()):
            yield Finding(
                "2",
                "R2",
                WARN,
                "ROBOTSTXT_OBEY",
                f"on Scrapy {version}, Scrapy's RobotsTxtMiddleware lets requests that wait on an origin's "
                "robots.txt through unchecked; use scrapy_walsh.RobotsTxtMiddleware "
                "(docs: Correct robots.txt for any Scrapy project)",
            )
    else:
        yield Finding("2", "R2", PASS, setting, "Scrapy's RobotsTxtMiddleware is disabled")


def robots_gate(subject: Subject) -> Iterator[Finding]:
    walsh = subject.walsh
    yield from gate_removed(subject, "2", "R2", RobotsMiddleware, "robots.txt")
    mode = walsh.value("WALSH_ROBOTS_MODE", None)
    if why := walsh.refused("WALSH_ROBOTS_MODE"):
        yield Finding("2", "R2", FAIL, "WALSH_ROBOTS_MODE", why)
    elif mode != "respect":
        yield loosens(
            "2",
            "R2",
            "WALSH_ROBOTS_MODE",
            mode,
            f"robots.txt is {'not fetched' if mode == 'ignore' else 'recorded but not obeyed'}; "
            "this crawl does NOT meet R2. Use it only on sites you run",
        )
    elif component_enabled(subject.settings, RobotsMiddleware):
        yield Finding("2", "R2", PASS, "WALSH_ROBOTS_MODE", "respect: disallowed and unreachable block")
    if why := walsh.refused("WALSH_ROBOTS_CACHE_SECONDS"):
        yield Finding("2", "R2", FAIL, "WALSH_ROBOTS_CACHE_SECONDS", why)


def named_group(subject: Subject) -> Iterator[Finding]:
    walsh = subject.walsh
    if not component_enabled(subject.settings, RobotsMiddleware):
        yield Finding(
            "2a",
            "R2",
            FAIL,
            placed_in(RobotsMiddleware),
            f"{path_of(RobotsMiddleware)} is disabled; no robots.txt group is selected at all",
        )
    elif walsh.refused("WALSH_ROBOTS_TOKEN"):
        token = walsh.given("WALSH_ROBOTS_TOKEN")
        yield Finding(
            "2a", "R2", FAIL, "WALSH_ROBOTS_TOKEN", f"{token!r} is not a product token; no named group can match it"
        )
    elif walsh.value("WALSH_ROBOTS_MODE", None) == "respect":
        yield Finding(
            "2a",
            "R2",
            PASS,
            "WALSH_ROBOTS_TOKEN",
            f"groups are selected by the token {walsh.value('WALSH_ROBOTS_TOKEN')!r}: a group naming it "
            "overrides * both ways (RFC 9309 §2.2.1)",
        )
