"""``WalshConfig``: every ``WALSH_*`` setting, parsed once, typed and frozen.

Each setting has one parser here. The start-up audit (:mod:`scrapy_walsh.conformance`)
calls the same parsers, so a value the audit refuses is the value the config refuses.
The config of a crawl is made once its audit passes (``ConformanceGuard``, :func:`configure`):
components read it with :func:`config_for`, never a ``WALSH_*`` setting; a unit test holds
every other module to that. A crawler no audit passed has no config, and gets the
:class:`~scrapy_walsh.exceptions.ConformanceError` that says so.
"""

from __future__ import annotations

import math
import os
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from . import clean_refusal
from .exceptions import FAIL, ConformanceError, Finding
from .policy.addresses import PrivateAddressAllowance, parse_ip
from .policy.hostkey import host_key
from .settings import (
    MAX_BODY_BYTES,
    MIN_INTERVAL_FLOOR,
    RECHECK_INTERVAL,
    ROBOTS_CACHE_SECONDS,
    ROBOTS_TOKEN,
    SETTINGS_BY_NAME,
    WALSH_SETTINGS,
)

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

#: RFC 9309 §2.2.1: a product token is letters, "_" and "-" only.
PRODUCT_TOKEN = re.compile(r"[A-Za-z_-]+")
ROBOTS_MODES = ("respect", "report_only", "ignore")
#: The statuses R5 names; ``WALSH_BACKOFF_HTTP_CODES`` must include both.
REQUIRED_BACKOFF_CODES = frozenset({429, 503})


# --- the building blocks --------------------------------------------------------------


def number(value: Any) -> float:
    """A finite number as Scrapy's ``getfloat`` reads it (``2``, ``2.5``, ``"2.5"``), else ``ValueError``.

    Every float setting is read here. NaN and infinity are refused: ``nan`` compares false
    with everything, so it slips through every ``<`` check ("paused for nan s"), and an
    infinite interval or cap means nothing a crawl can act on.
    """
    try:
        result = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"not a number: {value!r}") from None
    if not math.isfinite(result):
        raise ValueError(f"not a finite number: {value!r} (NaN and infinity are refused)")
    return result


def _number_or_none(value: Any) -> float | None:
    try:
        return number(value)
    except ValueError:
        return None


def _finite_note(value: Any) -> str:
    """`` (NaN and infinity are refused)`` when ``value`` reads as one of them, for the messages."""
    try:
        return "" if math.isfinite(float(value)) else " (NaN and infinity are refused)"
    except (TypeError, ValueError, OverflowError):
        return ""


def whole_number(value: Any) -> int | None:
    """A non-negative whole number as a setting may hold it (``5`` or ``"5"``), else None."""
    text = str(value)
    return None if isinstance(value, bool) or not (text.isascii() and text.isdigit()) else int(text)


def as_list(value: Any) -> list[Any]:
    """A list setting as Scrapy's ``getlist`` reads it: a comma-separated string or an
    iterable (``TypeError`` otherwise, as there)."""
    if not value:
        return []
    if isinstance(value, str):
        return value.split(",")
    return list(value)


def is_http_url(value: Any) -> bool:
    parts = urlsplit(value) if isinstance(value, str) else None
    return bool(parts and parts.scheme in {"http", "https"} and parts.hostname)


def http_codes(value: Any) -> tuple[int, ...]:
    """The statuses of a list setting, as integers in its order; ``ValueError`` when one is not."""
    try:
        return tuple(int(c) for c in as_list(value))
    except (TypeError, ValueError):
        raise ValueError(f"expected HTTP status codes, got {value!r}") from None


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


# --- one parser per setting: the value, or ValueError with the audit's message -----------


def user_agent(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or not (value.isascii() and value.isprintable()):
        raise ValueError(f"must be one non-empty line of printable ASCII, got {value!r}")
    return value


def robots_token(value: Any) -> str:
    if not isinstance(value, str) or not PRODUCT_TOKEN.fullmatch(value):
        raise ValueError(f"{value!r} is not an RFC 9309 product token (letters, '_' and '-')")
    return value


def blocklist_url(value: Any) -> str:
    if not is_http_url(value):
        raise ValueError(
            f"must be an absolute http(s) URL, got {value!r}; every tool MUST consult the operator blocklist"
        )
    return str(value)


def blocklist_schema_url(value: Any) -> str | None:
    if value is not None and not is_http_url(value):
        raise ValueError(f"must be an absolute http(s) URL or None, got {value!r}")
    return value


def blocklist_extra(value: Any) -> tuple[str, ...]:
    from .policy.blocklist import Blocklist

    if isinstance(value, str):
        value = [d for d in value.split(",") if d.strip()]
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"expected a list of domains, got {value!r}")
    Blocklist.empty().with_extra(list(value))  # raises ValueError naming the first bad domain
    return tuple(d.strip() for d in value if d.strip())


