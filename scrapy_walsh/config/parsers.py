"""One parser per ``WALSH_*`` setting: its value, or ``ValueError`` with the audit's message.

The start-up audit calls these same parsers, so a value the audit refuses is the value the config
refuses (:data:`PARSERS`, and :data:`RELATIVE` for the limits read against ``WALSH_MIN_INTERVAL``).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrapy_walsh.policy.addresses import PrivateAddressAllowance, parse_ip
from scrapy_walsh.policy.discovery import manifest_kinds, route_table
from scrapy_walsh.settings import MIN_INTERVAL_FLOOR, ROBOTS_CACHE_SECONDS

if TYPE_CHECKING:
    pass
from scrapy_walsh.config.locations import StateLocation, parse_state_uri
from scrapy_walsh.config.values import _finite_note, flag, http_codes, is_http_url, number_or_none, whole_number

#: RFC 9309 §2.2.1: a product token is letters, "_" and "-" only.
PRODUCT_TOKEN = re.compile(r"[A-Za-z_-]+")


ROBOTS_MODES = ("respect", "report_only", "ignore")


#: The statuses R5 names; ``WALSH_BACKOFF_HTTP_CODES`` must include both.
REQUIRED_BACKOFF_CODES = frozenset({429, 503})


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
    from scrapy_walsh.policy.blocklist import Blocklist

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
    from scrapy_walsh.identity.webbotauth import SigningError, load_private_key

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
    seconds = number_or_none(value)
    if seconds is None or not 0 < seconds <= ROBOTS_CACHE_SECONDS:
        raise ValueError(
            f"must be a number of seconds in (0, {ROBOTS_CACHE_SECONDS}], got {value!r} (RFC 9309 §2.4: at most 24 h)"
            + _finite_note(value)
        )
    return seconds


def min_interval(value: Any) -> float:
    interval = number_or_none(value)
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
    cap = number_or_none(value)
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
    base = number_or_none(value)
    if base is None or base <= 0:
        raise ValueError(f"must be a positive number of seconds, got {value!r}" + _finite_note(value))
    return base


def backoff_max_delay(value: Any, floor: float) -> float:
    cap = number_or_none(value)
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


#: The same rule as a field's: a positive whole number of characters.
max_item_chars = max_field_chars


#: The smallest ``WALSH_MAX_BODY_BYTES``: a page bound under 64 KiB would refuse ordinary pages.
MIN_BODY_BYTES = 65_536


def max_body_bytes(value: Any) -> int:
    limit = whole_number(value)
    if limit is None or limit < MIN_BODY_BYTES:
        raise ValueError(f"must be a whole number of bytes >= {MIN_BODY_BYTES}, got {value!r}")
    return limit


def recheck_interval(value: Any) -> float:
    seconds = number_or_none(value)
    if seconds is None or seconds < MIN_INTERVAL_FLOOR:
        raise ValueError(f"must be a number of seconds >= {MIN_INTERVAL_FLOOR:g}, got {value!r}" + _finite_note(value))
    return seconds


def refetch_interval(value: Any) -> float:
    interval = number_or_none(value)
    if interval is None or interval < 0:
        raise ValueError(f"must be seconds >= 0, got {value!r}" + _finite_note(value))
    return interval


def progress_interval(value: Any) -> float:
    seconds = number_or_none(value)
    if seconds is None or seconds < 0:
        raise ValueError(f"must be seconds >= 0 (0: no progress lines), got {value!r}" + _finite_note(value))
    return seconds


def allow_private_addresses(value: Any) -> PrivateAddressAllowance:
    return PrivateAddressAllowance.parse(value)


def state_uri(value: Any) -> StateLocation | None:
    """Where the state lives; None for the default (the project's data directory)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return parse_state_uri(value, "")


def signature_agent_form(value: Any) -> str:
    """``string`` or ``dictionary``: how ``Signature-Agent`` is sent and covered."""
    if isinstance(value, str) and value.strip().lower() in ("string", "dictionary"):
        return value.strip().lower()
    raise ValueError(f"must be 'string' or 'dictionary', got {value!r}")


def pace_by(value: Any) -> str:
    """``host`` or ``ip``: the key of one pacing interval (R4)."""
    if isinstance(value, str) and value.strip().lower() in ("host", "ip"):
        return value.strip().lower()
    raise ValueError(f"must be 'host' or 'ip', got {value!r}")


def purposes(value: Any) -> tuple[str, ...]:
    """aipref purposes; None (not declared) means every purpose we know."""
    from scrapy_walsh.policy.preferences.model import PURPOSES, validate_purposes

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
    if value.strip() == "scrapy_walsh.sending.checkpoint.CheckpointDownloadHandler":
        raise ValueError("the checkpoint cannot wrap itself: name the handler that does the download")
    from scrapy_walsh.sending.handler_pool import check  # imports the handler's module: only when the setting is read

    return check(value.strip())


#: setting -> its parser. The two limits checked against ``WALSH_MIN_INTERVAL`` are in RELATIVE.
def ip_ranges(value: Any) -> tuple[str, ...]:
    """WALSH_IP_RANGES: the networks the bot sends from (CIDR), for the bot's page; empty: none stated.

    A list, or one string with the networks separated by commas or spaces (as ``-s`` gives it)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return ()
    items = value.replace(",", " ").split() if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        raise ValueError(f"expected a list of networks (CIDR, e.g. 192.0.2.0/24), got {value!r}")
    networks = []
    for item in items:
        try:
            networks.append(str(ipaddress.ip_network(str(item).strip())))
        except ValueError as exc:
            raise ValueError(f"{item!r} is not a network (CIDR, e.g. 192.0.2.0/24): {exc}") from None
    return tuple(networks)


def published(value: Any) -> str | None:
    """WALSH_PUBLISHED: the folder, or the http(s) URL, of what ``scrapy walsh publish`` wrote."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise ValueError(f"expected a folder or an http(s) URL, got {value!r}")
    return value.strip()


PARSERS: Mapping[str, Callable[[Any], Any]] = MappingProxyType(
    {
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
        "WALSH_SIGNATURE_AGENT_FORM": signature_agent_form,
        "WALSH_STATE_URI": state_uri,
        "WALSH_SEPARATE_BOT": flag,
        "WALSH_PACE_BY": pace_by,
        "WALSH_PURPOSES": purposes,
        "WALSH_USAGE_MODE": usage_mode,
        "WALSH_MAX_ITEM_CHARS": max_item_chars,
        "WALSH_DOWNLOAD_HANDLER": download_handler,
        "WALSH_JOURNAL": flag,
        "WALSH_JOURNAL_DIR": journal_dir,
        "WALSH_JOURNAL_RETENTION_DAYS": journal_retention_days,
        "WALSH_JOURNAL_SIGN_EVERY": journal_sign_every,
        "WALSH_IP_RANGES": ip_ranges,
        "WALSH_PUBLISHED": published,
        "WALSH_PROGRESS_INTERVAL": progress_interval,
        "WALSH_DISCOVERY": manifest_kinds,
        "WALSH_DISCOVERY_ROUTES": route_table,
    }
)


RELATIVE: Mapping[str, Callable[[Any, float], Any]] = MappingProxyType(
    {
        "WALSH_MAX_CRAWL_DELAY": max_crawl_delay,
        "WALSH_BACKOFF_MAX_DELAY": backoff_max_delay,
    }
)
