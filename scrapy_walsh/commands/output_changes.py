"""What the add-on will change in a spider's output, read from its source (``scrapy walsh check``):
followed links, items sharing a dedup key, fields over the size bound, the ``walsh`` key,
private start URLs and HTML selectors, each with where and what to do."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from itemadapter import ItemAdapter
from scrapy.utils.misc import load_object

from scrapy_walsh.commands.spider_source import (
    Method,
    SpiderCode,
    declared_urls,
    dotted,
    followed_state,
    is_request_class,
    method_roles,
    request_sites,
    spider_code,
)
from scrapy_walsh.conformance.engine import WARN, Finding
from scrapy_walsh.policy.addresses import PrivateAddressAllowance, parse_ip, refusal
from scrapy_walsh.policy.urls import split
from scrapy_walsh.policy.vocabulary import docs_topic


@dataclass(frozen=True)
class Change:
    """One thing the add-on will change in a spider's output, where, and what to do."""

    where: str  # file:line
    requirement: str  # "R6 scope"
    change: str
    todo: str


DECLARE_PAGES = (
    "declare every page in start_urls: a list, or the pages a StructuredSourceSpider listed from "
    "the site's sitemap (sitemap_targets) in an earlier run"
)
#: Expressions whose text is a page body (or a long run of it): an item field built from one
#: may pass WALSH_MAX_FIELD_CHARS.
_LONG_VALUES = frozenset({"getall", "extract", "join", "text", "body", "markdown"})
WALSH_KEY = (
    "each item gets a `walsh` key (the source's usage preferences: Content-Usage, Content-Signal, "
    "TDMRep), added to the item's own `walsh` dict when it has one"
)


WITHOUT_WALSH_FIELD = (
    "{name} has no `walsh` field, so its items don't get the `walsh` key: no usage preferences "
    "(Content-Usage, Content-Signal, TDMRep), and the item of a page fetched again for a newer "
    "lastmod is delivered without its update mark (R7)"
)
_DECLARE = "declare `walsh = scrapy.Field()` in {name} to receive them, or leave it as it is"


def _without_walsh_field(value: ast.AST, method: Method) -> str | None:
    """The name of the item class ``value`` is an instance of (``BookItem()``, or a name bound to
    one in the method) when that class declares its fields and ``walsh`` is not among them."""
    call = value
    if isinstance(value, ast.Name):
        bound = [
            node.value
            for node in ast.walk(method.node)
            if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == value.id for t in node.targets)
            and isinstance(node.value, ast.Call)
        ]
        call = bound[0] if bound else value
    name = dotted(call.func, method.imports) if isinstance(call, ast.Call) else None
    if not name or "." not in name:
        return None
    try:
        cls = load_object(name)
        fields = ItemAdapter.get_field_names_from_class(cls) if ItemAdapter.is_item_class(cls) else None
    except Exception:  # noqa: BLE001 - a name check can't import says nothing about the items
        return None
    return cls.__name__ if fields is not None and "walsh" not in fields else None


def _walsh_key_change(value: ast.AST, method: Method, where: str, said: set[str]) -> list[Change]:
    """The ``walsh`` key the items get, or what an Item class without the field does not get: once
    for the items that get it (``""`` in ``said``), once per class that can't carry it."""
    lacking = _without_walsh_field(value, method)
    if (lacking or "") in said:
        return []
    said.add(lacking or "")
    if lacking is None:
        return [Change(where, "usage", WALSH_KEY, "keep it, or leave it out of exports with FEED_EXPORT_FIELDS")]
    return [Change(where, "usage", WITHOUT_WALSH_FIELD.format(name=lacking), _DECLARE.format(name=lacking))]


def _is_item_expr(node: ast.AST | None, imports: dict[str, str]) -> bool:
    """A dict display, ``dict(...)``, or a call of a class that is not a request (an Item)."""
    if isinstance(node, ast.Dict):
        return True
    if isinstance(node, ast.Call):
        name = dotted(node.func, imports) or ""
        last = name.rsplit(".", 1)[-1]
        return last == "dict" or (last[:1].isupper() and not is_request_class(name) and last not in {"Rule"})
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


def _item_fields(value: ast.AST, method: Method) -> dict[str, ast.AST] | None:
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


#: The matches of these selections are attribute values (a link, an image's URL): each is one short
#: string, checked alone against the field bound, however many the list holds.
_ATTRIBUTE_SELECTIONS = ("::attr(", "/@")
#: The longest expression quoted whole in a message; a longer one is pointed at by its line.
QUOTED = 100


def _attribute_matches(node: ast.AST) -> bool:
    """``response.css("img::attr(src)").getall()``: a list of attribute values."""
    return any(
        isinstance(c, ast.Constant) and isinstance(c.value, str) and any(a in c.value for a in _ATTRIBUTE_SELECTIONS)
        for c in ast.walk(node)
    )


