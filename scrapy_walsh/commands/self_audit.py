"""What only ``scrapy walsh check`` looks at: the spider's own code, and a write probe of the store.

The settings rules (:mod:`scrapy_walsh.conformance`) run at every start; these two run
only in a self-audit, because one reads source files and the other writes to the store.
The code is read with :mod:`ast`, never searched as text (a regex for ``.follow(``
passed quotesbot, whose callback paginates with ``scrapy.Request(response.urljoin(...))``).
"""

from __future__ import annotations

import ast
import functools
import inspect
import os
import uuid
from dataclasses import dataclass, field

from scrapy.settings import BaseSettings

from ..config import raw, state_location
from ..conformance.engine import FAIL, PASS, WARN, Finding
from ..policy.addresses import PrivateAddressAllowance, parse_ip, refusal
from ..policy.vocabulary import Namespace
from ..settings import ROBOTS_TOKEN
from ..store import StateStoreError, open_store

#: Request classes by their last name (``scrapy.Request``, ``scrapy.http.FormRequest`` ...);
#: any other name ending in ``Request`` (``SplashRequest``, a project's own) counts too.
REQUEST_CLASSES = frozenset({"Request", "FormRequest", "JsonRequest", "XmlRpcRequest"})
LINK_EXTRACTORS = frozenset({"LinkExtractor", "LxmlLinkExtractor"})
#: Methods Scrapy calls to make the start requests: what they build is declared.
START_METHODS = frozenset({"start", "start_requests"})
#: Methods Scrapy calls with a response without being named as a callback.
DEFAULT_CALLBACKS = frozenset({"parse", "parse_start_url", "_parse"})
#: Engine calls that send a request from spider code (``download*``: around the scheduler and
#: the spider middlewares; ``crawl``: around the spider middlewares, dropped at the scheduler).
ENGINE_CALLS = frozenset({"download", "download_async", "crawl"})
DECLARE = "declare the pages to fetch instead (start_urls, start(), or a StructuredSourceSpider's targets)"


@dataclass(frozen=True)
class _Method:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    filename: str
    imports: dict[str, str]


@dataclass(frozen=True)
class _Site:
    """One place in a spider's code that asks for a page."""

    method: str
    where: str  # file:line
    line: int
    kind: str  # "request", "follow", "engine"
    text: str  # the call as written, shortened: ``scrapy.Request(...)``


@dataclass
class _SpiderCode:
    """What the AST of a spider class (and of its own base classes) shows."""

    methods: dict[str, _Method] = field(default_factory=dict)
    callbacks: set[str] = field(default_factory=set)
    errbacks: set[str] = field(default_factory=set)
    link_extractors: list[str] = field(default_factory=list)
    selectors: dict[str, list[int]] = field(default_factory=dict)


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted name it stands for, from the module's top-level imports."""
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                names[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _dotted(node: ast.AST, imports: dict[str, str]) -> str | None:
    """``scrapy.http.Request`` for an expression naming it through the module's imports."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(imports.get(node.id, node.id))
    return ".".join(reversed(parts))


def _is_request_class(name: str | None) -> bool:
    last = (name or "").rsplit(".", 1)[-1]
    return last in REQUEST_CLASSES or (last.endswith("Request") and last[:1].isupper())


def _self_method(node: ast.AST) -> str | None:
    """``m`` for ``self.m``, or for the string ``"m"`` (a Rule's callback)."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
        return node.value
    return None


def _call_text(call: ast.Call) -> str:
    return f"{ast.unparse(call.func)}(...)"


def _spider_code(spidercls: type) -> _SpiderCode | None:
    """Parse the module of the spider class and of each base class of the project's own.

    Scrapy's and scrapy_walsh's own classes are left out: what they do is the framework's
    and the add-on's. The most derived definition of a method wins, as at run time.
    """
    code = _SpiderCode()
    found = False
    for cls in reversed(spidercls.__mro__):
        module = getattr(cls, "__module__", "") or ""
        if module == "builtins" or module.split(".")[0] in {"scrapy", "scrapy_walsh"}:
            continue
        try:
            filename = inspect.getsourcefile(cls)
            if filename is None:
                continue
            with open(filename, encoding="utf-8") as fh:
                tree = ast.parse(fh.read(), filename)
        except (OSError, TypeError, SyntaxError, UnicodeDecodeError):
            continue
        node = _class_node(tree, cls.__qualname__)
        if node is None:
            continue
        found = True
        imports = _imports(tree)
        base = os.path.basename(filename)
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                code.methods[item.name] = _Method(item, base, imports)
        for sub in ast.walk(node):
            if not isinstance(sub, ast.Call):
                continue
            callee = _dotted(sub.func, imports)
            last = (callee or "").rsplit(".", 1)[-1]
            if last in LINK_EXTRACTORS:
                code.link_extractors.append(f"{base}:{sub.lineno}")
            if isinstance(sub.func, ast.Attribute) and sub.func.attr in {"css", "xpath"}:
                code.selectors.setdefault(base, []).append(sub.lineno)
            for keyword in sub.keywords:
                target = _self_method(keyword.value)
                if target and keyword.arg == "callback":
                    code.callbacks.add(target)
                elif target and keyword.arg == "errback":
                    code.errbacks.add(target)
            # the second positional argument of Request(url, cb), follow(url, cb), Rule(le, "cb")
            takes_callback = (
                _is_request_class(callee)
                or last == "Rule"
                or (isinstance(sub.func, ast.Attribute) and sub.func.attr in {"follow", "follow_all"})
            )
            if takes_callback and len(sub.args) >= 2 and (target := _self_method(sub.args[1])):
                code.callbacks.add(target)
    return code if found else None


def _class_node(tree: ast.Module, qualname: str) -> ast.ClassDef | None:
    body: list[ast.stmt] = tree.body
    node: ast.ClassDef | None = None
    for part in qualname.split("."):
        node = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == part), None)
        if node is None:
            return None
        body = node.body
    return node