def document_field(value: Any) -> str | None:
    """A field of a new blocklist file (not read by crawls; ``blocklist add`` validates the document)."""
    return value


def signing_key(value: Any) -> str | None:
    """WALSH_SIGNING_KEY: a readable Ed25519 private key (PEM, PKCS#8), or unset.

    Read once here, so a key that is missing, unreadable or not Ed25519 stops the crawl at
    start instead of leaving requests unsigned."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise ValueError(f"expected a path to an Ed25519 private key, got {value!r}")
    from .webbotauth import SigningError, load_private_key

    try:
        load_private_key(value)
    except (SigningError, OSError) as exc:
        raise ValueError(f"{value!r}: {exc}") from None
    return value


#: Hosts a key directory may be served from over plain http: loopback and the names
#: RFC 2606 reserves for testing, so the demo and the tests can sign without TLS.
_HTTP_DIRECTORY_HOSTS = ("localhost",)
_HTTP_DIRECTORY_SUFFIXES = (".test", ".localhost")


def signature_agent(value: Any) -> str | None:
    """WALSH_SIGNATURE_AGENT: the https URL of our key directory, or unset.

    A site fetches the directory to verify us; over plain http anyone on the path could
    swap our keys, so http is refused except on loopback and ``.test`` names."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise ValueError(f"expected the https URL of the key directory, got {value!r}")
    parts = urlsplit(value)
    try:
        host = (parts.hostname or "").rstrip(".").lower()
    except ValueError:
        host = ""
    if parts.scheme not in ("https", "http") or not host:
        raise ValueError(f"{value!r} is not an absolute https URL")
    local = host in _HTTP_DIRECTORY_HOSTS or host.endswith(_HTTP_DIRECTORY_SUFFIXES) or _loopback(host)
    if parts.scheme == "http" and not local:
        raise ValueError(f"{value!r} is not https: a site must fetch our key directory over TLS")
    return value


def _loopback(host: str) -> bool:
    ip = parse_ip(host)
    return ip is not None and ip.is_loopback


