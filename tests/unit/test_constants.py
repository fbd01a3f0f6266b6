"""A module-level table is immutable: a tuple, a frozenset or a ``MappingProxyType``.

What one crawl, command or test changes in a shared dict or list would be seen by every
later one in the process. The only module-level mutable values left are the process's
state (the modules listed below) and a few bounded memos.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest
from scrapy.settings import Settings

import scrapy_walsh

PACKAGE = Path(scrapy_walsh.__file__).parent
EXAMPLES = PACKAGE.parent / "example_project"
#: Modules whose module-level values are the process's state, by path in the package.
STATE_MODULES = frozenset(
    {
        "admission.py",
        "checkpoint.py",
        "context.py",
        "exit_status.py",
        "generations.py",
        "journal/adapter.py",
        "protocol_mixins.py",
        "request_meta.py",
        "send_gate.py",
        "shared_pacer.py",
        "store/leases.py",
        "store/targets.py",
        "store/waiting.py",
    }
)
#: Not converted yet: it was being changed elsewhere (its tables are constants all the same).
NOT_YET = frozenset({"commands/plan.py"})
#: Memos filled at run time, each bounded: (module, name).
MEMOS = frozenset(
    {
        ("policy/blocklist/schema.py", "_PLANS"),  # compiled schemas, at most 8
        ("policy/robots.py", "_KINDS"),  # record names as written, at most _MAX_KINDS
        ("policy/robots.py", "_NOT_RECORDS"),
        ("policy/robots.py", "_WANTED"),
    }
)
MUTABLE_LITERALS = (ast.Dict, ast.Set, ast.List, ast.DictComp, ast.SetComp, ast.ListComp)
MUTABLE_CALLS = frozenset({"dict", "set", "list", "defaultdict", "OrderedDict", "Counter", "deque", "bytearray"})


def _mutable(value: ast.expr) -> bool:
    if isinstance(value, MUTABLE_LITERALS):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        return (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) in MUTABLE_CALLS
    return False


def _holders(path: Path) -> list[tuple[str, int]]:
    """The module-level names of ``path`` bound to a mutable container, with their lines."""
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if _mutable(value):
            found += [(ast.unparse(target), node.lineno) for target in targets]
    return found


def test_module_level_tables_are_immutable():
    mutable = [
        f"scrapy_walsh/{module}:{line} {name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if (module := path.relative_to(PACKAGE).as_posix()) not in STATE_MODULES | NOT_YET
        for name, line in _holders(path)
        if (module, name) not in MEMOS
    ]
    assert not mutable, "use a tuple, a frozenset or types.MappingProxyType:\n" + "\n".join(mutable)


def test_the_check_sees_a_mutable_table(tmp_path):
    """The scan finds each form a table took before (so the test above can fail)."""
    module = tmp_path / "m.py"
    module.write_text(
        "A = {'k': 1}\nB: list[int] = [1]\nC = {1}\nD = {k: 1 for k in 'ab'}\nE = list(range(3))\n"
        "F = (1,)\nG = frozenset({1})\nH = MappingProxyType({'k': 1})\n__all__ = ['A']\n"
    )
    assert [name for name, _ in _holders(module)] == ["A", "B", "C", "D", "E", "__all__"]


@pytest.mark.parametrize("module", sorted(EXAMPLES.rglob("settings.py")), ids=lambda p: p.parent.name)
def test_the_example_settings_copy(module):
    """Scrapy deep-copies a project's settings for each crawler, and every upper-case name of
    the settings module is a setting: a mapping proxy bound to one fails the copy."""
    spec = importlib.util.spec_from_file_location(f"_example_{module.parent.name}_settings", module)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    settings = Settings()
    settings.setmodule(loaded)
    assert settings.copy().getlist("WALSH_ALLOW_PRIVATE_ADDRESSES")