def _long(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr in _LONG_VALUES:
            if sub.attr in {"text", "body"} and not isinstance(sub.value, ast.Name):
                continue  # response.text / response.body only
            if sub.attr in {"getall", "extract"} and _attribute_matches(sub.value):
                continue  # a list of short values: each string is checked alone
            return True
    return False


def _quoted(node: ast.AST) -> str:
    """The expression as written, whole, or "the expression" when too long to quote whole."""
    text = ast.unparse(node)
    return text if len(text) <= QUOTED and "\n" not in text else "the expression on that line"


def _telling_apart(fields: dict[str, ast.AST], loop_target: ast.AST, dedup_key: str) -> list[str]:
    """The item's fields read from the loop's variable (``product.css(".sku::text")``): they may tell
    the items of one page apart, so they are the ones to suggest as WALSH_DEDUP_KEY."""
    names = _names(loop_target)
    found = [(_long(value), field) for field, value in fields.items() if field != dedup_key and _names(value) & names]
    return [field for _, field in sorted(found)]  # one short value (a title, an id) before a long text


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}


def _private_start_urls(spidercls: type, allowance: PrivateAddressAllowance) -> list[str]:
    """The spider's ``start_urls`` on a private or loopback IP literal (or ``localhost``) that
    ``allowance`` (WALSH_ALLOW_PRIVATE_ADDRESSES) does not cover: the address rule refuses them."""

    found = []
    for url in sorted(declared_urls(spidercls)):
        try:
            host = (split(url).hostname or "").lower()
        except ValueError:
            continue
        if host == "localhost" or host.endswith(".localhost"):
            host = "127.0.0.1"
        if host and parse_ip(host) is not None and refusal(host, allowance):
            found.append(url)
    return found


def output_changes(
    spidercls: type,
    dedup_key: str = "url",
    allowance: PrivateAddressAllowance | None = None,
    advice: str | None = None,
    discovering: bool = False,
) -> list[Change]:
    """What the add-on will change in this spider's output, read from its source with :mod:`ast`:
    followed links (R6), items that share a dedup key (R7), fields that may pass the size bound
    (R6), the ``walsh`` key added to items, private addresses in ``start_urls``, and HTML
    selectors (R9). Each with ``file:line`` and what to do. ``advice`` is what to do about a followed
    link (the routes line to paste); a spider whose targets discovery declares (``discovering``)
    follows nothing: its follows are not changes."""
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
    code = spider_code(spidercls)
    if code is None:
        return changes
    roles = method_roles(code)
    said = False
    for site in [] if discovering else request_sites(code, declared_urls(spidercls)):
        followed = bool(advice) and site.kind != "engine" and roles.get(site.method) == "callback"
        todo = (advice if not said else "paste the WALSH_DISCOVERY_ROUTES line above") if followed else DECLARE_PAGES
        said = said or followed
        changes.append(
            Change(
                site.where,
                "R6 scope",
                f"{site.text} in {roles.get(site.method, 'method')} {site.method}: the request is dropped "
                "(no link following), so that page is never fetched",
                f"{todo}; see {docs_topic('links-yield-nothing')}",
            )
        )
    changes += _item_changes(code, roles, dedup_key)
    if code.selectors:
        changes.append(_selector_change(code))
    return changes


def _item_changes(code: SpiderCode, roles: dict[str, str], dedup_key: str) -> list[Change]:
    """The items each callback yields: the ``walsh`` key added, items of one loop sharing the
    dedup key (R7), fields that may pass the size bound."""
    changes: list[Change] = []
    walsh_key_said: set[str] = set()  # "" for the items that get the key, else the classes without it
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
            changes += _walsh_key_change(sub.value, method, where, walsh_key_said)
            loop = parents.get(sub)
            while loop is not None and not isinstance(loop, ast.For | ast.AsyncFor | ast.comprehension):
                loop = parents.get(loop)
            key = fields.get(dedup_key) if keyed_by_field else None
            if loop is not None and key is not None and not (_names(key) & _names(loop.target)):
                apart = _telling_apart(fields, loop.target, dedup_key)
                todo = (
                    f"set WALSH_DEDUP_KEY to a field of these items that tells them apart "
                    f"(WALSH_DEDUP_KEY = {apart[0]!r}" + "".join(f", or {field!r}" for field in apart[1:]) + ")"
                    if apart
                    else "set WALSH_DEDUP_KEY to a callable that tells them apart"
                )
                changes.append(
                    Change(
                        where,
                        "R7 dedup",
                        f"items yielded in a loop share the dedup key {dedup_key!r} ({_quoted(key)}): "
                        "only the first of each page is emitted, the others are dropped as duplicates",
                        f"{todo}, or give each item its own {dedup_key!r}",
                    )
                )
            for field_name, value in sorted(fields.items()):
                if _long(value):
                    changes.append(
                        Change(
                            f"{method.filename}:{getattr(value, 'lineno', sub.lineno)}",
                            "R6 item bound",
                            f"field {field_name!r} = {_quoted(value)} may pass WALSH_MAX_FIELD_CHARS "
                            "(2000 by default): an item with a longer string is dropped whole",
                            "keep metadata (a title, a summary, links), not a page body; raising "
                            "WALSH_MAX_FIELD_CHARS loosens R6 and is warned about at start",
                        )
                    )
    return changes


