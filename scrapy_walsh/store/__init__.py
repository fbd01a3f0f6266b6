"""Persistent state: where it lives.

``WALSH_STATE_URI`` follows SQLAlchemy's URL convention, so ``sqlite:///x.sqlite3`` is
relative to the working directory and ``sqlite:////var/lib/x.sqlite3`` is absolute.
The store itself (get/set with expiry, sqlite and Redis backends) plugs in here; this
module only resolves and validates the location, so a bad URI stops the crawl before
any request leaves.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

DEFAULT_STATE_FILE = "walsh-state.sqlite3"


@dataclass(frozen=True)
class StateLocation:
    scheme: str
    path: Path
    uri: str


def parse_state_uri(uri: str | None, default_path: str | Path) -> StateLocation:
    """Resolve ``WALSH_STATE_URI``; raise ``ValueError`` saying why a URI is refused.

    ``None`` (the default) means an sqlite file at ``default_path``, which the add-on
    sets to the project's ``.scrapy/`` data directory.
    """
    if uri is None or (isinstance(uri, str) and not uri.strip()):
        path = Path(default_path)
        return StateLocation("sqlite", path, f"sqlite:///{path}")
    if not isinstance(uri, str):
        raise ValueError(f"expected a URI string, got {uri!r}")
    scheme = urlsplit(uri).scheme.lower()
    if scheme == "sqlite":
        prefix = "sqlite:///"
        if not uri.lower().startswith(prefix) or len(uri) == len(prefix):
            raise ValueError(
                f"{uri!r}: use sqlite:///relative/path.sqlite3 or "
                "sqlite:////absolute/path.sqlite3"
            )
        raw = uri[len(prefix):]
        if raw == ":memory:":
            raise ValueError(
                f"{uri!r}: an in-memory database loses the last-known blocklist and "
                "every validator when the process ends"
            )
        return StateLocation("sqlite", Path(raw), uri)
    if scheme in {"redis", "rediss"}:
        raise ValueError(
            f"{uri!r}: the Redis backend arrives with fleet mode and is not available "
            "in this version; use an sqlite:/// URI"
        )
    raise ValueError(f"{uri!r}: unsupported scheme {scheme or '(none)'!r}; use sqlite:///")


def state_location(settings: BaseSettings) -> StateLocation:
    """``WALSH_STATE_URI`` for this crawl; the default is Scrapy's project data dir.

    Inside a project that is ``<project>/.scrapy/walsh-state.sqlite3`` (Scrapy's
    ``data_path``, where Scrapy also keeps ``HTTPCACHE_DIR``); outside one, it is
    ``.scrapy/walsh-state.sqlite3`` under the working directory.
    """
    from scrapy.utils.project import data_path

    return parse_state_uri(settings.get("WALSH_STATE_URI"), data_path(DEFAULT_STATE_FILE))
