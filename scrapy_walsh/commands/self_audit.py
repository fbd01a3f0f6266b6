"""What only ``scrapy walsh check`` looks at: the spider's own code, and a write probe of the store.

The settings rules (:mod:`scrapy_walsh.conformance`) run at every start; these two run
only in a self-audit, because one reads source files (:mod:`.spider_source`) and the other
writes to the store.
"""

from __future__ import annotations

import os
import uuid

from scrapy.settings import BaseSettings

from scrapy_walsh.commands.spider_source import (
    Site,
    SpiderCode,
    declared_urls,
    method_roles,
    request_sites,
    spider_code,
    start_urls_ignored,
)
from scrapy_walsh.config import raw, state_location
from scrapy_walsh.conformance.engine import FAIL, PASS, WARN, Finding
from scrapy_walsh.policy.vocabulary import Namespace
from scrapy_walsh.settings import ROBOTS_TOKEN
from scrapy_walsh.store import StateStoreError, open_store

DECLARE = "declare the pages to fetch instead (start_urls, start(), or a StructuredSourceSpider's targets)"


def _site_finding(name: str, site: Site, roles: dict[str, str], advice: str | None = None) -> Finding:
    role = roles.get(site.method, "method")
    declare = advice or DECLARE
    at = f"{site.where}: {site.text} in {role} {site.method}"
    if site.kind == "engine" and "crawl" not in site.text.rsplit(".", 1)[-1]:
        why = (
            "asks for a page that is not a declared target, around the scheduler and the spider "
            "middlewares: R6 forbids it, whatever a later check catches; " + declare
        )
    elif site.kind == "engine":
        why = "schedules a request around the spider middlewares: dropped at the scheduler (R6); " + declare
    elif role == "errback":
        why = (
            "an errback's requests reach the scheduler around the spider middlewares and are dropped "
            "there (R6: no retry or follow-up of our own making); " + declare
        )
    else:
        why = "a request a callback yields is dropped (R6: no link following), so it is never fetched; " + declare
    return Finding("6", "R6", FAIL, f"spider {name}.{site.method}", f"{at}: {why}")


def audit_spider(spidercls: type, settings: BaseSettings | None = None, advice: str | None = None) -> list[Finding]:
    """What a spider's class and source show against rows 1, 6 and 9.

    Runtime gates already drop followed links (R6); a spider *written* to recurse
    still fails its row, because only its declared targets will ever be fetched. The
    source is read with :mod:`ast` (the spider's module, and the modules of its own base
    classes), never searched as text: a request built (``scrapy.Request``, ``FormRequest``,
    ``JsonRequest``, ``response.follow``/``follow_all``) in a callback, in an errback or in a
    helper they call fails the row, with its line; so do ``CrawlSpider`` rules without
    ``WALSH_DISCOVERY``, and an ``engine.download()`` from
    spider code (around the scheduler and the spider middlewares). A link extractor and
    selectors warn: recording links as metadata is allowed, per-site HTML scraping (R9) is
    not, and only a reader can tell the two apart. When discovery declares the spider's targets
    (rules, ``WALSH_DISCOVERY_ROUTES``, a ``SitemapSpider``; ``settings`` None: no add-on, no
    discovery), its row 6 says so instead. ``advice``
    (the routes line to paste) replaces the advice to declare the pages of a followed link.
    """
    name = getattr(spidercls, "name", spidercls.__name__)
    findings = _class_findings(spidercls, name, settings is not None)
    code = spider_code(spidercls)
    if code is None:
        findings.append(
            Finding("6", "R6", WARN, f"spider {name}", "source not available: requests and selectors not audited")
        )
        return _with_discovery(findings, spidercls, name, settings)
    findings += _code_findings(spidercls, name, code, advice)
    if not any(f.row == "6" for f in findings):
        findings.append(
            Finding(
                "6",
                "R6",
                PASS,
                f"spider {name}",
                "no request built after a response, no rules, link extractors or sitemap following",
            )
        )
    findings.append(_selector_finding(name, code))
    return _with_discovery(findings, spidercls, name, settings)


def _with_discovery(
    findings: list[Finding], spidercls: type, name: str, settings: BaseSettings | None
) -> list[Finding]:
    discovered = _discovery_finding(spidercls, name, settings)
    if discovered is None:
        return findings
    return [f for f in findings if f.row != "6"] + discovered


def _discovery_finding(spidercls: type, name: str, settings: BaseSettings | None) -> list[Finding] | None:
    """Row 6 for a spider whose targets discovery declares (``WALSH_DISCOVERY``, a SitemapSpider):
    its link following is replaced, so its rules and follows are not findings; a rule without a
    callback is reported as not needed. None when discovery does not apply."""
    from scrapy_walsh.discovery.manifests import route_findings, spider_routes

    try:
        routing = spider_routes(spidercls, settings) if settings is not None else None
    except ValueError:
        return None  # the audit names the bad setting
    if routing is None:
        return None
    if routing.broken:
        return route_findings(routing)
    if not routing.routes:
        return [
            Finding(
                "6",
                "R6",
                FAIL,
                f"spider {name}",
                "discovery is on but no route names a target: "
                "give a rule a callback, or set WALSH_DISCOVERY_ROUTES = {regex: callback name}",
            )
        ]
    routes = ", ".join(f"{'|'.join(p.pattern for p in r.allow) or 'every URL'} -> {r.callback}" for r in routing.routes)
    findings = [
        Finding(
            "6",
            "R6",
            PASS,
            f"spider {name}",
            f"targets come from the site's manifests ({', '.join(routing.kinds)}), routed by {routes}; "
            f"followed links are not fetched. `scrapy walsh plan {name}` lists every target and skip",
        )
    ]
    findings += [_placed_rule(spidercls, name, index, callback) for index, callback in routing.placed]
    if routing.navigation:
        findings.append(
            Finding(
                "6",
                "R6",
                PASS,
                f"spider {name}.rules",
                f"{', '.join(routing.navigation)}: navigation without a callback, not needed under R6 "
                "(discovery reads the targets from the site's manifests); it can be removed",
            )
        )
    return findings