def journal_dir(value: Any) -> str | None:
    """WALSH_JOURNAL_DIR: a directory path, or None (beside the state store)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str | Path):
        raise ValueError(f"expected a directory path, got {value!r}")
    return str(value)


def journal_retention_days(value: Any) -> int:
    days = whole_number(value)
    if days is None or days < 1:
        raise ValueError(f"must be a whole number of days, at least 1, got {value!r}")
    return days


def journal_sign_every(value: Any) -> int:
    count = whole_number(value)
    if count is None or count < 1:
        raise ValueError(f"must be a whole number of entries, at least 1, got {value!r}")
    return count


def robots_mode(value: Any) -> str:
    if value not in ROBOTS_MODES:
        raise ValueError(f"{value!r} is not one of {', '.join(ROBOTS_MODES)}")
    return str(value)


def robots_cache_seconds(value: Any) -> float:
    seconds = _number_or_none(value)
    if seconds is None or not 0 < seconds <= ROBOTS_CACHE_SECONDS:
        raise ValueError(
            f"must be a number of seconds in (0, {ROBOTS_CACHE_SECONDS}], got {value!r} (RFC 9309 §2.4: at most 24 h)"
            + _finite_note(value)
        )
    return seconds


def min_interval(value: Any) -> float:
    interval = _number_or_none(value)
    if interval is None:
        raise ValueError(
            f"must be a number of seconds >= the R4 floor of {MIN_INTERVAL_FLOOR} s, got {value!r}"
            + _finite_note(value)
        )
    if interval < MIN_INTERVAL_FLOOR:
        raise ValueError(
            f"{value!r} is under the R4 floor of {MIN_INTERVAL_FLOOR} s between requests to a "
            "host (it may be raised, never lowered)"
        )
    return interval


def max_crawl_delay(value: Any, floor: float) -> float:
    cap = _number_or_none(value)
    if cap is None or cap < floor:
        raise ValueError(
            f"must be a number of seconds >= WALSH_MIN_INTERVAL ({floor:g}), got {value!r}" + _finite_note(value)
        )
    return cap


def backoff_http_codes(value: Any) -> tuple[int, ...]:
    try:
        codes = http_codes(value)
    except ValueError:
        codes = ()
    if not REQUIRED_BACKOFF_CODES <= set(codes):
        raise ValueError(f"must include 429 and 503, got {value!r}")
    return codes


def backoff_base(value: Any) -> float:
    base = _number_or_none(value)
    if base is None or base <= 0:
        raise ValueError(f"must be a positive number of seconds, got {value!r}" + _finite_note(value))
    return base


def backoff_max_delay(value: Any, floor: float) -> float:
    cap = _number_or_none(value)
    if cap is None or cap < floor:
        raise ValueError(f"must be seconds >= WALSH_MIN_INTERVAL, got {value!r}" + _finite_note(value))
    return cap


def backoff_max_retries(value: Any) -> int:
    retries = whole_number(value)
    if retries is None:
        raise ValueError(f"must be a whole number >= 0, got {value!r}")
    return retries


def max_field_chars(value: Any) -> int:
    limit = whole_number(value)
    if not limit:
        raise ValueError(f"must be a positive whole number, got {value!r}")
    return limit


def max_item_chars(value: Any) -> int:
    limit = whole_number(value)
    if not limit:
        raise ValueError(f"must be a positive whole number, got {value!r}")
    return limit


#: The smallest ``WALSH_MAX_BODY_BYTES``: a page bound under 64 KiB would refuse ordinary pages.
MIN_BODY_BYTES = 65_536


def max_body_bytes(value: Any) -> int:
    limit = whole_number(value)
    if limit is None or limit < MIN_BODY_BYTES:
        raise ValueError(f"must be a whole number of bytes >= {MIN_BODY_BYTES}, got {value!r}")
    return limit


def recheck_interval(value: Any) -> float:
    seconds = _number_or_none(value)
    if seconds is None or seconds < MIN_INTERVAL_FLOOR:
        raise ValueError(f"must be a number of seconds >= {MIN_INTERVAL_FLOOR:g}, got {value!r}" + _finite_note(value))
    return seconds


def refetch_interval(value: Any) -> float:
    interval = _number_or_none(value)
    if interval is None or interval < 0:
        raise ValueError(f"must be seconds >= 0, got {value!r}" + _finite_note(value))
    return interval


def flag(value: Any) -> bool:
    """A boolean as Scrapy's ``getbool`` reads it (``True``, ``1``, ``"true"``, ``"0"``...)."""
    if value is None:
        return False
    try:
        return bool(int(value))
    except (TypeError, ValueError):
        if value in ("True", "true"):
            return True
        if value in ("False", "false"):
            return False
    raise ValueError(f"must be True or False, got {value!r}")


def allow_private_addresses(value: Any) -> PrivateAddressAllowance:
    return PrivateAddressAllowance.parse(value)


def state_uri(value: Any) -> StateLocation | None:
    """Where the state lives; None for the default (the project's data directory)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return parse_state_uri(value, "")


def pace_by(value: Any) -> str:
    """``host`` or ``ip``: the key of one pacing interval (R4)."""
    if isinstance(value, str) and value.strip().lower() in ("host", "ip"):
        return value.strip().lower()
    raise ValueError(f"must be 'host' or 'ip', got {value!r}")


def purposes(value: Any) -> tuple[str, ...]:
    """aipref purposes; None (not declared) means every purpose we know."""
    from .policy.preferences.model import PURPOSES, validate_purposes

    if value is None:
        return PURPOSES
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",")]
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"must be a list of purposes among {list(PURPOSES)}, got {value!r}")
    declared = validate_purposes(v for v in value if v)
    if not declared:
        raise ValueError(f"must name at least one purpose among {list(PURPOSES)}, got {value!r}")
    return declared


def usage_mode(value: Any) -> str:
    if value not in ("report", "respect"):
        raise ValueError(f"must be 'report' or 'respect', got {value!r}")
    return str(value)


def dedup_key(value: Any) -> str:
    """R7's key: an item field name, or the import path of a callable ``f(item) -> str | None``."""
    if callable(value):
        value = f"{value.__module__}.{value.__qualname__}"
    if not isinstance(value, str) or not value.strip() or any(c.isspace() for c in value.strip()):
        raise ValueError(f"{value!r} is neither an item field name nor the import path of a callable")
    if "." in value:  # an import path: it must name something callable, now, not at the first item
        from scrapy.utils.misc import load_object

        try:
            found = load_object(value.strip())
        except (ImportError, NameError, ValueError, AttributeError) as exc:
            raise ValueError(f"{value.strip()!r} can't be imported: {exc}") from None
        if not callable(found):
            raise ValueError(f"{value.strip()!r} is not callable: name a function item -> key")
    return value.strip()


