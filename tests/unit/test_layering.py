"""The layering rule: the policy core imports no Scrapy, Twisted or redis, and loads fast.

Each module is imported in a fresh interpreter, so nothing imported earlier by the test
process can hide a dependency. Loading fast means no jsonschema at import time: its
format checkers alone cost about 2 s, so the blocklist loads it on the first validation.
"""

from __future__ import annotations

import ast
import functools
import json
import pkgutil
import subprocess
import sys

import pytest

import scrapy_walsh.policy
from tests.helpers import REPO

FORBIDDEN = ("scrapy", "twisted", "redis")
#: Loaded on first use only, never by an import of the core.
LAZY = ("jsonschema", "jsonschema_specifications", "referencing")
#: The core's modules; ``robots__mypyc`` is the runtime of the compiled ``robots`` (setup.py), not a module of ours.
POLICY_MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(scrapy_walsh.policy.__path__, prefix="scrapy_walsh.policy.")
    if not info.name.endswith("__mypyc")
) + ["scrapy_walsh.policy"]

PROBE = """
import json, sys, time
start = time.perf_counter()
import {module}
elapsed = time.perf_counter() - start
print(json.dumps({{"loaded": sorted({{m.split(".")[0] for m in sys.modules}}), "seconds": elapsed}}))
"""


@functools.cache  # one fresh interpreter per module, shared by the checks below
def _import_in_fresh_interpreter(module: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module)], capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


@pytest.mark.parametrize("module", POLICY_MODULES)
def test_policy_module_imports_no_framework(module):
    loaded = set(_import_in_fresh_interpreter(module)["loaded"])
    assert not loaded & set(FORBIDDEN), f"{module} loads {sorted(loaded & set(FORBIDDEN))}"


def test_subpackages_are_walked():
    """The modules of a subpackage (the blocklist's) are checked too, not just its name."""
    assert {"scrapy_walsh.policy.blocklist", "scrapy_walsh.policy.blocklist.compile"} <= set(POLICY_MODULES)


@pytest.mark.parametrize("module", POLICY_MODULES)
def test_policy_module_imports_no_jsonschema(module):
    loaded = set(_import_in_fresh_interpreter(module)["loaded"])
    assert not loaded & set(LAZY), f"{module} loads {sorted(loaded & set(LAZY))} at import time"


def test_blocklist_loads_jsonschema_on_first_validation():
    """In a fresh interpreter, the first adoption loads jsonschema and still refuses a bad entry."""
    probe = """
import json, sys
from scrapy_walsh.policy.blocklist import CONTRACT, Blocklist, InvalidBlocklist
before = "jsonschema" in sys.modules
doc = {"contract": CONTRACT, "updated": "2026-05-23T00:00:00Z", "operator": "o", "contact": "c@x.org",
       "policy": "https://x.org/", "blocked": [{"domain": "x.com", "added": "2026-05-23", "reason": "r"}]}
adopted = len(Blocklist.from_document(doc))
doc["blocked"].append({"domain": "http://y.com", "added": "2026-05-23", "reason": "r"})
try:
    Blocklist.from_document(doc)
    refused = None
except InvalidBlocklist as exc:
    refused = str(exc)
print(json.dumps({"before": before, "after": "jsonschema" in sys.modules, "adopted": adopted, "refused": refused}))
"""
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    seen = json.loads(result.stdout)
    assert seen["before"] is False and seen["after"] is True
    assert seen["adopted"] == 1
    assert seen["refused"].startswith("blocked[1].domain: 'http://y.com' is not a 'hostname'")


def test_package_import_is_lazy():
    """``import scrapy_walsh`` (PEP 562) loads neither Scrapy nor the adapters."""
    loaded = set(_import_in_fresh_interpreter("scrapy_walsh")["loaded"])
    assert not loaded & set(FORBIDDEN)