def _roles(code: _SpiderCode) -> dict[str, str]:
    """Each method's role: ``errback``, ``callback`` or ``start``; helpers take their caller's.

    A helper called from a callback runs after a response, so what it builds is a follow-up,
    even when ``start()`` calls it too; an errback's requests are the worst case (they go
    around the spider middlewares), so that role wins.
    """
    roles: dict[str, str] = {}
    seeds = [
        ("errback", code.errbacks),
        ("callback", code.callbacks | DEFAULT_CALLBACKS),
        ("start", START_METHODS),
    ]
    for role, names in seeds:
        queue = [n for n in sorted(names) if n in code.methods]
        while queue:
            name = queue.pop()
            if name in roles:
                continue
            roles[name] = role
            for sub in ast.walk(code.methods[name].node):
                if isinstance(sub, ast.Call) and (called := _self_method(sub.func)) and called in code.methods:
                    queue.append(called)
    return roles


def _sites(code: _SpiderCode, declared: set[str]) -> list[_Site]:
    """Every request built, followed or sent by the engine in a method that runs after a response.

    A follow-up whose URL is written out and is one of the declared targets is left out: the
    crawl fetches it once, as a target.
    """
    sites: list[_Site] = []
    roles = _roles(code)
    for name, method in code.methods.items():
        role = roles.get(name)
        for sub in ast.walk(method.node):
            if not isinstance(sub, ast.Call):
                continue
            func = sub.func
            site = functools.partial(_Site, name, f"{method.filename}:{sub.lineno}", sub.lineno, text=_call_text(sub))
            if isinstance(func, ast.Attribute) and func.attr in ENGINE_CALLS and "engine" in ast.unparse(func.value):
                sites.append(site(kind="engine"))
                continue
            if role not in {"callback", "errback"}:
                continue
            url = sub.args[0] if sub.args else None
            if isinstance(url, ast.Constant) and url.value in declared:
                continue
            if isinstance(func, ast.Attribute) and func.attr in {"follow", "follow_all"}:
                sites.append(site(kind="follow"))
            elif _is_request_class(_dotted(func, method.imports)) or (
                isinstance(func, ast.Attribute)
                and func.attr == "from_response"
                and _is_request_class(_dotted(func.value, method.imports))
            ):
                sites.append(site(kind="request"))
    return sorted(sites, key=lambda s: (s.where.split(":")[0], s.line, s.text))