def download_handler(value: Any) -> str:
    """The handler the checkpoint wraps: an import path (or the class itself), never the checkpoint."""
    if isinstance(value, type):
        value = f"{value.__module__}.{value.__qualname__}"
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{value!r} is not an import path of a download handler")
    if value.strip() == "scrapy_walsh.checkpoint.CheckpointDownloadHandler":
        raise ValueError("the checkpoint cannot wrap itself: name the handler that does the download")
    from .handler_resend import check  # imports the handler's module: only when the setting is read

    return check(value.strip())


#: setting -> its parser. The two limits checked against ``WALSH_MIN_INTERVAL`` are in RELATIVE.
PARSERS: dict[str, Callable[[Any], Any]] = {
    "WALSH_USER_AGENT": user_agent,
    "WALSH_ROBOTS_TOKEN": robots_token,
    "WALSH_BLOCKLIST_URL": blocklist_url,
    "WALSH_BLOCKLIST_SCHEMA_URL": blocklist_schema_url,
    "WALSH_BLOCKLIST_EXTRA": blocklist_extra,
    "WALSH_BLOCKLIST_OPERATOR": document_field,
    "WALSH_BLOCKLIST_CONTACT": document_field,
    "WALSH_BLOCKLIST_POLICY": document_field,
    "WALSH_BLOCKLIST_REFRESH": document_field,
    "WALSH_ROBOTS_MODE": robots_mode,
    "WALSH_ROBOTS_CACHE_SECONDS": robots_cache_seconds,
    "WALSH_MIN_INTERVAL": min_interval,
    "WALSH_BACKOFF_HTTP_CODES": backoff_http_codes,
    "WALSH_BACKOFF_BASE": backoff_base,
    "WALSH_BACKOFF_MAX_RETRIES": backoff_max_retries,
    "WALSH_MAX_FIELD_CHARS": max_field_chars,
    "WALSH_MAX_BODY_BYTES": max_body_bytes,
    "WALSH_RECHECK_INTERVAL": recheck_interval,
    "WALSH_REFETCH_INTERVAL": refetch_interval,
    "WALSH_DEDUP_RESET": flag,
    "WALSH_DEDUP_KEY": dedup_key,
    "WALSH_ALLOW_PRIVATE_ADDRESSES": allow_private_addresses,
    "WALSH_SIGNING_KEY": signing_key,
    "WALSH_SIGNATURE_AGENT": signature_agent,
    "WALSH_STATE_URI": state_uri,
    "WALSH_SEPARATE_BOT": flag,
    "WALSH_PACE_BY": pace_by,
    "WALSH_PURPOSES": purposes,
    "WALSH_USAGE_MODE": usage_mode,
    "WALSH_MAX_ITEM_CHARS": max_item_chars,
    "WALSH_DOWNLOAD_HANDLER": download_handler,
    "WALSH_JOURNAL_DIR": journal_dir,
    "WALSH_JOURNAL_RETENTION_DAYS": journal_retention_days,
    "WALSH_JOURNAL_SIGN_EVERY": journal_sign_every,
}
RELATIVE: dict[str, Callable[[Any, float], Any]] = {
    "WALSH_MAX_CRAWL_DELAY": max_crawl_delay,
    "WALSH_BACKOFF_MAX_DELAY": backoff_max_delay,
}


def attribute(name: str) -> str:
    """The config field of a setting: ``WALSH_MIN_INTERVAL`` -> ``min_interval``."""
    return name.removeprefix("WALSH_").lower()


def raw(settings: BaseSettings, name: str) -> Any:
    """A setting's value as set (``None`` included), or its registered default when unset."""
    return settings[name] if name in settings else SETTINGS_BY_NAME[name].default


