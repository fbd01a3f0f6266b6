"""A spider's own source, read with :mod:`ast`: its methods and their roles, and every place that
asks for a page. ``scrapy walsh check`` audits it (:mod:`.self_audit`) and says what the add-on
will change in its output (:mod:`.output_changes`).

The code is read with :mod:`ast`, never searched as text: a regex for ``.follow(`` passed
quotesbot, whose callback paginates with ``scrapy.Request(response.urljoin(...))``.
"""

from __future__ import annotations

import ast
import functools
import inspect
import os
from dataclasses import dataclass, field

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


@dataclass(frozen=True)
class Method:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    filename: str
    imports: dict[str, str]


@dataclass(frozen=True)
class Site:
    """One place in a spider's code that asks for a page."""

    method: str
    where: str  # file:line
    line: int
    kind: str  # "request", "follow", "engine"
    text: str  # the call as written, shortened: ``scrapy.Request(...)``


@dataclass
class SpiderCode:
    """What the AST of a spider class (and of its own base classes) shows."""

    methods: dict[str, Method] = field(default_factory=dict)
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


def dotted(node: ast.AST, imports: dict[str, str]) -> str | None:
    """``scrapy.http.Request`` for an expression naming it through the module's imports."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(imports.get(node.id, node.id))
    return ".".join(reversed(parts))


def is_request_class(name: str | None) -> bool:
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


def spider_code(spidercls: type) -> SpiderCode | None:
    """Parse the module of the spider class and of each base class of the project's own.

    Scrapy's and scrapy_walsh's own classes are left out: what they do is the framework's
    and the add-on's. The most derived definition of a method wins, as at run time.
    """
    code = SpiderCode()
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
                code.methods[item.name] = Method(item, base, imports)
        for sub in ast.walk(node):
            if not isinstance(sub, ast.Call):
                continue
            callee = dotted(sub.func, imports)
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
                is_request_class(callee)
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


def method_roles(code: SpiderCode) -> dict[str, str]:
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


def request_sites(code: SpiderCode, declared: set[str]) -> list[Site]:
    """Every request built, followed or sent by the engine in a method that runs after a response.

    A follow-up whose URL is written out and is one of the declared targets is left out: the
    crawl fetches it once, as a target.
    """
    sites: list[Site] = []
    roles = method_roles(code)
    for name, method in code.methods.items():
        role = roles.get(name)
        for sub in ast.walk(method.node):
            if not isinstance(sub, ast.Call):
                continue
            func = sub.func
            site = functools.partial(Site, name, f"{method.filename}:{sub.lineno}", sub.lineno, text=_call_text(sub))
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
            elif is_request_class(dotted(func, method.imports)) or (
                isinstance(func, ast.Attribute)
                and func.attr == "from_response"
                and is_request_class(dotted(func.value, method.imports))
            ):
                sites.append(site(kind="request"))
    return sorted(sites, key=lambda s: (s.where.split(":")[0], s.line, s.text))


def start_urls_ignored(code: SpiderCode, start_urls: set[str]) -> tuple[str, str] | None:
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


def declared_urls(spidercls: type) -> set[str]:
    urls = getattr(spidercls, "start_urls", None)
    return {u for u in urls if isinstance(u, str)} if isinstance(urls, list | tuple) else set()


#: Keys Scrapy and the add-on put in every response's meta, a discovered target's too.
OWN_META = frozenset({"depth", "download_latency", "download_slot", "download_timeout", "walsh", "redirect_times"})


def followed_state(method: Method) -> list[tuple[int, str]]:
    """What a callback takes from the request a followed link made, which a target discovery
    declares does not carry: (line, what to do) for each parameter besides the response that has
    no default (``cb_kwargs``), and each ``response.meta[KEY]`` or ``cb_kwargs[KEY]`` it reads."""
    args = method.node.args
    positional = [*args.posonlyargs, *args.args][2:]  # self, response
    required = positional[: len(positional) - len(args.defaults)] if args.defaults else positional
    required += [a for a, default in zip(args.kwonlyargs, args.kw_defaults, strict=True) if default is None]
    found = [
        (arg.lineno, f"give {method.node.name}'s `{arg.arg}` a default ({arg.arg}=None): it came by cb_kwargs")
        for arg in required
    ]
    for node in ast.walk(method.node):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
            and node.slice.value not in OWN_META
            and ast.unparse(node.value).endswith((".meta", ".cb_kwargs"))
        ):
            read = ast.unparse(node)
            found.append((node.lineno, f"read {read} with {ast.unparse(node.value)}.get({node.slice.value!r})"))
    return found
