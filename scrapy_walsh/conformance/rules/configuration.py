"""Rules about the configuration as a whole: ``WALSH_*`` names the package does not know."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from scrapy_walsh.conformance.engine import FAIL, Finding, Subject
from scrapy_walsh.settings import SETTINGS_BY_NAME


def unknown_walsh_settings(subject: Subject) -> Iterator[Finding]:
    for name in subject.walsh.unknown:
        close = difflib.get_close_matches(name, SETTINGS_BY_NAME, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        yield Finding(
            "-",
            "configuration",
            FAIL,
            name,
            f"unknown scrapy_walsh setting{hint} A misspelt policy setting would silently not apply.",
        )