def test_lazy_names_resolve():
    import scrapy_walsh

    assert scrapy_walsh.Addon.__name__ == "Addon"
    assert scrapy_walsh.SPEC_VERSION.startswith("walsh-research-compliance/")
    with pytest.raises(AttributeError):
        scrapy_walsh.NoSuchName  # noqa: B018


def test_every_denial_is_exported_from_the_package():
    """An errback imports every denial from ``scrapy_walsh``, never from a middleware module."""
    import scrapy_walsh
    from scrapy_walsh.exceptions import DENIALS, WalshIgnoreRequest

    assert {cls.__name__ for cls in DENIALS} | {"WalshIgnoreRequest"} <= set(scrapy_walsh.__all__)
    for cls in DENIALS:
        assert getattr(scrapy_walsh, cls.__name__) is cls
        assert issubclass(cls, WalshIgnoreRequest)
    subclasses = set()
    pending = [WalshIgnoreRequest]
    while pending:
        for sub in pending.pop().__subclasses__():
            subclasses.add(sub)
            pending.append(sub)
    import scrapy_walsh.addon  # noqa: F401 - loads every middleware, so every subclass is defined

    assert {c for c in subclasses if c.__module__.startswith("scrapy_walsh")} <= set(DENIALS)


def test_every_request_the_package_drops_is_a_documented_exception_of_its_own():
    """No plain ``IgnoreRequest`` is raised by the package: each drop is a ``WalshDropped``
    subclass listed in the exceptions reference page and importable from ``scrapy_walsh``."""
    import ast
    from pathlib import Path

    import scrapy_walsh
    import scrapy_walsh.addon  # noqa: F401 - loads every middleware, so every subclass is defined
    import scrapy_walsh.middlewares.robotstxt  # noqa: F401 - the drop-in, outside the add-on
    from scrapy_walsh.exceptions import DENIALS, NOT_SENT, WalshDropped, WalshIgnoreRequest

    package = Path(scrapy_walsh.__file__).parent
    plain = [
        f"{path.relative_to(package)}:{node.lineno}"
        for path in sorted(package.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "IgnoreRequest"
    ]
    assert plain == []
    subclasses, pending = set(), [WalshDropped]
    while pending:
        for sub in pending.pop().__subclasses__():
            subclasses.add(sub)
            pending.append(sub)
    documented = {*DENIALS, *NOT_SENT, WalshIgnoreRequest}
    assert {c for c in subclasses if c.__module__.startswith("scrapy_walsh")} <= documented
    assert {cls.__name__ for cls in documented} | {"WalshDropped"} <= set(scrapy_walsh.__all__)


def test_vocabulary_is_defined_once():
    """No module re-types a meta key as a literal string, nor a store namespace in a store call."""
    import ast
    from pathlib import Path

    from scrapy_walsh.policy.vocabulary import Meta

    root = Path(scrapy_walsh.__file__).parent
    meta_keys = {m.value for m in Meta if m is not Meta.WALSH}
    store_ops = {"get", "set", "delete", "items", "get_many", "claim", "reserve", "advance"}
    offenders = []
    for path in root.rglob("*.py"):
        if path.name == "vocabulary.py":
            continue
        tree = ast.parse(path.read_text())
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in meta_keys and id(node) not in docstrings:
                offenders.append(f"{path.relative_to(root)}:{node.lineno}: {node.value!r}")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in store_ops
                and isinstance(node.func.value, ast.Attribute | ast.Name)
                and "store" in ast.unparse(node.func.value)
                and node.args
                and isinstance(node.args[0], ast.Constant | ast.JoinedStr)
            ):
                offenders.append(f"{path.relative_to(root)}:{node.lineno}: a namespace typed as a string")
    assert not offenders, offenders


