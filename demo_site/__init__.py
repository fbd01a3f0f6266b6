"""A local demo site for exercising a compliant crawler against real HTTP.

Each demo host (see :mod:`demo_site.hosts`) gets its own loopback address, all
on one port, and every request is logged so tests can check what the server saw.
Stdlib only, so it can run anywhere the package is installed, without Scrapy.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from demo_site.hosts import DEFAULT_PORT, DEMO_DOMAIN, HOSTS
from demo_site.server import DemoSite, load_request_log

__all__ = ("DEFAULT_PORT", "DEMO_DOMAIN", "HOSTS", "DemoSite", "environ", "load_request_log")

#: The folder that holds this package: the repository (or an unpacked sdist).
ROOT = Path(__file__).resolve().parent.parent


def environ(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this process's environment) with :data:`ROOT` first on ``PYTHONPATH``:
    a crawl started with it imports ``demo_site`` (the demo resolver) as this process does."""
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env
