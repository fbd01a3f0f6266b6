"""Settings that only a command read, now that command's flags; the old names still work, warned.

No crawl reads them, so they belong on the command line of the command that does. For one
release a setting still applies when its flag is not given, with a deprecation warning on stderr
that names the flag (printed: a command may run with Scrapy's logging, and so its captured
warnings, turned off). docs/publishing.md lists them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

    from scrapy_walsh.config import Readings


@dataclass(frozen=True)
class Moved:
    option: str
    metavar: str
    #: the commands that take the flag, as typed after ``scrapy walsh``
    commands: tuple[str, ...]
    repeated: bool = False

    @property
    def dest(self) -> str:
        return self.option.removeprefix("--").replace("-", "_")


MOVED: Mapping[str, Moved] = MappingProxyType(
    {
        "WALSH_BLOCKLIST_OPERATOR": Moved("--operator", "TEXT", ("blocklist add", "publish")),
        "WALSH_BLOCKLIST_CONTACT": Moved("--contact", "TEXT", ("blocklist add", "keys card", "publish")),
        "WALSH_BLOCKLIST_POLICY": Moved("--policy", "URI", ("blocklist add", "keys card", "publish")),
        "WALSH_BLOCKLIST_REFRESH": Moved("--refresh", "DURATION", ("blocklist add",)),
        "WALSH_IP_RANGES": Moved("--ip-range", "CIDR", ("publish",), repeated=True),
        "WALSH_PUBLISHED": Moved("--published", "DIR|URL", ("check", "keys card", "publish")),
    }
)


def add_flags(parser: argparse.ArgumentParser, names: tuple[str, ...], helps: Mapping[str, str]) -> None:
    """The flags of the settings ``names`` on ``parser``, each with its help."""
    for name in names:
        moved = MOVED[name]
        parser.add_argument(
            moved.option,
            dest=moved.dest,
            metavar=moved.metavar,
            action="append" if moved.repeated else "store",
            help=f"{helps[name]} (replaces the setting {name})",
        )


def warn(settings: BaseSettings, name: str, command: str) -> None:
    """``name`` is set and its flag was not given: it still applies, said once as deprecated."""
    if (settings.getpriority(name) or 0) <= 0 or settings.get(name) in (None, ""):
        return
    print(
        f"warning: {name} is deprecated (no crawl reads it): pass {MOVED[name].option} to "
        f"`scrapy walsh {command}`; the setting is still read in this release only",
        file=sys.stderr,
    )


def given(args: argparse.Namespace, name: str) -> Any:
    """The flag's value as typed, or None when it was not given."""
    value = getattr(args, MOVED[name].dest, None)
    return None if value in (None, []) else value


def apply(
    args: argparse.Namespace, readings: Readings, settings: BaseSettings, names: tuple[str, ...], command: str
) -> Readings:
    """``readings`` with the flags given for ``names`` in place of their settings (parsed as the
    settings are: ``ValueError`` says why a value is refused); a setting used instead is warned."""
    from scrapy_walsh.config.parsers import PARSERS

    for name in names:
        value = given(args, name)
        if value is None:
            warn(settings, name, command)
            continue
        try:
            readings.values[name] = PARSERS[name](value)
        except ValueError as exc:
            raise ValueError(f"{MOVED[name].option}: {exc}") from None
        readings.errors.pop(name, None)
    return readings
