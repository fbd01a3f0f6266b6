"""R6-R8 (rows 6-8): declared targets only, metadata only, conditional fetches, infrequent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scrapy.settings import SETTINGS_PRIORITIES, BaseSettings
from scrapy.utils.misc import load_object

from scrapy_walsh.conformance.engine import (
    FAIL,
    PASS,
    WARN,
    Finding,
    Subject,
    component_enabled,
    enabled_components,
    gate_removed,
    holds,
    index,
    loosens,
    media_pipeline,
)
from scrapy_walsh.middlewares.conditional import ConditionalMiddleware
from scrapy_walsh.middlewares.frequency import FrequencyMiddleware
from scrapy_walsh.middlewares.scope import DeclaredTargetsMiddleware, SubresourceMiddleware
from scrapy_walsh.pipelines.dedup import PRIORITY as DEDUP_PRIORITY
from scrapy_walsh.pipelines.dedup import DedupPipeline
from scrapy_walsh.pipelines.metadata import AddedContentPipeline, MetadataOnlyPipeline
from scrapy_walsh.settings import SETTINGS_BY_NAME


def scope(subject: Subject) -> Iterator[Finding]:
    settings, walsh = subject.settings, subject.walsh
    yield from gate_removed(subject, "6", "R6", DeclaredTargetsMiddleware, "the declared targets")
    yield from gate_removed(subject, "6", "R6", SubresourceMiddleware, "sub-resources")
    yield from gate_removed(subject, "6", "R6", MetadataOnlyPipeline, "item contents")
    yield from gate_removed(subject, "6", "R6", AddedContentPipeline, "what the project's pipelines add to items")
    if settings.getbool("HTTPCACHE_ENABLED"):
        yield Finding(
            "6",
            "R6",
            FAIL,
            "HTTPCACHE_ENABLED",
            "Scrapy's HTTP cache stores every page body on disk (R6: store no content); "
            "conditional requests (R7) replace it",
        )
    for path in enabled_components(settings, "ITEM_PIPELINES"):
        if component := media_pipeline(path):
            yield Finding(
                "6",
                "R6",
                FAIL,
                "ITEM_PIPELINES",
                f"{component.__name__} downloads images or files: "
                "R6 forbids sub-resources and stored content (it was placed after the add-on switched "
                "media pipelines off: remove it, or place it before the add-on in ADDONS)",
            )
    yield from media_switched_off(settings)
    for name, what in (("WALSH_MAX_FIELD_CHARS", "strings"), ("WALSH_MAX_ITEM_CHARS", "all strings together")):
        if why := walsh.refused(name):
            yield Finding("6", "R6", FAIL, name, why)
        elif (value := walsh.value(name)) > _default(name):
            yield loosens(
                "6",
                "R6",
                name,
                value,
                f"items may carry {what} of up to {value} characters (default {_default(name)}): "
                "more of a page body passes as metadata",
            )


def media_switched_off(settings: BaseSettings) -> Iterator[Finding]:
    """The project's media pipelines the preset switched off (their entries are None): one warning
    naming them, at start and in ``check``."""
    found: dict[str, type] = {}
    for name in ("ITEM_PIPELINES_BASE", "ITEM_PIPELINES"):
        if (settings.getpriority(name) or 0) <= SETTINGS_PRIORITIES["default"]:
            continue
        for path, order in settings.getdict(name).items():
            if order is None and (component := media_pipeline(path)):
                found.setdefault(component.__name__, component)
    if found:
        names = ", ".join(found)
        yield Finding(
            "6",
            "R6",
            WARN,
            "ITEM_PIPELINES",
            f"{names} switched off by the preset: {'it downloads' if len(found) == 1 else 'they download'} "
            "images or files, sub-resources R6 forbids (items keep their image_urls / file_urls as "
            f"metadata); remove {'it' if len(found) == 1 else 'them'} from ITEM_PIPELINES to silence this",
        )


def _default(name: str) -> Any:
    return SETTINGS_BY_NAME[name].default


def freshness(subject: Subject) -> Iterator[Finding]:
    walsh = subject.walsh
    yield from gate_removed(subject, "7", "R7", ConditionalMiddleware, "stored validators")
    yield from gate_removed(subject, "7", "R7", DedupPipeline, "items already emitted")
    yield from gate_removed(subject, "8", "R8", FrequencyMiddleware, "the last fetch times")
    interval = walsh.value("WALSH_REFETCH_INTERVAL", None)
    if why := walsh.refused("WALSH_REFETCH_INTERVAL"):
        yield Finding("8", "R8", FAIL, "WALSH_REFETCH_INTERVAL", why)
    elif interval == 0:
        yield loosens(
            "8",
            "R8",
            "WALSH_REFETCH_INTERVAL",
            interval,
            "it disables the frequency guard: R8 (do not hit a source more than once a day) is not enforced",
        )
    elif interval < _default("WALSH_REFETCH_INTERVAL"):
        yield loosens(
            "8",
            "R8",
            "WALSH_REFETCH_INTERVAL",
            interval,
            f"a target may be fetched again after {interval:g} s, more often than once a day",
        )
    elif component_enabled(subject.settings, FrequencyMiddleware):
        yield Finding("8", "R8", PASS, "WALSH_REFETCH_INTERVAL", f"{interval:g} s between fetches of a target")


def dedup_reset(subject: Subject) -> Iterator[Finding]:
    if why := subject.walsh.refused("WALSH_DEDUP_RESET"):
        yield Finding("7", "R7", FAIL, "WALSH_DEDUP_RESET", why)


def scope_holds(subject: Subject) -> Iterator[Finding]:
    if holds(subject, scope):
        yield Finding(
            "6",
            "R6",
            PASS,
            "SPIDER_MIDDLEWARES",
            "declared targets only, no sub-resources, items metadata-only "
            f"(strings up to {subject.walsh.value('WALSH_MAX_FIELD_CHARS')} characters, "
            f"{subject.walsh.value('WALSH_MAX_ITEM_CHARS')} in all)",
        )


def conditional_holds(subject: Subject) -> Iterator[Finding]:
    chain = enabled_components(subject.settings, "DOWNLOADER_MIDDLEWARES")
    pipelines = enabled_components(subject.settings, "ITEM_PIPELINES")
    if index(chain, ConditionalMiddleware) is not None and index(pipelines, DedupPipeline) is not None:
        yield Finding(
            "7",
            "R7",
            PASS,
            "DOWNLOADER_MIDDLEWARES",
            "stored validators sent (304 = no new data); items deduped by canonical URL",
        )


def pipelines_see_the_feed(subject: Subject) -> Iterator[Finding]:
    """A project pipeline placed before the add-on's item drops (the R6 bounds, R7 dedup) sees
    items the feed never gets: it would count or write them. Said before the crawl, by name."""
    pipelines = enabled_components(subject.settings, "ITEM_PIPELINES")
    ours = [i for i in (index(pipelines, MetadataOnlyPipeline), index(pipelines, DedupPipeline)) if i is not None]
    if not ours:
        return  # a gate removed: that failure is said already
    for entry in pipelines[: max(ours)]:
        try:
            component = load_object(entry)
        except (ImportError, NameError, ValueError):
            component = entry
        if component in (MetadataOnlyPipeline, DedupPipeline):
            continue
        name = getattr(component, "__qualname__", str(entry))
        yield Finding(
            "6",
            "R6",
            WARN,
            "ITEM_PIPELINES",
            f"{name} runs before the add-on drops items (R6 item bounds, R7 dedup): it sees items the feed "
            f"never gets; give it a priority over {DEDUP_PRIORITY} so it sees exactly the exported items",
        )