def _selector_change(code: SpiderCode) -> Change:
    """R9: the add-on leaves CSS/XPath selectors as they are; check warns."""
    lines = "; ".join(f"{f} lines {', '.join(map(str, sorted(set(n))))}" for f, n in sorted(code.selectors.items()))
    first = sorted(code.selectors.items())[0]
    return Change(
        f"{first[0]}:{min(first[1])}",
        "R9 structured formats",
        f"CSS/XPath selectors ({lines}): R9 says never scrape HTML per site; the add-on can't tell "
        "generic from per-site extraction, so it does not change them and check warns",
        "keep them generic (title, headings, links), or read the site's feed, sitemap, JSON or "
        "llms.txt (StructuredSourceSpider)",
    )


#: The gate that refuses a manifest -> (its checklist row, its requirement, what to do).
_MANIFEST_GATES: Mapping[str, tuple[str, str, str]] = MappingProxyType(
    {
        "address rule": (
            "9",
            "addresses",
            'for a site you run locally, WALSH_ALLOW_PRIVATE_ADDRESSES = ["127.0.0.1"] (addresses or networks); '
            "public sites need nothing",
        ),
        "blocklist": ("3", "R3", "the site opted out: it is not to be crawled"),
        "robots.txt": ("2", "R2", "the site does not want it read: list the pages another way, or leave the site"),
    }
)


def manifest_changes(spidercls: type, settings: Any) -> list[Change]:
    """A discovery spider's manifests a gate would refuse (:mod:`.manifest_checks`): nothing they list
    is fetched; when every one is refused, the crawl fetches nothing."""
    from scrapy_walsh.commands.manifest_checks import manifests, refused
    from scrapy_walsh.discovery.manifests import spider_routes

    try:
        routing = spider_routes(spidercls, settings)
    except ValueError:
        return []
    listed = manifests(spidercls, routing) if routing is not None else []
    carried = _followed_state_changes(spidercls, routing.callbacks) if routing is not None else []
    found = list(refused(listed, settings))
    every = len(found) == len(listed) and bool(found)
    # a start URL's host on a refused address is said already, with the start URLs
    found = [f for f in found if not (f[2] == "address rule" and f[0].endswith(".start_urls"))]
    return carried + [
        Change(
            where,
            f"{gate} (manifest)",
            f"{url} is refused by the {gate}: {why}; discovery reads nothing from it"
            + (", and no manifest of this spider is left: the crawl would fetch nothing" if every else ""),
            _MANIFEST_GATES[gate][2],
        )
        for where, url, gate, why in found
    ]


ROUTED_STATE = "R6 routed callback"


def _followed_state_changes(spidercls: type, routed: Mapping[str, Any]) -> list[Change]:
    """What a routed callback reads from the request a followed link made (``response.meta[KEY]``):
    a target discovery declares carries none of it, so each of its pages would raise. (A parameter
    without a default is a route the start refuses: :func:`~scrapy_walsh.discovery.manifests.route_findings`.)"""
    code = spider_code(spidercls)
    if code is None:
        return []
    return [
        Change(
            f"{method.filename}:{line}",
            ROUTED_STATE,
            f"{name} is a route's callback and reads what a followed link passed; a target discovery "
            "declares carries none of it, so each of its pages would raise KeyError and give no item",
            todo,
        )
        for name in sorted(routed)
        if (method := code.methods.get(name)) is not None
        for line, todo in followed_state(method)
        if not todo.startswith("give ")
    ]


def change_findings(spidercls: type, changes: list[Change]) -> list[Finding]:
    """Row warnings for the changes that lose items before the crawl: R7's shared keys, refused manifests."""
    name = getattr(spidercls, "name", spidercls.__name__)
    findings = [
        Finding("7", "R7", WARN, "WALSH_DEDUP_KEY", f"spider {name}, {c.where}: {c.change}; {c.todo}")
        for c in changes
        if c.requirement == "R7 dedup"
    ]
    findings += [
        Finding("6", "R6", WARN, f"spider {name}", f"{c.where}: {c.change}; {c.todo}")
        for c in changes
        if c.requirement == ROUTED_STATE
    ]
    for c in changes:
        gate = c.requirement.removesuffix(" (manifest)")
        if gate != c.requirement:
            row, requirement, _ = _MANIFEST_GATES[gate]
            findings.append(Finding(row, requirement, WARN, c.where, f"{c.change}; {c.todo}"))
    return findings