# What may import what, read from the source with ``ast`` (every import, also inside functions and
# ``TYPE_CHECKING`` blocks, which the fresh-interpreter probe above can't see): the policy core imports
# the standard library, its own package, and these third-party libraries only. Never an adapter.
POLICY_THIRD_PARTY = frozenset(
    {
        "w3lib",
        "idna",
        "markdown_it",
        "lxml",
        "jsonschema",
        "jsonschema_specifications",  # jsonschema's bundled meta-schemas
        "referencing",  # jsonschema's $ref resolution
        "protego",
        "http_sf",  # RFC 9651 Structured Fields: usage-preference and RateLimit headers
    }
)
POLICY_PACKAGE = "scrapy_walsh.policy"


def _imported_modules(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """Every module ``source`` imports, as absolute dotted names, with its line number."""
    import ast

    found = []
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if not node.level:
                found.append((node.lineno, node.module or ""))
                continue
            base = package.split(".")
            base = base[: len(base) - (node.level - 1)]
            if node.module:
                found.append((node.lineno, ".".join([*base, node.module])))
            else:  # ``from .. import name``: each name may be a module of its own
                found += [(node.lineno, ".".join([*base, alias.name])) for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and ast.unparse(node.func) in ("importlib.import_module", "import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def _import_rule_offences(source: str, module: str, is_package: bool = False) -> list[str]:
    offences = []
    for lineno, target in _imported_modules(source, module, is_package):
        top = target.split(".")[0]
        if target == POLICY_PACKAGE or target.startswith(POLICY_PACKAGE + "."):
            continue
        if top == "scrapy_walsh":
            offences.append(f"{module}:{lineno}: imports {target}, outside the policy core (an adapter)")
        elif top not in sys.stdlib_module_names and top not in POLICY_THIRD_PARTY and top != "__future__":
            offences.append(f"{module}:{lineno}: imports {target}, a third-party library not allowed in the core")
    return offences


def _policy_sources():
    from pathlib import Path

    root = Path(scrapy_walsh.policy.__file__).parent
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        module = ".".join((POLICY_PACKAGE, *(parts[:-1] if is_package else parts)))
        yield path, module, is_package


def test_policy_core_imports_only_stdlib_itself_and_the_allowed_libraries():
    sources = list(_policy_sources())
    assert len(sources) >= len(POLICY_MODULES), "the walk missed policy modules"
    offences = [o for path, module, pkg in sources for o in _import_rule_offences(path.read_text(), module, pkg)]
    assert not offences, "\n".join(offences)


@pytest.mark.parametrize(
    ("source", "offending"),
    [
        ("import scrapy", "scrapy"),
        ("from twisted.internet import reactor", "twisted"),
        ("def f():\n    import redis", "redis"),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from scrapy import Request", "scrapy"),
        ("from ..middlewares.robots_gate import RobotsMiddleware", "scrapy_walsh.middlewares"),
        ("from .. import internal", "scrapy_walsh.internal"),
        ("from ...scrapy_walsh import store", "scrapy_walsh"),
        ("from scrapy_walsh.store import StateStore", "scrapy_walsh.store"),
        ("import importlib\nimportlib.import_module('scrapy_walsh.addon')", "scrapy_walsh.addon"),
        ("import requests", "requests"),
    ],
)
def test_the_import_rule_catches_each_kind_of_offence(source, offending):
    """The checker itself: each way a core module could reach outside is reported."""
    offences = _import_rule_offences(source, "scrapy_walsh.policy.example")
    assert len(offences) == 1 and f"imports {offending}" in offences[0], offences


def test_the_import_rule_allows_the_core_its_own_package_and_the_stdlib():
    source = (
        "from __future__ import annotations\nimport json, re\nfrom urllib.parse import urlsplit\n"
        "from .vocabulary import Verdict\nfrom . import pacing\nfrom scrapy_walsh.policy.addresses import refusal\n"
        "import idna\nfrom protego import Protego\nfrom lxml import etree\n"
    )
    assert _import_rule_offences(source, "scrapy_walsh.policy.example") == []
    assert _import_rule_offences("from .robots import parse", "scrapy_walsh.policy", is_package=True) == []
    assert _import_rule_offences("from .. import robots", "scrapy_walsh.policy.sub.mod") == []


#: Private names of other libraries the package still imports, each listed with the test that
#: pins it in docs/architecture.md ("Private APIs still in use"). Removing one is always fine.
#: None left: Protego's names went with our own matcher, Scrapy's _path_safe with the
#: queue's own directory names. A new one must be listed here and in docs/architecture.md.
KNOWN_PRIVATE_IMPORTS: frozenset[str] = frozenset()


def _private_imports(source: str) -> set[str]:
    """``module.name`` for each imported name of another library with a private part."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.split(".")[0] in ("scrapy_walsh", "__future__"):
                continue
            for alias in node.names:
                dotted = f"{node.module}.{alias.name}"
                if any(part.startswith("_") and not part.startswith("__") for part in dotted.split(".")):
                    found.add(dotted)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if any(p.startswith("_") for p in a.name.split(".")[1:])}
    return found


def test_every_private_import_of_another_library_is_known_and_documented():
    from pathlib import Path

    root = Path(scrapy_walsh.__file__).parent
    found = {name for path in root.rglob("*.py") for name in _private_imports(path.read_text())}
    assert found <= KNOWN_PRIVATE_IMPORTS, f"new private imports: {sorted(found - KNOWN_PRIVATE_IMPORTS)}"
    page = (REPO / "docs" / "architecture.md").read_text()
    undocumented = [name for name in found if f"`{name.rsplit('.', 1)[1]}`" not in page]
    assert not undocumented, f"not listed in docs/architecture.md: {undocumented}"


def test_the_private_import_scan_sees_each_form():
    assert _private_imports("from scrapy.pqueues import _path_safe, DownloaderAwarePriorityQueue") == {
        "scrapy.pqueues._path_safe"
    }
    assert _private_imports("from protego._ruleset import RuleSet") == {"protego._ruleset.RuleSet"}
    assert _private_imports("import scrapy.utils._compression") == {"scrapy.utils._compression"}
    assert _private_imports("from scrapy import __version__\nfrom .policy import _x\nimport _thread") == set()


# --- No import circle: the whole package's graph, imports inside functions included ------------
# An import inside a function runs when the function does: it closes a circle as surely as one at
# the top, only later. Imports under ``if TYPE_CHECKING:`` never run, so they are left out.


def _runs(node: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement under ``node`` that runs at some point (not under TYPE_CHECKING)."""
    found: list[ast.Import | ast.ImportFrom] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and ast.unparse(child.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            found += [imp for stmt in child.orelse for imp in _runs_stmt(stmt)]
        else:
            found += _runs_stmt(child)
    return found


def _runs_stmt(node: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    return [node] if isinstance(node, ast.Import | ast.ImportFrom) else _runs(node)


def import_graph(sources: dict[str, tuple[str, bool]], top: str = "scrapy_walsh") -> dict[str, dict[str, int]]:
    """``module -> {module it imports: line}`` over ``sources`` (``module -> (source, is_package)``).

    ``from a import b`` imports ``a.b`` when that is a module, else ``a``; importing ``a.b.c``
    also runs the ``__init__`` of ``a.b`` (unless the importer is inside ``a.b`` already)."""

    def resolve(name: str) -> str | None:
        while name and name not in sources:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, dict[str, int]] = {}
    for module, (source, is_package) in sources.items():
        package = module if is_package else module.rpartition(".")[0]
        edges = graph.setdefault(module, {})
        for node in _runs(ast.parse(source)):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in sources else base for a in node.names]
            for target in targets:
                if target.split(".")[0] != top or (found := resolve(target)) is None:
                    continue
                parts = found.split(".")
                for end in range(2, len(parts) + 1):  # the packages on the way run first
                    name = ".".join(parts[:end])
                    if name in sources and name != module and not module.startswith(name + "."):
                        edges.setdefault(name, node.lineno)
    return graph


def find_circle(graph: dict[str, dict[str, int]]) -> list[str] | None:
    """One import circle (``a -> b -> ... -> a``), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in graph.get(module, {}):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (circle := visit(target)):
                return circle
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state and (circle := visit(module)):
            return circle
    return None


def _package_sources() -> dict[str, tuple[str, bool]]:
    from pathlib import Path

    root = Path(scrapy_walsh.__file__).parent
    sources = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        sources[".".join(parts[:-1] if is_package else parts)] = (path.read_text(), is_package)
    return sources


def test_the_package_has_no_import_circle():
    graph = import_graph(_package_sources())
    assert len(graph) > 100 and sum(map(len, graph.values())) > 300, "the graph missed modules or imports"
    circle = find_circle(graph)
    where = [f"{a} (line {graph[a][b]})" for a, b in zip(circle, circle[1:])] if circle else []
    assert circle is None, "import circle:\n  " + "\n  -> ".join([*where, circle[-1]] if circle else [])


@pytest.mark.parametrize(
    ("b_source", "circle"),
    [
        ("from . import a", ["p.a", "p.b", "p.a"]),
        ("def f():\n    from .a import X", ["p.a", "p.b", "p.a"]),  # at function level: still a circle
        ("import p.a", ["p.a", "p.b", "p.a"]),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import X", None),  # never runs
        ("if TYPE_CHECKING:\n    pass\nelse:\n    from .a import X", ["p.a", "p.b", "p.a"]),
        ("from .c import Y", None),
    ],
)
def test_the_circle_finder_sees_each_kind_of_import(b_source, circle):
    """The checker itself: ``p.a`` imports ``p.b`` at the top; ``p.b`` imports back in each way."""
    sources = {"p": ("", True), "p.a": ("from .b import f", False), "p.b": (b_source, False), "p.c": ("", False)}
    assert find_circle(import_graph(sources, top="p")) == circle


def test_a_package_init_that_imports_its_importer_is_a_circle():
    """``import p.sub.m`` runs ``p/sub/__init__.py`` first: its imports count."""
    sources = {
        "p": ("", True),
        "p.low": ("from .sub.m import X", False),
        "p.sub": ("from .guard import G", True),
        "p.sub.m": ("", False),
        "p.sub.guard": ("from ..low import Y", False),
    }
    assert find_circle(import_graph(sources, top="p")) == ["p.low", "p.sub", "p.sub.guard", "p.low"]


# --- The layers: each module or folder of the package imports only its own layer and those below ----
# docs/architecture.md ("The layers") lists them from the bottom up, one numbered line per layer,
# each module (``config``) or folder (``store/``) named in backticks; that list is read here, so the
# doc and the code cannot drift. A module of a folder counts as the folder.

LAYERS_HEADING = "## The layers"


def documented_layers(page: str) -> list[list[str]]:
    """The numbered list under "The layers" in docs/architecture.md: one list of units per layer."""
    import re

    section = page.split(LAYERS_HEADING, 1)[1].split("\n## ", 1)[0]
    items: list[str] = []
    for line in section.splitlines():
        if re.match(r"\d+\. ", line):
            items.append(line)
        elif items and line.startswith("   ") and line.strip():
            items[-1] += line  # the item goes on, indented
        elif items:
            items.append("")  # anything else ends the item
    return [[n.rstrip("/").removesuffix(".py") for n in re.findall(r"`([\w./]+)`", item)] for item in items if item]


#: Folders that group modules by their role on the request path, each module at its own layer:
#: ``scrapy_walsh.sending.checkpoint`` is the unit ``sending/checkpoint``.
ROLE_FOLDERS = ("sending", "identity", "outputs", "discovery")


def _unit(module: str) -> str:
    """``scrapy_walsh.store.ledger`` -> ``store``; ``scrapy_walsh.config`` -> ``config``;
    ``scrapy_walsh.sending.checkpoint`` -> ``sending/checkpoint``; a role folder itself -> ``sending/``."""
    parts = module.split(".")
    if parts[1] in ROLE_FOLDERS:
        return "/".join(parts[1:3]) if len(parts) > 2 else parts[1] + "/"
    return parts[1]


def upward_imports(graph: dict[str, dict[str, int]], layers: list[list[str]]) -> list[str]:
    """Every import of a unit in a higher layer than the importer's (``module:line -> module``)."""
    rank = {unit: at for at, units in enumerate(layers) for unit in units}
    found = []
    for module, edges in graph.items():
        if module.count(".") == 0:
            continue  # the package itself: lazy names only (PEP 562), it imports nothing at load
        for target, line in edges.items():
            if _unit(module).endswith("/"):
                continue  # a role folder's __init__: a docstring, no imports (tested below)
            mine = rank[_unit(module)]
            theirs = rank[_unit(target)] if target.count(".") and not _unit(target).endswith("/") else -1
            if theirs > mine:
                found.append(f"{module}:{line} -> {target} (layer {theirs + 1} over {mine + 1})")
    return found


def unit_graph(graph: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """The import graph between units (modules and folders): a circle here is one between layers."""
    units: dict[str, dict[str, int]] = {}
    for module, edges in graph.items():
        if module.count(".") == 0:
            continue
        if _unit(module).endswith("/"):
            continue
        mine = units.setdefault(_unit(module), {})
        for target, line in edges.items():
            if target.count(".") and _unit(target) != _unit(module) and not _unit(target).endswith("/"):
                mine.setdefault(_unit(target), line)
    return units


def _layers_page() -> str:
    return (REPO / "docs" / "architecture.md").read_text()


def test_every_module_and_folder_is_in_one_documented_layer():
    layers = documented_layers(_layers_page())
    named = [unit for layer in layers for unit in layer]
    units = set(unit_graph(import_graph(_package_sources())))
    assert len(layers) >= 10 and len(named) == len(set(named)), layers
    assert set(named) == units, f"not in a layer: {sorted(units - set(named))}; gone: {sorted(set(named) - units)}"


def test_no_import_reaches_up_a_layer_nor_closes_a_circle_between_units():
    """Imports inside functions count (they run, only later); those under TYPE_CHECKING don't."""
    graph = import_graph(_package_sources())
    assert upward_imports(graph, documented_layers(_layers_page())) == []
    assert find_circle(unit_graph(graph)) is None


def test_an_upward_import_is_seen_even_inside_a_function():
    """The checker itself: ``p.low`` importing ``p.high`` from a function is one upward import."""
    sources = {
        "p": ("", True),
        "p.low": ("def f():\n    from .high import X", False),
        "p.high": ("from .low import f", False),
        "p.sub": ("", True),
        "p.sub.m": ("from ..low import f", False),
    }
    graph = import_graph(sources, top="p")
    assert upward_imports(graph, [["low", "sub"], ["high"]]) == ["p.low:2 -> p.high (layer 2 over 1)"]
    assert upward_imports(graph, [["low"], ["sub", "high"]]) == ["p.low:2 -> p.high (layer 2 over 1)"]
    assert find_circle(unit_graph(graph)) == ["high", "low", "high"]


def test_the_documented_layers_are_read_from_the_numbered_list():
    page = "# A\n\n## The layers\n\ntext `x`\n\n1. `policy/`.\n2. `config`, then `store/` and\n   `faults.py`.\n"
    page += "\n`not` this\n\n## Next\n3. `no`\n"
    assert documented_layers(page) == [["policy"], ["config", "store", "faults"]]


def test_a_role_folder_only_groups_its_modules():
    """``sending/``, ``identity/``, ``outputs/`` and ``discovery/`` name a role on the request path; their
    ``__init__`` holds a docstring and imports nothing, so importing one module runs no other."""
    sources = _package_sources()
    for folder in ROLE_FOLDERS:
        source, is_package = sources[f"scrapy_walsh.{folder}"]
        assert is_package and not _runs(ast.parse(source)), folder