def _start_urls_ignored(code: _SpiderCode, start_urls: set[str]) -> tuple[str, str] | None:
    """``(file:line, "start")`` when the spider sets ``start_urls`` but its own start method
    neither reads them nor calls the inherited one: they look declared and are not."""
    for name in sorted(START_METHODS & code.methods.keys()):
        method = code.methods[name]
        reads = any(
            (isinstance(n, ast.Attribute) and n.attr in {"start_urls", name})
            or (isinstance(n, ast.Name) and n.id == "start_urls")
            for n in ast.walk(method.node)
        )
        if start_urls and not reads:
            return f"{method.filename}:{method.node.lineno}", name
    return None


def _declared_urls(spidercls: type) -> set[str]:
    urls = getattr(spidercls, "start_urls", None)
    return {u for u in urls if isinstance(u, str)} if isinstance(urls, list | tuple) else set()


def _site_finding(name: str, site: _Site, roles: dict[str, str]) -> Finding:
    role = roles.get(site.method, "method")
    at = f"{site.where}: {site.text} in {role} {site.method}"
    if site.kind == "engine" and "crawl" not in site.text.rsplit(".", 1)[-1]:
        why = (
            "asks for a page that is not a declared target, around the scheduler and the spider "
            "middlewares: R6 forbids it, whatever a later check catches; " + DECLARE
        )
    elif site.kind == "engine":
        why = "schedules a request around the spider middlewares: dropped at the scheduler (R6); " + DECLARE
    elif role == "errback":
        why = (
            "an errback's requests reach the scheduler around the spider middlewares and are dropped "
            "there (R6: no retry or follow-up of our own making); " + DECLARE
        )
    else:
        why = "a request a callback yields is dropped (R6: no link following), so it is never fetched; " + DECLARE
    return Finding("6", "R6", FAIL, f"spider {name}.{site.method}", f"{at}: {why}")