def interval_floor(value: Any) -> float:
    """What the relative limits are checked against: ``WALSH_MIN_INTERVAL`` when it reads as
    a number (even one its own rule refuses), else the R4 floor."""
    return _number_or_none(value) or MIN_INTERVAL_FLOOR


class Readings:
    """Every ``WALSH_*`` value of one settings object, each parsed once: its value, or why not.

    The audit's rules read these (a refused value becomes a finding); the config is built
    from them once the audit passes.
    """

    def __init__(self, settings: BaseSettings):
        self.raw = {s.name: raw(settings, s.name) for s in WALSH_SETTINGS}
        #: ``WALSH_*`` names that are not settings of the package (a typo would silently not apply).
        self.unknown = tuple(n for n in settings if str(n).startswith("WALSH_") and n not in SETTINGS_BY_NAME)
        self.floor = interval_floor(self.raw["WALSH_MIN_INTERVAL"])
        self.values: dict[str, Any] = {}
        self.errors: dict[str, ValueError] = {}
        for name, value in self.raw.items():
            try:
                parse = RELATIVE.get(name)
                self.values[name] = parse(value, self.floor) if parse else PARSERS[name](value)
            except ValueError as exc:
                self.errors[name] = exc
            except Exception as exc:  # noqa: BLE001 - an unreadable value is refused, never a crash
                self.errors[name] = ValueError(f"cannot read {value!r}: {exc!r}")

    def value(self, name: str, *default: Any) -> Any:
        """The parsed value of ``name``; when it was refused, ``default`` if given, else the
        ``ValueError`` that refused it is raised."""
        if name in self.errors:
            if default:
                return default[0]
            raise self.errors[name]
        return self.values[name]

    def refused(self, name: str) -> str | None:
        """Why the value of ``name`` is refused (the audit's message), or None."""
        error = self.errors.get(name)
        return None if error is None else str(error)

    def given(self, name: str) -> Any:
        """The value of ``name`` as set (for messages about it)."""
        return self.raw[name]


def parse(settings: BaseSettings, name: str) -> Any:
    """One setting, parsed (for callers that need only it); ``ValueError`` saying why not."""
    value = raw(settings, name)
    if name in RELATIVE:
        return RELATIVE[name](value, interval_floor(raw(settings, "WALSH_MIN_INTERVAL")))
    return PARSERS[name](value)


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
    identity, not per project (R4 binds the identity)."""
    name = "".join(c if c.isalnum() or c in "-._" else "_" for c in (identity or ROBOTS_TOKEN).lower())
    return parse_state_uri(None, state_dir() / f"{name.strip('.') or 'walsh'}.sqlite3")


def state_location(settings: BaseSettings) -> StateLocation:
    """``WALSH_STATE_URI`` resolved; ``ValueError`` saying why a URI is refused."""
    return parse(settings, "WALSH_STATE_URI") or default_state(str(raw(settings, "WALSH_ROBOTS_TOKEN") or ""))


def journal_path(configured: str | None, state: StateLocation, identity: str) -> Path:
    """The request journal's directory: ``WALSH_JOURNAL_DIR``, else beside the sqlite store
    (``<store>.journal``), else (Redis) ``<state dir>/<identity>.journal``."""
    if configured:
        return Path(configured)
    if state.scheme != "sqlite":
        state = default_state(identity)
    return state.path.with_name(state.path.stem + ".journal")


def journal_location(settings: BaseSettings) -> Path:
    """The journal of these settings (for ``scrapy walsh journal``)."""
    identity = str(raw(settings, "WALSH_ROBOTS_TOKEN") or "")
    return journal_path(parse(settings, "WALSH_JOURNAL_DIR"), state_location(settings), identity)


def host_intervals(settings: BaseSettings) -> dict[str, float]:
    """Per-host intervals the project asks for, in Scrapy's own words:
    ``DOWNLOAD_SLOTS = {"example.com": {"delay": 3}}`` slows that host to one request every
    3 s. The pacing core reads them as a floor of that host's interval (the R4 floor, the
    site's Crawl-delay, Request-rate and RateLimit and the adaptive delay can only add); a
    delay under ``WALSH_MIN_INTERVAL`` is refused by the audit, never applied."""
    slots = settings.getdict("DOWNLOAD_SLOTS") if settings.get("DOWNLOAD_SLOTS") else {}
    found: dict[str, float] = {}
    for key, conf in slots.items():
        delay = conf.get("delay") if isinstance(conf, dict) else None
        try:
            seconds = float(delay) if delay is not None else 0.0
        except (TypeError, ValueError):
            continue  # the audit names an unreadable delay
        if seconds > 0 and isinstance(key, str) and key.strip():
            found[host_key(key.strip())] = seconds
    return found


def applied(settings: BaseSettings) -> bool:
    """True when the add-on's settings are present (a spider may run without the add-on)."""
    return bool(settings.get("WALSH_ROBOTS_TOKEN"))


