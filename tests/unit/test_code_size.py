"""No function in the package is longer than a reader can hold: 60 lines, ``def`` to last line."""

from __future__ import annotations

import ast
from pathlib import Path

import scrapy_walsh

LIMIT = 60
PACKAGE = Path(scrapy_walsh.__file__).parent


def long_functions(root: Path = PACKAGE, allowed: frozenset[str] = frozenset()) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                span = node.end_lineno - node.lineno + 1
                if span > LIMIT and f"{name}:{node.name}" not in allowed:
                    found.append(f"{name}:{node.lineno} {node.name}: {span} lines")
    return found


def test_no_function_is_over_60_lines():
    assert long_functions() == []


def test_the_count_sees_a_long_function(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    (tmp_path / "long.py").write_text(f"async def long():\n{body}\n\n\ndef short():\n    return 1\n")
    assert long_functions(tmp_path) == [f"long.py:1 long: {LIMIT + 1} lines"]
    assert long_functions(tmp_path, allowed=frozenset({"long.py:long"})) == []
