"""Reading a settings object: every ``WALSH_*`` value parsed once (:class:`Readings`), one setting
(:func:`parse`), and what other settings say (the state location, per-host intervals).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy_walsh.policy.hostkey import host_key
from scrapy_walsh.settings import MIN_INTERVAL_FLOOR, SETTINGS_BY_NAME, WALSH_SETTINGS

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings
from scrapy_walsh.config.locations import StateLocation, default_state, journal_path
from scrapy_walsh.config.parsers import PARSERS, RELATIVE
from scrapy_walsh.config.values import number_or_none


def attribute(name: str) -> str:
    """The config field of a setting: ``WALSH_MIN_INTERVAL`` -> ``min_interval``."""
    return name.removeprefix("WALSH_").lower()


def raw(settings: BaseSettings, name: str) -> Any:
    """A setting's value as set (``None`` included), or its registered default when unset."""
    return settings[name] if name in settings else SETTINGS_BY_NAME[name].default


def interval_floor(value: Any) -> float:
    """What the relative limits are checked against: ``WALSH_MIN_INTERVAL`` when it reads as
    a number (even one its own rule refuses), else the R4 floor."""
    return number_or_none(value) or MIN_INTERVAL_FLOOR


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


def state_location(settings: BaseSettings) -> StateLocation:
    """``WALSH_STATE_URI`` resolved; ``ValueError`` saying why a URI is refused."""
    return parse(settings, "WALSH_STATE_URI") or default_state(str(raw(settings, "WALSH_ROBOTS_TOKEN") or ""))


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
