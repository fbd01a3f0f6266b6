"""The declared purposes (``WALSH_PURPOSES``) and the usage mode.

The warning sits in row 9 with the policy model's other usage rules (usage warnings travel with
what R9 emits); a value that can't be read is a configuration failure, like any other.

Not declaring purposes is the documented default, not a warning: the crawl then judges every
item for every purpose we know (the most cautious reading); ``check`` says so as a pass.
"""

from __future__ import annotations

from collections.abc import Iterator

from scrapy_walsh.conformance.engine import FAIL, PASS, Finding, Subject


def usage_preferences(subject: Subject) -> Iterator[Finding]:
    walsh = subject.walsh
    for name in ("WALSH_PURPOSES", "WALSH_USAGE_MODE"):
        if why := walsh.refused(name):
            yield Finding("-", "configuration", FAIL, name, why)
    if walsh.given("WALSH_PURPOSES") is None and not walsh.refused("WALSH_PURPOSES"):
        purposes = ", ".join(walsh.value("WALSH_PURPOSES"))
        yield Finding(
            "9",
            "usage",
            PASS,
            "WALSH_PURPOSES",
            f"not declared (the default): usage preferences are judged for every purpose ({purposes}), the "
            'most cautious reading; declare the uses you make to narrow it, e.g. WALSH_PURPOSES = ["search"]',
        )
