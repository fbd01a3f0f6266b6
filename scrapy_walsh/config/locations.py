"""Where a crawl keeps its state and its journal: ``WALSH_STATE_URI`` resolved, and the defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from scrapy_walsh.settings import ROBOTS_TOKEN

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class StateLocation:
    scheme: str
    path: Path
    #: the URI as configured, password included: for connecting, never for a message
    uri: str

    @property
    def shown(self) -> str:
        """The URI with its password masked: what every log line, message and report shows."""
        return masked_uri(self.uri)


def masked_uri(uri: str) -> str:
    """``uri`` with its password, and any ``password=`` query value, replaced by ``***``
    (``redis://:***@host:6379/0``); a user name stays. What logs and messages show of a store."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return "<an unreadable URI>"
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        if ":" in userinfo:
            netloc = f"{userinfo.partition(':')[0]}:***@{hostport}"
    query = "&".join(
        f"{name}=***" if name.lower() in ("password", "pass", "passwd") else f"{name}{sep}{value}"
        for name, sep, value in (pair.partition("=") for pair in parts.query.split("&") if pair)
    )
    if (netloc, query) == (parts.netloc, parts.query):
        return uri  # nothing to hide
    # built by hand: urlunsplit would drop the empty authority of unix:///path
    return (
        f"{parts.scheme}://{netloc}{parts.path}"
        + (f"?{query}" if query else "")
        + (f"#{parts.fragment}" if parts.fragment else "")
    )


def parse_state_uri(uri: str | None, default_path: str | Path) -> StateLocation:
    """Resolve ``WALSH_STATE_URI``; raise ``ValueError`` saying why a URI is refused.

    ``None`` (the default) means an sqlite file at ``default_path``, which the add-on
    sets to the identity's file in the per-user state directory (``config.default_state``).
    """
    if uri is None or (isinstance(uri, str) and not uri.strip()):
        path = Path(default_path)
        return StateLocation("sqlite", path, f"sqlite:///{path}")
    if not isinstance(uri, str):
        raise ValueError(f"expected a URI string, got {uri!r}")
    shown = masked_uri(uri)
    scheme = urlsplit(uri).scheme.lower()
    if scheme == "sqlite":
        prefix = "sqlite:///"
        if not uri.lower().startswith(prefix) or len(uri) == len(prefix):
            raise ValueError(f"{shown!r}: use sqlite:///relative/path.sqlite3 or sqlite:////absolute/path.sqlite3")
        raw = uri[len(prefix) :]
        if raw == ":memory:":
            raise ValueError(
                f"{shown!r}: an in-memory database loses the last-known blocklist and "
                "every validator when the process ends"
            )
        return StateLocation("sqlite", Path(raw), uri)
    if scheme in {"redis", "rediss", "unix"}:
        parts = urlsplit(uri)
        if scheme != "unix" and not parts.hostname:
            raise ValueError(f"{shown!r}: a Redis URI names its server: redis://host:port/db")
        if scheme == "unix" and not parts.path:
            raise ValueError(f"{shown!r}: a unix:// Redis URI names its socket: unix:///path/redis.sock")
        return StateLocation("redis", Path(parts.path or "/"), uri)
    raise ValueError(f"{shown!r}: unsupported scheme {scheme or '(none)'!r}; use sqlite:/// or redis://")


def state_dir() -> Path:
    """The per-user state directory: ``$XDG_STATE_HOME/scrapy-walsh``, falling back to
    ``~/.local/state/scrapy-walsh`` (the XDG Base Directory spec's place for state that
    outlives a run but is not worth backing up with the user's documents)."""
    base = os.environ.get("XDG_STATE_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "state"
    return root / "scrapy-walsh"


def default_state(identity: str = "") -> StateLocation:
    """The default store: one sqlite file per identity per user on this machine
    (``<state dir>/<identity>.sqlite3``), shared by every project, spider and command of
    that identity, so the pacing ledger, robots.txt cache and adopted blocklist hold per
    identity, not per project."""
    name = "".join(c if c.isalnum() or c in "-._" else "_" for c in (identity or ROBOTS_TOKEN).lower())
    return parse_state_uri(None, state_dir() / f"{name.strip('.') or 'walsh'}.sqlite3")


def journal_path(configured: str | None, state: StateLocation, identity: str) -> Path:
    """The request journal's directory: ``WALSH_JOURNAL_DIR``, else beside the sqlite store
    (``<store>.journal``), else (Redis) ``<state dir>/<identity>.journal``."""
    if configured:
        return Path(configured)
    if state.scheme != "sqlite":
        state = default_state(identity)
    return state.path.with_name(state.path.stem + ".journal")
