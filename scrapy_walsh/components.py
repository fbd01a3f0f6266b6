"""Where the add-on places each of its components, and the Scrapy ones it removes or replaces.

One table, read by the add-on (:data:`scrapy_walsh.addon.COMPONENTS`) and by the settings
audit, whose rules ask where a component belongs (``conformance.engine.placed_in``). The audit's
own extension is not in it: the audit imports this table, so the table can't import the audit.
"""

from __future__ import annotations

from scrapy.downloadermiddlewares.httpcompression import HttpCompressionMiddleware
from scrapy.downloadermiddlewares.redirect import MetaRefreshMiddleware, RedirectMiddleware
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware

from scrapy_walsh.discovery import manifests
from scrapy_walsh.middlewares import addresses, admission, bounds, conditional, frequency, scope, usage_preferences
from scrapy_walsh.middlewares.backoff import PRIORITY as BACKOFF_PRIORITY
from scrapy_walsh.middlewares.backoff import BackoffMiddleware
from scrapy_walsh.middlewares.blocklist import PRIORITY as BLOCKLIST_PRIORITY
from scrapy_walsh.middlewares.blocklist import BlocklistMiddleware
from scrapy_walsh.middlewares.pacing import PRIORITY as PACING_PRIORITY
from scrapy_walsh.middlewares.pacing import PacingMiddleware
from scrapy_walsh.middlewares.robots_gate import PRIORITY as ROBOTS_PRIORITY
from scrapy_walsh.middlewares.robots_gate import RobotsMiddleware
from scrapy_walsh.outputs import delivery
from scrapy_walsh.pipelines import dedup, metadata

#: (setting, component, priority): every component the add-on places, but for its audit
#: (``ConformanceGuard``) and its summary, which the add-on adds after these.
PLACED = (
    ("DOWNLOADER_MIDDLEWARES", RobotsTxtMiddleware, None),
    # redirects and retries are new Request objects: ours carry the admission tokens over
    ("DOWNLOADER_MIDDLEWARES", RedirectMiddleware, None),
    ("DOWNLOADER_MIDDLEWARES", admission.WalshRedirectMiddleware, admission.REDIRECT_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", MetaRefreshMiddleware, None),
    ("DOWNLOADER_MIDDLEWARES", admission.WalshMetaRefreshMiddleware, admission.META_REFRESH_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", HttpCompressionMiddleware, None),
    ("DOWNLOADER_MIDDLEWARES", bounds.BoundedCompressionMiddleware, bounds.PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", RetryMiddleware, None),
    ("DOWNLOADER_MIDDLEWARES", admission.WalshRetryMiddleware, admission.RETRY_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", admission.AdmissionMiddleware, admission.PRIORITY),
    ("SPIDER_MIDDLEWARES", scope.DeclaredTargetsMiddleware, scope.SPIDER_PRIORITY),
    ("SPIDER_MIDDLEWARES", manifests.DiscoveryMiddleware, manifests.SPIDER_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", scope.SubresourceMiddleware, scope.SUBRESOURCE_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", addresses.AddressGuardMiddleware, addresses.PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", addresses.ConnectRefusalMiddleware, addresses.CONNECT_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", BlocklistMiddleware, BLOCKLIST_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", RobotsMiddleware, ROBOTS_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", conditional.ConditionalMiddleware, conditional.PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", frequency.FrequencyMiddleware, frequency.PRIORITY),
    ("SPIDER_MIDDLEWARES", frequency.AnsweredMiddleware, frequency.SPIDER_PRIORITY),
    ("SPIDER_MIDDLEWARES", delivery.RedeliveryMiddleware, delivery.SPIDER_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", usage_preferences.UsagePreferencesMiddleware, usage_preferences.PRIORITY),
    ("SPIDER_MIDDLEWARES", usage_preferences.UsagePreferencesItemMiddleware, usage_preferences.SPIDER_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", BackoffMiddleware, BACKOFF_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", PacingMiddleware, PACING_PRIORITY),
    ("ITEM_PIPELINES", metadata.MetadataOnlyPipeline, metadata.PRIORITY),
    ("ITEM_PIPELINES", dedup.DedupPipeline, dedup.PRIORITY),
    ("ITEM_PIPELINES", metadata.AddedContentPipeline, metadata.LAST_PRIORITY),
)
