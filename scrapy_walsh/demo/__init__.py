"""A local demo site for exercising a compliant crawler against real HTTP.

Each demo host (see :mod:`scrapy_walsh.demo.hosts`) gets its own loopback address, all
on one port, and every request is logged so tests can check what the server saw.
Stdlib only, so it can run anywhere the package is installed, without Scrapy.
"""

from __future__ import annotations

from scrapy_walsh.demo.hosts import DEFAULT_PORT, DEMO_DOMAIN, HOSTS
from scrapy_walsh.demo.server import DemoSite, load_request_log

__all__ = ("DEFAULT_PORT", "DEMO_DOMAIN", "HOSTS", "DemoSite", "load_request_log")