def audit_spider(spidercls: type) -> list[Finding]:
    """What a spider's class and source show against rows 1, 6 and 9.

    Runtime gates already drop followed links (R6); a spider *written* to recurse
    still fails its row, because only its declared targets will ever be fetched. The
    source is read with :mod:`ast` (the spider's module, and the modules of its own base
    classes), never searched as text: a request built (``scrapy.Request``, ``FormRequest``,
    ``JsonRequest``, ``response.follow``/``follow_all``) in a callback, in an errback or in a
    helper they call fails the row, with its line; so do ``CrawlSpider`` rules, a
    ``SitemapSpider`` (it follows what its sitemaps list), and an ``engine.download()`` from
    spider code (around the scheduler and the spider middlewares). A link extractor and
    selectors warn: recording links as metadata is allowed, per-site HTML scraping (R9) is
    not, and only a reader can tell the two apart.
    """
    from scrapy.spiders import CrawlSpider, SitemapSpider

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
                "only the start URLs are fetched): use scrapy.Spider with declared targets",
            )
        )
    if issubclass(spidercls, SitemapSpider):
        findings.append(
            Finding(
                "6",
                "R6",
                FAIL,
                f"spider {name}.sitemap_urls",
                "a SitemapSpider requests every page its sitemaps list, from its own callback: each such "
                "request is dropped (R6), so only the sitemaps are fetched; use a StructuredSourceSpider "
                "(sitemap_targets: entries become items) and declare the pages to fetch as its targets",
            )
        )
    code = _spider_code(spidercls)
    if code is None:
        findings.append(
            Finding("6", "R6", WARN, f"spider {name}", "source not available: requests and selectors not audited")
        )
        return findings
    roles = _roles(code)
    findings += [_site_finding(name, site, roles) for site in _sites(code, _declared_urls(spidercls))]
    ignored = _start_urls_ignored(code, _declared_urls(spidercls))
    if ignored:
        where, method = ignored
        findings.append(
            Finding(
                "6",
                "R6",
                WARN,
                f"spider {name}.start_urls",
                f"{where}: {method}() neither reads start_urls nor calls the inherited {method}(), so the "
                f"{len(_declared_urls(spidercls))} start_urls are not declared targets and are never fetched; "
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
    if code.selectors:
        lines = "; ".join(f"{f} lines {', '.join(map(str, sorted(set(n))))}" for f, n in sorted(code.selectors.items()))
        findings.append(
            Finding(
                "9",
                "R9",
                WARN,
                f"spider {name}",
                f"extracts with CSS/XPath selectors ({lines}): a warning, because R9's MUST NOT "
                "is about per-site HTML scraping and only a reader can tell it from generic "
                "extraction; keep them generic (title, headings, links)",
            )
        )
    else:
        findings.append(Finding("9", "R9", PASS, f"spider {name}", "no CSS/XPath selectors"))
    return findings


# --- what the add-on will change in the spider's output -----------------------------------


@dataclass(frozen=True)
class Change:
    """One thing the add-on will change in a spider's output, where, and what to do."""

    where: str  # file:line
    requirement: str  # "R6 scope"
    change: str
    todo: str


#: Expressions whose text is a page body (or a long run of it): an item field built from one
#: may pass WALSH_MAX_FIELD_CHARS.
_LONG_VALUES = frozenset({"getall", "extract", "join", "text", "body", "markdown"})
WALSH_KEY = (
    "each item gets a `walsh` key (the source's usage preferences: Content-Usage, Content-Signal, "
    "TDMRep), added to the item's own `walsh` dict when it has one"
)


def _is_item_expr(node: ast.AST | None, imports: dict[str, str]) -> bool:
    """A dict display, ``dict(...)``, or a call of a class that is not a request (an Item)."""
    if isinstance(node, ast.Dict):
        return True
    if isinstance(node, ast.Call):
        name = _dotted(node.func, imports) or ""
        last = name.rsplit(".", 1)[-1]
        return last == "dict" or (last[:1].isupper() and not _is_request_class(name) and last not in {"Rule"})
    return False


def _fields(node: ast.AST) -> dict[str, ast.AST]:
    if isinstance(node, ast.Dict):
        return {
            k.value: v
            for k, v in zip(node.keys, node.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)
        }
    if isinstance(node, ast.Call):
        return {k.arg: k.value for k in node.keywords if k.arg}
    return {}


def _item_fields(value: ast.AST, method: _Method) -> dict[str, ast.AST] | None:
    """The fields of an item yielded as written (``{...}``, ``Item(...)``) or by name (``item``
    built in the method, then ``item["url"] = ...``); None when ``value`` is not an item."""
    if _is_item_expr(value, method.imports):
        return _fields(value)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "load_item":
        loader = ast.unparse(value.func.value)  # an ItemLoader: its add_value("field", ...) calls
        return {
            node.args[0].value: node.args[1]
            for node in ast.walk(method.node)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_value"
            and ast.unparse(node.func.value) == loader
            and len(node.args) >= 2
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        }
    if not isinstance(value, ast.Name):
        return None
    fields: dict[str, ast.AST] | None = None
    for node in ast.walk(method.node):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id == value.id and _is_item_expr(node.value, method.imports):
                fields = {**(fields or {}), **_fields(node.value)}
            elif (
                isinstance(target, ast.Subscript)
                and isinstance(target.value, ast.Name)
                and target.value.id == value.id
                and isinstance(target.slice, ast.Constant)
                and isinstance(target.slice.value, str)
            ):
                fields = {**(fields or {}), target.slice.value: node.value}
    return fields


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _long(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr in _LONG_VALUES:
            if sub.attr in {"text", "body"} and not isinstance(sub.value, ast.Name):
                continue  # response.text / response.body only
            return True
    return False


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}


def _private_start_urls(spidercls: type, allowance: PrivateAddressAllowance) -> list[str]:
    """The spider's ``start_urls`` on a private or loopback IP literal (or ``localhost``) that
    ``allowance`` (WALSH_ALLOW_PRIVATE_ADDRESSES) does not cover: the address rule refuses them."""
    from urllib.parse import urlsplit

    found = []
    for url in sorted(_declared_urls(spidercls)):
        try:
            host = (urlsplit(url).hostname or "").lower()
        except ValueError:
            continue
        if host == "localhost" or host.endswith(".localhost"):
            host = "127.0.0.1"
        if host and parse_ip(host) is not None and refusal(host, allowance):
            found.append(url)
    return found


def output_changes(
    spidercls: type, dedup_key: str = "url", allowance: PrivateAddressAllowance | None = None
) -> list[Change]:
    """What the add-on will change in this spider's output, read from its source with :mod:`ast`:
    followed links (R6), items that share a dedup key (R7), fields that may pass the size bound
    (R6), the ``walsh`` key added to items, private addresses in ``start_urls``, and HTML
    selectors (R9). Each with ``file:line`` and what to do."""
    name = getattr(spidercls, "name", spidercls.__name__)
    changes: list[Change] = []
    private = _private_start_urls(spidercls, allowance or PrivateAddressAllowance())
    if private:
        changes.append(
            Change(
                f"spider {name}.start_urls",
                "private addresses",
                f"{len(private)} start URL(s) on a private or loopback address ({private[0]} ...): refused, "
                "nothing of them is fetched",
                'for a site you run locally, WALSH_ALLOW_PRIVATE_ADDRESSES = ["127.0.0.1"] (addresses '
                "or networks); public sites need nothing",
            )
        )
    code = _spider_code(spidercls)
    if code is None:
        return changes
    roles = _roles(code)
    for site in _sites(code, _declared_urls(spidercls)):
        changes.append(
            Change(
                site.where,
                "R6 scope",
                f"{site.text} in {roles.get(site.method, 'method')} {site.method}: the request is dropped "
                "(no link following), so that page is never fetched",
                "declare every page in start_urls: a list, or the pages a StructuredSourceSpider listed from "
                "the site's sitemap (sitemap_targets) in an earlier run; see 'Adding scrapy-walsh to an "
                "existing project'",
            )
        )
    walsh_key_said = False
    keyed_by_field = "." not in dedup_key
    for method_name, method in sorted(code.methods.items()):
        if roles.get(method_name) != "callback":
            continue
        parents = _parents(method.node)
        for sub in ast.walk(method.node):
            if not isinstance(sub, ast.Yield | ast.Return) or sub.value is None:
                continue
            fields = _item_fields(sub.value, method)
            if fields is None:
                continue
            where = f"{method.filename}:{sub.lineno}"
            if not walsh_key_said:
                walsh_key_said = True
                changes.append(
                    Change(where, "usage", WALSH_KEY, "keep it, or leave it out of exports with FEED_EXPORT_FIELDS")
                )
            loop = parents.get(sub)
            while loop is not None and not isinstance(loop, ast.For | ast.AsyncFor | ast.comprehension):
                loop = parents.get(loop)
            key = fields.get(dedup_key) if keyed_by_field else None
            if loop is not None and key is not None and not (_names(key) & _names(loop.target)):
                changes.append(
                    Change(
                        where,
                        "R7 dedup",
                        f"items yielded in a loop share the dedup key {dedup_key!r} ({ast.unparse(key)}): "
                        "only the first of each page is emitted, the others are dropped as duplicates",
                        f'set WALSH_DEDUP_KEY to a field that tells them apart (WALSH_DEDUP_KEY = "sku") '
                        f"or to a callable, or give each item its own {dedup_key!r}",
                    )
                )
            for field_name, value in sorted(fields.items()):
                if _long(value):
                    changes.append(
                        Change(
                            f"{method.filename}:{getattr(value, 'lineno', sub.lineno)}",
                            "R6 item bound",
                            f"field {field_name!r} = {ast.unparse(value)[:60]} may pass WALSH_MAX_FIELD_CHARS "
                            "(2000 by default): an item with a longer string is dropped whole",
                            "keep metadata (a title, a summary, links), not a page body; raising "
                            "WALSH_MAX_FIELD_CHARS loosens R6 and is warned about at start",
                        )
                    )
    if code.selectors:
        lines = "; ".join(f"{f} lines {', '.join(map(str, sorted(set(n))))}" for f, n in sorted(code.selectors.items()))
        first = sorted(code.selectors.items())[0]
        changes.append(
            Change(
                f"{first[0]}:{min(first[1])}",
                "R9 structured formats",
                f"CSS/XPath selectors ({lines}): R9 says never scrape HTML per site; the add-on can't tell "
                "generic from per-site extraction, so it does not change them and check warns",
                "keep them generic (title, headings, links), or read the site's feed, sitemap, JSON or "
                "llms.txt (StructuredSourceSpider)",
            )
        )
    return changes


def change_findings(spidercls: type, changes: list[Change]) -> list[Finding]:
    """Row warnings for the changes that lose items before the crawl: R7's shared keys."""
    name = getattr(spidercls, "name", spidercls.__name__)
    return [
        Finding("7", "R7", WARN, "WALSH_DEDUP_KEY", f"spider {name}, {c.where}: {c.change}; {c.todo}")
        for c in changes
        if c.requirement == "R7 dedup"
    ]


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