@dataclass(frozen=True)
class WalshConfig:
    """The ``WALSH_*`` settings of one crawl, typed; see :data:`scrapy_walsh.settings.WALSH_SETTINGS`."""

    user_agent: str
    robots_token: str
    blocklist_url: str
    blocklist_schema_url: str | None
    blocklist_extra: tuple[str, ...]
    blocklist_operator: str | None
    blocklist_contact: str | None
    blocklist_policy: str | None
    blocklist_refresh: str | None
    robots_mode: str
    robots_cache_seconds: float
    min_interval: float
    max_crawl_delay: float
    backoff_http_codes: tuple[int, ...]
    backoff_base: float
    backoff_max_delay: float
    backoff_max_retries: int
    max_field_chars: int
    refetch_interval: float
    dedup_reset: bool
    #: R7: the item field (or a callable's import path) items are deduplicated by.
    dedup_key: str
    allow_private_addresses: PrivateAddressAllowance
    #: Web Bot Auth: the key's path and the key directory's URL, or None.
    signing_key: str | None
    signature_agent: str | None
    #: None: the default location, resolved by :meth:`state_location`.
    state_uri: StateLocation | None
    #: This project is a bot of its own: its store may differ from another crawl's of the identity here.
    separate_bot: bool
    #: "host" or "ip": what one pacing interval covers (R4).
    pace_by: str
    #: Usage preferences: the declared aipref purposes and what a reservation does.
    purposes: tuple[str, ...]
    usage_mode: str
    #: R6: characters of all an item's strings together.
    max_item_chars: int = 40000
    #: The download handler the checkpoint wraps (import path).
    download_handler: str = "scrapy.core.downloader.handlers.http11.HTTP11DownloadHandler"
    #: Decoded bytes of a page, at most.
    max_body_bytes: int = MAX_BODY_BYTES
    #: An unreachable robots.txt is asked again, and a host that timed out rests, this long.
    recheck_interval: float = RECHECK_INTERVAL
    #: The request journal.
    journal_dir: str | None = None
    journal_retention_days: int = 90
    journal_sign_every: int = 1000

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> WalshConfig:
        """The config of settings the audit passed (``ValueError`` for a value a parser refuses;
        the audit names every one: :func:`scrapy_walsh.conformance.enforce`)."""
        readings = Readings(settings)
        return cls(**{attribute(name): readings.value(name) for name in readings.raw})

    def state_location(self) -> StateLocation:
        return self.state_uri or default_state(self.robots_token)

    def journal_location(self) -> Path:
        return journal_path(self.journal_dir, self.state_location(), self.robots_token)

    def state_shared(self) -> bool:
        """True for the default store, which every process of the identity on this machine shares."""
        return self.state_uri is None


_CONFIGS: weakref.WeakKeyDictionary[Crawler, WalshConfig] = weakref.WeakKeyDictionary()


#: Why a crawler has no config: its settings were never audited.
NOT_AUDITED = (
    "this crawl's settings were not audited, so scrapy_walsh's components refuse to run: they run "
    'under the add-on (ADDONS = {"scrapy_walsh.Addon": 500}), whose extension '
    "scrapy_walsh.conformance.guard.ConformanceGuard audits the final settings first"
)


def configure(crawler: Crawler, config: WalshConfig) -> WalshConfig:
    """Make ``config`` the crawl's one config; called by the audit once it passes."""
    _CONFIGS[crawler] = config
    return config


def config_for(crawler: Crawler) -> WalshConfig:
    """The crawl's one config, made by its audit (:func:`configure`); a crawler no audit passed
    is refused (fail closed), with the one clean message of any refusal."""
    config = _CONFIGS.get(crawler)
    if config is None:
        clean_refusal.refusing()
        raise ConformanceError([Finding("-", "configuration", FAIL, "EXTENSIONS", NOT_AUDITED)])
    return config
