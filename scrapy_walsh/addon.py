"""``ADDONS = {"scrapy_walsh.Addon": 500}``: the whole contract from one line.

The add-on writes the ``WALSH_*`` defaults (priority ``"default"``), the preset of
Scrapy settings (priority ``"addon"``), places every component of the package, and
removes Scrapy's ``RobotsTxtMiddleware`` whatever ``ROBOTSTXT_OBEY`` says. It then
audits the result and refuses to start on any setting that would break a MUST: the
project's own values outrank the preset (that is Scrapy's priority order), so they
may make the crawl stricter, never looser.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware

from . import refusal
from .conformance import ConformanceGuard, enforce, user_set
from .middlewares import addresses, conditional, frequency, scope, usage
from .middlewares.backoff import PRIORITY as BACKOFF_PRIORITY
from .middlewares.backoff import BackoffMiddleware
from .middlewares.blocklist import PRIORITY as BLOCKLIST_PRIORITY
from .middlewares.blocklist import BlocklistMiddleware
from .middlewares.identity import PRIORITY as IDENTITY_PRIORITY
from .middlewares.identity import IdentityMiddleware
from .middlewares.pacing import PRIORITY as PACING_PRIORITY
from .middlewares.pacing import PacingMiddleware
from .middlewares.robots import PRIORITY as ROBOTS_PRIORITY
from .middlewares.robots import RobotsMiddleware
from .pipelines import dedup, metadata
from .settings import WALSH_SETTINGS, preset
from .summary import OUTCOME_PRIORITY, ComplianceSummary, NetworkOutcomeMiddleware

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

logger = logging.getLogger(__name__)

#: (setting, component, priority): every component the add-on places.
COMPONENTS = (
    ("DOWNLOADER_MIDDLEWARES", RobotsTxtMiddleware, None),
    ("SPIDER_MIDDLEWARES", scope.DeclaredTargetsMiddleware, scope.SPIDER_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", scope.SubresourceMiddleware, scope.SUBRESOURCE_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", addresses.AddressGuardMiddleware, addresses.PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", addresses.ConnectRefusalMiddleware, addresses.CONNECT_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", BlocklistMiddleware, BLOCKLIST_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", RobotsMiddleware, ROBOTS_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", conditional.ConditionalMiddleware, conditional.PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", frequency.FrequencyMiddleware, frequency.PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", usage.UsageWarningsMiddleware, usage.PRIORITY),
    ("SPIDER_MIDDLEWARES", usage.UsageWarningsItemMiddleware, usage.SPIDER_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", BackoffMiddleware, BACKOFF_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", PacingMiddleware, PACING_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", IdentityMiddleware, IDENTITY_PRIORITY),
    ("ITEM_PIPELINES", metadata.MetadataOnlyPipeline, metadata.PRIORITY),
    ("ITEM_PIPELINES", dedup.DedupPipeline, dedup.PRIORITY),
    ("EXTENSIONS", ConformanceGuard, 0),
    ("EXTENSIONS", ComplianceSummary, 0),
    ("DOWNLOADER_MIDDLEWARES", NetworkOutcomeMiddleware, OUTCOME_PRIORITY),
)


class Addon:
    def update_settings(self, settings: BaseSettings) -> None:
        refusal.install()  # a refusal below is reported as its reasons, never as a traceback
        for setting in WALSH_SETTINGS:
            settings.set(setting.name, setting.default, priority="default")
        for entry in preset(settings):
            settings.set(entry.name, entry.value, priority="addon")
        for name, component, priority in COMPONENTS:
            settings.set_in_component_priority_dict(name, component, priority)
        if user_set(settings, "ROBOTSTXT_OBEY") and settings.getbool("ROBOTSTXT_OBEY"):
            logger.info(
                "ROBOTSTXT_OBEY is ignored: scrapy_walsh removes Scrapy's "
                "RobotsTxtMiddleware, which matches groups against the full User-Agent"
            )
        # Warnings are logged once, by ConformanceGuard on the final settings.
        enforce(settings, log_warnings=False)
