"""``check``'s advice for a spider that follows links by hand (``response.follow``, Requests from
callbacks): the ``WALSH_DISCOVERY_ROUTES`` line to paste into settings.py, its callbacks filled in,
a URL pattern each from what ``scrapy walsh plan`` reads of the site's sitemap.

The plan runs as a subprocess (a dry run: robots.txt and the manifests only, through every gate) with
a route naming every URL, so the pattern comes from the URLs the crawl would see.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import dataclass

from scrapy_walsh.commands.output_changes import _item_fields
from scrapy_walsh.commands.spider_source import SpiderCode, dotted, followed_state, is_request_class, method_roles
from scrapy_walsh.policy import route_patterns
from scrapy_walsh.policy.canonical import canonical_url

#: Seconds the plan's dry run may take (robots.txt and a few manifests, one a second per host).
PLAN_TIMEOUT = 60.0


@dataclass(frozen=True)
class RouteAdvice:
    """The line to paste, and what it was made from."""

    line: str
    #: callback -> where its pattern came from: "sitemap" (the plan's URLs) or "name" (a guess)
    sources: dict[str, str]
    #: how many URLs the plan's view of the manifests listed (None: no plan could be made)
    listed: int | None
    #: why the sitemap was not read, when it was not tried
    unread: str = ""
    #: what the routed callbacks take from a followed link's request, to change in the spider
    then: tuple[str, ...] = ()

    def text(self) -> str:
        guessed = [cb for cb, source in self.sources.items() if source == "name"]
        if self.listed == 0:
            return (
                "the site's manifests list no page now (no sitemap was read), so discovery would find none: "
                f"declare the pages in start_urls; if the site has a sitemap robots.txt does not name, "
                f"set WALSH_DISCOVERY_ROUTES ({self.line}) and give it as a SitemapSpider's sitemap_urls"
            )
        if self.listed is None:
            why = self.unread or "the site's sitemap could not be read"
            how = f"patterns guessed from the callbacks' names; {why}"
        elif guessed:
            how = (
                f"patterns from the {self.listed} URLs the site's sitemap lists; guessed from the name for "
                + ", ".join(guessed)
            )
        else:
            how = f"patterns from the {self.listed} URLs the site's sitemap lists"
        then = (
            "; then, in the spider (a target discovery declares carries nothing a followed link passed): "
            + "; ".join(self.then)
            if self.then
            else ""
        )
        return f"paste into settings.py: {self.line}  ({how}){then}"


def followed_callbacks(code: SpiderCode) -> list[str]:
    """The callbacks the spider's callbacks follow links to, in the order they appear; those that
    yield items first (a callback that only follows is navigation: discovery needs no route to it)."""
    roles = method_roles(code)
    followed: list[str] = []
    for name, method in code.methods.items():
        if roles.get(name) != "callback":
            continue
        for node in ast.walk(method.node):
            if isinstance(node, ast.Call) and (target := _followed_to(node, method.imports)) is not None:
                if target not in followed and target in code.methods:
                    followed.append(target)
    with_items = [cb for cb in followed if _yields_items(code, cb)]
    return with_items or followed


def _followed_to(call: ast.Call, imports: dict[str, str]) -> str | None:
    func = call.func
    follows = isinstance(func, ast.Attribute) and func.attr in {"follow", "follow_all"}
    if not follows and not is_request_class(dotted(func, imports)):
        return None
    given = next((k.value for k in call.keywords if k.arg == "callback"), None)
    if given is None and len(call.args) >= 2:
        given = call.args[1]
    if given is None:
        return "parse"
    if isinstance(given, ast.Attribute) and isinstance(given.value, ast.Name) and given.value.id == "self":
        return given.attr
    return None


def _yields_items(code: SpiderCode, name: str) -> bool:
    method = code.methods[name]
    return any(
        isinstance(node, ast.Yield | ast.Return)
        and node.value is not None
        and _item_fields(node.value, method) is not None
        for node in ast.walk(method.node)
    )


def listed_urls(spider: str, callback: str, start_urls: set[str]) -> list[str] | None:
    """The URLs the site's manifests list for ``spider`` (not its ``start_urls``), as ``scrapy walsh
    plan`` reads them with a route naming every URL; None when no plan could be made."""
    routes = "WALSH_DISCOVERY_ROUTES=" + json.dumps({"": callback})
    try:
        made = subprocess.run(  # noqa: S603 - our own command, in the project's directory
            [sys.executable, "-m", "scrapy", "walsh", "plan", spider, "--json", "-s", routes],
            capture_output=True,
            text=True,
            timeout=PLAN_TIMEOUT,
        )
        plan = json.loads(made.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    entries = [*plan.get("fetch", []), *plan.get("skip", [])]
    starts = {_canonical(u) for u in start_urls}
    return [
        e["url"]
        for e in entries
        if e.get("verdict") not in ("other_host", "unsafe_url", "not_routed") and _canonical(e["url"]) not in starts
    ]


def _canonical(url: str) -> str:
    try:
        return canonical_url(url)
    except ValueError:
        return url


def route_advice(spider: str, code: SpiderCode, start_urls: set[str], read: bool = True) -> RouteAdvice | None:
    """The ``WALSH_DISCOVERY_ROUTES`` line for a spider that follows links, or None when it follows
    to no method of its own. ``read``: the patterns come from the site's sitemap (else from the names)."""
    callbacks = followed_callbacks(code)
    if not callbacks:
        return None
    then = tuple(
        f"{code.methods[cb].filename}:{line}: {todo}"
        for cb in callbacks
        for line, todo in followed_state(code.methods[cb])
    )
    if not read:
        return _advice(callbacks, dict.fromkeys(callbacks), None, f"`scrapy walsh check {spider}` reads them", then)
    urls = listed_urls(spider, callbacks[0], start_urls)
    found = route_patterns.suggest(callbacks, urls or [])
    return _advice(callbacks, found, None if urls is None else len(urls), then=then)


def _advice(
    callbacks: list[str],
    found: dict[str, str | None],
    listed: int | None,
    unread: str = "",
    then: tuple[str, ...] = (),
) -> RouteAdvice:
    sources = {cb: ("sitemap" if found[cb] else "name") for cb in callbacks}
    patterns = {cb: (found[cb] or route_patterns.guess(cb)).replace('"', ".") for cb in callbacks}
    routes = ", ".join(f'r"{pattern}": "{cb}"' for cb, pattern in patterns.items())
    return RouteAdvice(f"WALSH_DISCOVERY_ROUTES = {{{routes}}}", sources, listed, unread, then)
