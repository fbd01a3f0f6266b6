"""``ADDONS = {"scrapy_walsh.Addon": 500}``: the whole contract from one line.

The add-on writes the ``WALSH_*`` defaults (priority ``"default"``), the preset of Scrapy
settings (priority ``"addon"``), places every component of the package, and removes Scrapy's
``RobotsTxtMiddleware`` whatever ``ROBOTSTXT_OBEY`` says. It then audits the result and refuses
to start on any setting that would break a MUST: the project's own values outrank the preset
(Scrapy's priority order), so they may make the crawl stricter; only the loosening ``WALSH_*``
settings (docs/loosening.md) make it looser, each with a warning.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.settings import SETTINGS_PRIORITIES

from scrapy_walsh.components import PLACED
from scrapy_walsh.conformance import ConformanceError, ConformanceGuard, enforce, user_set
from scrapy_walsh.conformance.engine import media_pipeline, path_of
from scrapy_walsh.outputs import clean_refusal
from scrapy_walsh.outputs.progress import Progress
from scrapy_walsh.outputs.summary import OUTCOME_PRIORITY, ComplianceSummary, NetworkOutcomeMiddleware
from scrapy_walsh.preset import preset
from scrapy_walsh.settings import CHECKPOINT_HANDLER, CHECKPOINT_SCHEMES, WALSH_SETTINGS

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

logger = logging.getLogger(__name__)

#: (setting, component, priority): every component the add-on places.
COMPONENTS = (
    *PLACED,
    ("EXTENSIONS", ConformanceGuard, 0),
    ("EXTENSIONS", ComplianceSummary, 0),
    ("EXTENSIONS", Progress, 0),
    ("DOWNLOADER_MIDDLEWARES", NetworkOutcomeMiddleware, OUTCOME_PRIORITY),
)


class Addon:
    """The add-on: ``ADDONS = {"scrapy_walsh.Addon": 500}`` in a project's ``settings.py``.

    It writes the ``WALSH_*`` defaults and the preset, places the gates and the checkpoint, and
    refuses to start a crawl whose settings would break a MUST, naming the setting.
    """

    def __init__(self, crawler: Crawler | None = None):
        #: the crawl Scrapy made the add-on for; None when a command audits settings itself
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Addon:
        return cls(crawler)

    def update_settings(self, settings: BaseSettings) -> None:
        for setting in WALSH_SETTINGS:
            settings.set(setting.name, setting.default, priority="default")
        for entry in preset(settings):
            settings.set(entry.name, entry.value, priority="addon")
        wrap_project_handler(settings)
        switch_off_media_pipelines(settings)
        for name, component, priority in COMPONENTS:
            settings.set_in_component_priority_dict(name, component, priority)
        if user_set(settings, "ROBOTSTXT_OBEY") and settings.getbool("ROBOTSTXT_OBEY"):
            logger.info(
                "ROBOTSTXT_OBEY is ignored: scrapy_walsh removes Scrapy's "
                "RobotsTxtMiddleware, which matches groups against the full User-Agent"
            )
        # Warnings are logged once, by ConformanceGuard on the final settings.
        try:
            enforce(settings, log_warnings=False)
        except ConformanceError as exc:
            if self.crawler is not None:  # Scrapy's crawl: said once, as its reasons; Scrapy fails it
                clean_refusal.report(exc)
            raise


def switch_off_media_pipelines(settings: BaseSettings) -> None:
    """The preset disables sub-resources: a media pipeline (Scrapy's ``ImagesPipeline``,
    ``FilesPipeline``, any ``MediaPipeline`` subclass) in ``ITEM_PIPELINES`` is switched off, its
    entry set to None at the priority the project gave it. The audit then warns, naming it; one
    placed after the add-on ran is refused at start."""
    for name in ("ITEM_PIPELINES_BASE", "ITEM_PIPELINES"):
        entries = dict(settings.getdict(name))
        media = [path for path, order in entries.items() if order is not None and media_pipeline(path)]
        if media:
            entries.update(dict.fromkeys(media))
            settings.set(name, entries, priority=settings.getpriority(name) or 0)


def wrap_project_handler(settings: BaseSettings) -> None:
    """A project's own http(s) handler in ``DOWNLOAD_HANDLERS`` (aiohttp for a reactorless crawl,
    an impersonating handler ...) is wrapped by the checkpoint rather than put around it: it
    becomes ``WALSH_DOWNLOAD_HANDLER``. What is set after the add-on runs is audited, not wrapped."""
    priority = settings.getpriority("DOWNLOAD_HANDLERS") or 0
    if priority <= SETTINGS_PRIORITIES["addon"]:
        return
    own = dict(settings.getdict("DOWNLOAD_HANDLERS"))
    chosen = {
        path_of(h) if isinstance(h, type) else h for s, h in own.items() if s in CHECKPOINT_SCHEMES and h is not None
    } - {CHECKPOINT_HANDLER}
    if len(chosen) > 1:
        return  # two handlers: the audit names it
    if chosen:
        wrapped = chosen.pop()
        settings.set("WALSH_DOWNLOAD_HANDLER", wrapped, priority=priority)
        logger.info("DOWNLOAD_HANDLERS: http(s) go through the checkpoint, which wraps %s", wrapped)
    own.update(
        dict.fromkeys((s for s in CHECKPOINT_SCHEMES if own.get(s, CHECKPOINT_HANDLER) is not None), CHECKPOINT_HANDLER)
    )
    settings.set("DOWNLOAD_HANDLERS", own, priority=priority)
