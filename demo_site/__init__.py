"""A local demo site for exercising a compliant crawler against real HTTP.

Each demo host (see :mod:`demo_site.hosts`) gets its own loopback address, all
on one port, and every request is logged so tests can check what the server saw.
Stdlib only, so it can run anywhere the package is installed, without Scrapy.
"""

from __future__ import annotations

from demo_site.hosts import DEFAULT_PORT, DEMO_DOMAIN, HOSTS
from demo_site.server import DemoSite, load_request_log

__all__ = ("DEFAULT_PORT", "DEMO_DOMAIN", "HOSTS", "DemoSite", "load_request_log")
