"""scrapy-walsh: a Scrapy add-on that makes every request obey
walsh-research-compliance/v1 and RFC 9309: ``ADDONS = {"scrapy_walsh.Addon": 500}``.

Without the add-on, ``ROBOTSTXT_PARSER = "scrapy_walsh.RobotParser"`` and
``scrapy_walsh.RobotsTxtMiddleware`` give any Scrapy project RFC 9309 robots.txt
(docs/robotstxt-any-project.md). The names below are loaded on first use (PEP 562), so
``import scrapy_walsh`` or ``import scrapy_walsh.policy.pacing`` does not load Scrapy,
Twisted or the adapters.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: the exceptions an errback may catch (scrapy_walsh.exceptions)
_EXCEPTIONS = (
    "WalshIgnoreRequest",
    "OutOfScope",
    "PrivateAddressRefused",
    "BlockedByOperator",
    "RobotsDenied",
    "NotModified",
    "RecentlyFetched",
    "CrawlDelayExceedsCap",
    "HostPaused",
    "ConformanceError",
    "UsageReserved",
    "CheckpointRefused",
    "ResponseTooLarge",
    "WalshDropped",
    "CrawlClosing",
    "CrawlStopping",
    "NotSent",
    "OfflineNotSent",
    "RobotsTxtForbidden",
)
#: public name -> the module that defines it
_LAZY: Mapping[str, str] = MappingProxyType(
    {
        "Addon": "scrapy_walsh.addon",
        "SPEC_VERSION": "scrapy_walsh.settings",
        "StructuredSourceSpider": "scrapy_walsh.discovery.structured",
        "RobotParser": "scrapy_walsh.middlewares.robots_parser",
        "RobotsTxtMiddleware": "scrapy_walsh.middlewares.robotstxt",
        "refusal_reported": "scrapy_walsh.outputs.clean_refusal",
        **dict.fromkeys(_EXCEPTIONS, "scrapy_walsh.exceptions"),
    }
)

__all__ = (*_LAZY, "__version__")

if TYPE_CHECKING:  # the lazy names, for type checkers (F401: re-exported through __all__)
    from scrapy_walsh.addon import Addon
    from scrapy_walsh.discovery.structured import StructuredSourceSpider
    from scrapy_walsh.exceptions import (
        BlockedByOperator,
        CheckpointRefused,
        ConformanceError,
        CrawlClosing,
        CrawlDelayExceedsCap,
        CrawlStopping,
        HostPaused,
        NotModified,
        NotSent,
        OfflineNotSent,
        OutOfScope,
        PrivateAddressRefused,
        RecentlyFetched,
        ResponseTooLarge,
        RobotsDenied,
        RobotsTxtForbidden,
        UsageReserved,
        WalshDropped,
        WalshIgnoreRequest,
    )
    from scrapy_walsh.middlewares.robots_parser import RobotParser
    from scrapy_walsh.middlewares.robotstxt import RobotsTxtMiddleware
    from scrapy_walsh.outputs.clean_refusal import refusal_reported
    from scrapy_walsh.settings import SPEC_VERSION


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'scrapy_walsh' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
