"""The package leaves the process alone: no exit handler, no ``os._exit``, no ``sys.excepthook``,
no filter on another library's logger, no Twisted log beginning, no event-loop exception handler.

A scan of the package's source with ``ast`` (a refused crawl's exit status is Scrapy's
``bootstrap_failed``: tests/e2e/test_good_citizen.py runs it).
"""

from __future__ import annotations

import ast
from pathlib import Path

import scrapy_walsh

PACKAGE = Path(scrapy_walsh.__file__).parent

#: dotted calls that take over the process
FORBIDDEN_CALLS = frozenset({"os._exit", "atexit.register", "globalLogBeginner.beginLoggingTo"})
#: methods that take over a loop or hook, whatever they are called on
FORBIDDEN_METHODS = frozenset({"set_exception_handler", "beginLoggingTo"})


def dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return "?"


def _own_logger(receiver: ast.AST) -> bool:
    """``logging.getLogger("scrapy_walsh...")`` or ``getLogger(__name__)``: a logger of the package."""
    if not (isinstance(receiver, ast.Call) and dotted(receiver.func).endswith("getLogger") and receiver.args):
        return False
    name = receiver.args[0]
    if isinstance(name, ast.Name) and name.id == "__name__":
        return True
    return isinstance(name, ast.Constant) and str(name.value).startswith("scrapy_walsh")


def takeovers(source: str, where: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if name in FORBIDDEN_CALLS or method in FORBIDDEN_METHODS:
                found.append(f"{where}:{node.lineno}: {name}")
            if method == "addFilter" and not _own_logger(node.func.value):  # type: ignore[attr-defined]
                found.append(f"{where}:{node.lineno}: {name}")
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if dotted(target) in {"sys.excepthook", "sys.unraisablehook", "threading.excepthook"}:
                found.append(f"{where}:{node.lineno}: {dotted(target)} =")
    return found


def test_the_scan_finds_each_takeover():
    sample = """
import atexit, os, sys, logging
atexit.register(print)
os._exit(1)
sys.excepthook = print
logging.getLogger("twisted").addFilter(f)
logging.getLogger("scrapy_walsh.x").addFilter(f)
logging.getLogger(__name__).addFilter(f)
loop.set_exception_handler(h)
"""
    assert sorted(line.split(": ", 1)[1] for line in takeovers(sample, "x")) == [
        "?.addFilter",
        "atexit.register",
        "loop.set_exception_handler",
        "os._exit",
        "sys.excepthook =",
    ]


def test_the_package_takes_over_nothing_of_the_process():
    found = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        for hit in takeovers(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE)))
    ]
    assert found == []
