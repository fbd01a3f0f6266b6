"""Every distribution the package imports is declared, with a floor, in pyproject.toml.

A user installs the wheel and gets what ``[project] dependencies`` names, nothing else: a module
imported by ``scrapy_walsh`` but only brought in by Scrapy works until Scrapy stops needing it.
Each top-level import of a file under ``scrapy_walsh/`` is mapped to the distribution that
provides it (the installed ones' ``top_level``), and that distribution must be named.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
from pathlib import Path

from tests.helpers import PACKAGE, pyproject

#: Imported under a version check, from the standard library of a later Python (3.14).
LATER_STDLIB = {"compression"}
#: Imported only when an optional feature is used, and declared in that feature's extra.
OPTIONAL = {"redis": "redis"}
#: Not distributions: the repository's own demo site (only ``check --live`` imports it, from a checkout).
NOT_DISTRIBUTIONS = {"scrapy_walsh", "demo_site"}


def _name(requirement: str) -> str:
    """PEP 503 normalised name of a requirement string."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert name, requirement
    return re.sub(r"[-_.]+", "-", name.group(0)).lower()


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:``: read by type checkers, never run."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            hidden |= {id(inner) for child in node.body for inner in ast.walk(child)}
    return hidden


def imported_top_levels(root: Path = PACKAGE) -> dict[str, str]:
    """Top-level module -> the first file (relative) that imports it, absolute imports that run only."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        hidden = _type_checking_only(tree)
        for node in ast.walk(tree):
            if id(node) in hidden:
                continue
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], path.relative_to(root.parent).as_posix())
    return found


def third_party(found: dict[str, str]) -> dict[str, str]:
    skip = set(sys.stdlib_module_names) | LATER_STDLIB | NOT_DISTRIBUTIONS | {"__future__"}
    return {name: where for name, where in found.items() if name not in skip}


def providers() -> dict[str, set[str]]:
    """Top-level module -> the installed distributions that provide it: ``top_level.txt``, else
    the files the distribution installed (Python 3.10 reads only the former, which not every
    build backend writes)."""
    found: dict[str, set[str]] = {}
    for dist in importlib.metadata.distributions():
        tops = set((dist.read_text("top_level.txt") or "").split())
        tops |= {
            Path(f.parts[0]).name.split(".")[0]
            for f in dist.files or ()
            if f.parts and not f.parts[0].endswith((".dist-info", ".data", ".pth")) and f.parts[0] != ".."
        }
        for top in tops:
            found.setdefault(top, set()).add(_name(dist.metadata["Name"]))
    return found


def test_every_third_party_import_is_a_declared_dependency():
    project = pyproject()["project"]
    declared = {_name(r) for r in project["dependencies"]}
    extras = {extra: {_name(r) for r in reqs} for extra, reqs in project["optional-dependencies"].items()}
    provided = providers()
    missing = []
    for module, where in sorted(third_party(imported_top_levels()).items()):
        dists = provided.get(module, set())
        assert dists, f"{module} (imported by {where}) is not installed: which distribution provides it?"
        if module in OPTIONAL:
            assert dists & extras[OPTIONAL[module]], f"{module}: not in the {OPTIONAL[module]!r} extra"
        elif not dists & declared:
            missing.append(f"{module} ({where}) from {sorted(dists)}")
    assert not missing, f"imported but not in [project] dependencies: {missing}"


def test_every_dependency_has_a_floor_and_scrapy_a_ceiling():
    requirements = pyproject()["project"]["dependencies"]
    assert all(">=" in r or "~=" in r for r in requirements), [r for r in requirements if ">=" not in r]
    scrapy = next(r for r in requirements if _name(r) == "scrapy")
    assert "<3" in scrapy.replace(" ", ""), scrapy


def test_the_scan_sees_imports_inside_functions(tmp_path):
    (tmp_path / "pkg").mkdir()
    source = "import os\nif TYPE_CHECKING:\n    import typed\ndef f():\n    from lxml.html import x\n    import a.b\n"
    (tmp_path / "pkg" / "m.py").write_text(source)
    assert third_party(imported_top_levels(tmp_path / "pkg")) == {"lxml": "pkg/m.py", "a": "pkg/m.py"}