def _placed_rule(spidercls: type, name: str, index: int, callback: str) -> Finding:
    """A rule that picks its links by where they sit on a page: as a route it names every URL the
    manifests list. The pattern to give it comes from what ``plan`` reads of the site's sitemap."""
    from scrapy_walsh.commands.route_advice import listed_urls
    from scrapy_walsh.commands.spider_source import declared_urls
    from scrapy_walsh.policy import route_patterns

    urls = listed_urls(name, callback, declared_urls(spidercls)) or []
    pattern = route_patterns.suggest([callback], urls).get(callback)
    source = f"from the {len(urls)} URLs the site's sitemap lists" if pattern else "guessed from its name"
    pattern = (pattern or route_patterns.guess(callback)).replace('"', ".")
    return Finding(
        "6",
        "R6",
        WARN,
        f"spider {name}.rules",
        f"rule {index} (callback {callback}) picks its links by where they sit on a page (restrict_css, "
        "restrict_xpaths or restrict_text), which a URL the site's manifests list does not have: as a route it "
        f"names every URL they list, so {callback} would get every page of the site; give its LinkExtractor "
        f'allow=r"{pattern}" ({source}), and `scrapy walsh plan {name}` lists what it would fetch',
    )


def _class_findings(spidercls: type, name: str, addon: bool = True) -> list[Finding]:
    """What the class itself says: its own User-Agent (row 1), CrawlSpider rules (row 6; with
    discovery, :func:`_discovery_finding` replaces row 6)."""
    from scrapy.spiders import CrawlSpider

    findings: list[Finding] = []
    user_agent = getattr(spidercls, "user_agent", None)
    if user_agent:
        findings.append(
            Finding(
                "1",
                "R1",
                WARN,
                f"spider {name}.user_agent",
                f"{user_agent!r}: only the add-on's checkpoint keeps it from being sent",
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
                + (
                    "only the start URLs are fetched) and discovery is off (WALSH_DISCOVERY = []): remove that "
                    "line and the rules with a callback take their targets from the site's sitemap"
                    if addon
                    else "only the start URLs are fetched): with the add-on, the rules with a callback take "
                    "their targets from the site's sitemap"
                ),
            )
        )
    return findings


def _code_findings(spidercls: type, name: str, code: SpiderCode, advice: str | None = None) -> list[Finding]:
    """Row 6 from the source: each request built after a response, start_urls a start method
    ignores, a link extractor."""
    roles = method_roles(code)
    sites = request_sites(code, declared_urls(spidercls))
    findings = []
    for site in sites:
        followed = advice is not None and site.kind != "engine" and roles.get(site.method) == "callback"
        findings.append(_site_finding(name, site, roles, advice if followed else None))
        if followed:
            advice = "paste the WALSH_DISCOVERY_ROUTES line above"  # one line to paste, said once
    ignored = start_urls_ignored(code, declared_urls(spidercls))
    if ignored:
        where, method = ignored
        findings.append(
            Finding(
                "6",
                "R6",
                WARN,
                f"spider {name}.start_urls",
                f"{where}: {method}() neither reads start_urls nor calls the inherited {method}(), so the "
                f"{len(declared_urls(spidercls))} start_urls are not declared targets and are never fetched; "
                f"the declared targets are what {method}() yields",
            )
        )
    if code.link_extractors:
        findings.append(
            Finding(
                "6",
                "R6",
                WARN,
                f"spider {name}",
                f"{code.link_extractors[0]}: uses a LinkExtractor: recording links as metadata is fine, "
                "but every request built from them is dropped (R6)",
            )
        )
    return findings


def _selector_finding(name: str, code: SpiderCode) -> Finding:
    """Row 9: CSS/XPath selectors warn (only a reader can tell generic from per-site extraction)."""
    if not code.selectors:
        return Finding("9", "R9", PASS, f"spider {name}", "no CSS/XPath selectors")
    lines = "; ".join(f"{f} lines {', '.join(map(str, sorted(set(n))))}" for f, n in sorted(code.selectors.items()))
    return Finding(
        "9",
        "R9",
        WARN,
        f"spider {name}",
        f"extracts with CSS/XPath selectors ({lines}): a warning, because R9's MUST NOT "
        "is about per-site HTML scraping and only a reader can tell it from generic "
        "extraction; keep them generic (title, headings, links)",
    )


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
                "3b", "R3", PASS, "WALSH_STATE_URI", f"{location.shown} does not exist yet; {parent} is writable"
            )
        return Finding(
            "3b",
            "R3",
            FAIL,
            "WALSH_STATE_URI",
            f"{location.shown} cannot be created: {parent} is not a writable directory",
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
        return Finding("3b", "R3", FAIL, "WALSH_STATE_URI", f"{location.shown}: a probe key did not read back")
    return Finding("3b", "R3", PASS, "WALSH_STATE_URI", f"{location.shown} is writable (probe key written and deleted)")
