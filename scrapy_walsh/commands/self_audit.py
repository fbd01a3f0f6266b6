"""What only ``scrapy walsh check`` looks at: the spider's own code, and a write probe of the store.

The settings rules (:mod:`scrapy_walsh.conformance`) run at every start; these two run
only in a self-audit, because one reads source files and the other writes to the store.
"""

from __future__ import annotations

import inspect
import os
import re
import uuid

from scrapy.settings import BaseSettings
from scrapy.spiders import CrawlSpider

from ..config import raw, state_location
from ..conformance.engine import FAIL, PASS, WARN, Finding
from ..policy.vocabulary import Namespace
from ..settings import ROBOTS_TOKEN
from ..store import StateStoreError, open_store

_SELECTORS = re.compile(r"\.(?:css|xpath)\(")
_FOLLOWS = re.compile(r"\.follow(?:_all)?\(")


def audit_spider(spidercls: type) -> list[Finding]:
    """What a spider's class and source show against rows 1, 6 and 9.

    Runtime gates already drop followed links (R6); a spider *written* to recurse
    still fails its row, because only its start URLs will ever be fetched. Link
    extraction and selectors warn: recording links as metadata is allowed, per-site
    HTML scraping (R9) is not, and only a reader can tell the two apart.
    """
    name = getattr(spidercls, "name", spidercls.__name__)
    findings: list[Finding] = []
    user_agent = getattr(spidercls, "user_agent", None)
    if user_agent:
        findings.append(
            Finding(
                "1",
                "R1",
                WARN,
                f"spider {name}.user_agent",
                f"{user_agent!r}: only the add-on's IdentityMiddleware keeps it from being sent",
            )
        )
    rules = getattr(spidercls, "rules", None)
    if issubclass(spidercls, CrawlSpider) and rules:
        findings.append(
            Finding(
                "6",
                "R6",
                FAIL,
                f"spider {name}.rules",
                f"a CrawlSpider with {len(rules)} rule(s) is written to follow links; "
                "R6 forbids recursion (each request the rules yield is dropped, so "
                "only the start URLs are fetched): use scrapy.Spider with declared targets",
            )
        )
    try:
        source = inspect.getsource(spidercls)
    except (OSError, TypeError):
        findings.append(
            Finding("6", "R6", WARN, f"spider {name}", "source not available; links, follows and selectors not audited")
        )
        return findings
    if "LinkExtractor" in source:
        findings.append(
            Finding(
                "6",
                "R6",
                WARN,
                f"spider {name}",
                "uses a LinkExtractor: recording links as metadata is fine, but "
                "every request built from them is dropped (R6)",
            )
        )
    if _FOLLOWS.search(source):
        findings.append(
            Finding("6", "R6", WARN, f"spider {name}", "calls response.follow(): followed requests are dropped (R6)")
        )
    if not any(f.row == "6" for f in findings):
        findings.append(Finding("6", "R6", PASS, f"spider {name}", "no rules, link extractors or follow() calls"))
    if _SELECTORS.search(source):
        findings.append(
            Finding(
                "9",
                "R9",
                WARN,
                f"spider {name}",
                "extracts with CSS/XPath selectors: R9 forbids per-site HTML "
                "scraping; keep them generic (title, headings, links)",
            )
        )
    else:
        findings.append(Finding("9", "R9", PASS, f"spider {name}", "no CSS/XPath selectors"))
    return findings


def probe_state_store(settings: BaseSettings) -> Finding:
    """Row 3b, for real: can this crawl write its state store?

    An existing store gets a probe key written, read back and deleted, in a namespace
    of its own (no real key is read or changed). A store that does not exist yet is
    not created: its directory (or nearest existing parent) must be writable.
    """
    try:
        location = state_location(settings)
    except ValueError as exc:
        return Finding("3b", "R3", FAIL, "WALSH_STATE_URI", str(exc))
    if location.scheme == "sqlite" and not location.path.exists():
        parent = location.path.resolve().parent
        while not parent.exists():
            parent = parent.parent
        if parent.is_dir() and os.access(parent, os.W_OK | os.X_OK):
            return Finding(
                "3b", "R3", PASS, "WALSH_STATE_URI", f"{location.uri} does not exist yet; {parent} is writable"
            )
        return Finding(
            "3b",
            "R3",
            FAIL,
            "WALSH_STATE_URI",
            f"{location.uri} cannot be created: {parent} is not a writable directory",
        )
    key = f"probe-{uuid.uuid4().hex}"
    try:
        store = open_store(location, raw(settings, "WALSH_ROBOTS_TOKEN") or ROBOTS_TOKEN)
        try:
            store.set(Namespace.CHECK, key, True, ttl=60)
            ok = store.get(Namespace.CHECK, key) is True
            store.delete(Namespace.CHECK, key)
        finally:
            store.close()
    except (StateStoreError, OSError) as exc:
        return Finding("3b", "R3", FAIL, "WALSH_STATE_URI", f"cannot write the state store: {exc}")
    if not ok:
        return Finding("3b", "R3", FAIL, "WALSH_STATE_URI", f"{location.uri}: a probe key did not read back")
    return Finding("3b", "R3", PASS, "WALSH_STATE_URI", f"{location.uri} is writable (probe key written and deleted)")
