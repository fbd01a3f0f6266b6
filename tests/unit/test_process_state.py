"""The package keeps no process-wide mutable state at module level but the contexts' registry and
the one process object (``scrapy_walsh.process.PROCESS``): every module reaches that object, so
what several crawlers of a process share is in one place.

Read with ``ast``: a module-level assignment (``=`` or annotated) whose value is a mutable container
or a lock is a holder. A constant is a tuple, a frozenset or a ``types.MappingProxyType``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import scrapy_walsh

#: Calls that make a mutable container or a lock (by the called name, however it is imported).
MUTABLE_CALLS = frozenset(
    {
        "dict",
        "set",
        "list",
        "bytearray",
        "WeakKeyDictionary",
        "WeakValueDictionary",
        "WeakSet",
        "Counter",
        "defaultdict",
        "OrderedDict",
        "ChainMap",
        "deque",
        "DeferredLock",
        "DeferredSemaphore",
        "Lock",
        "RLock",
        "Event",
        "Condition",
        "Semaphore",
        "BoundedSemaphore",
        "count",
        # the one process object itself: made once, and listed below
        "ProcessState",
    }
)
MUTABLE_NODES = (ast.Dict, ast.Set, ast.List, ast.DictComp, ast.SetComp, ast.ListComp)

#: The only module-level holders: the contexts' registry, and the process object.
ALLOWED = frozenset({"context.py:_CONTEXTS", "process.py:PROCESS"})


def _called_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Subscript):  # weakref.WeakKeyDictionary[Crawler, X]()
        func = func.value
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def is_holder(value: ast.expr | None) -> bool:
    """``value`` makes a mutable container or a lock."""
    if isinstance(value, MUTABLE_NODES):
        return True
    return isinstance(value, ast.Call) and _called_name(value) in MUTABLE_CALLS


def holders(source: str, where: str) -> list[str]:
    """``where:name`` of each module-level assignment of ``source`` that makes a holder."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        else:
            continue
        if is_holder(value):
            names = [ast.unparse(t) for t in targets]
            found += [f"{where}:{name}" for name in names]
    return found


def package_holders(only: set[str] | None = None) -> list[str]:
    """The holders of every module of the package (or of the modules ``only`` names)."""
    root = Path(scrapy_walsh.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root).as_posix()
        if only is None or where in only:
            found += holders(path.read_text(encoding="utf-8"), where)
    return found


def test_the_package_keeps_no_module_level_state_but_the_registry_and_the_process():
    found = set(package_holders())
    assert found - ALLOWED == set(), "module-level mutable state: keep it in scrapy_walsh.process.PROCESS"
    assert found >= ALLOWED  # the allowance names what is there


@pytest.mark.parametrize(
    "source",
    [
        "X = {}",
        "X = {'a': 1}",
        "X = {1, 2}",
        "X = []",
        "X = [i for i in range(3)]",
        "X = {i: i for i in range(3)}",
        "X = {i for i in range(3)}",
        "X = dict()",
        "X = set()",
        "X = list()",
        "X: dict[str, int] = {}",
        "X: list[int] = []",
        "X = weakref.WeakKeyDictionary()",
        "X: weakref.WeakKeyDictionary[A, B] = weakref.WeakKeyDictionary()",
        "X = WeakValueDictionary()",
        "X = weakref.WeakSet()",
        "X = collections.Counter()",
        "X = defaultdict(list)",
        "X = OrderedDict()",
        "X = deque()",
        "X = DeferredLock()",
        "X = threading.Lock()",
        "X = threading.RLock()",
        "X = threading.Event()",
        "X = asyncio.Semaphore(2)",
        "X = itertools.count()",
        "X = Y = []",
    ],
)
def test_the_scan_sees_each_kind_of_holder(source):
    assert holders(source, "m.py")


@pytest.mark.parametrize(
    "source",
    [
        "X = ()",
        "X = (1, 2)",
        "X = frozenset({1, 2})",
        "X = types.MappingProxyType({'a': 1})",
        "X = MappingProxyType({})",
        "X = 'text'",
        "X = 3",
        "X: int",
        "def f():\n    x = {}\n    return x",
        "class C:\n    x: dict = {}",
        "logger = logging.getLogger(__name__)",
    ],
)
def test_the_scan_lets_constants_and_local_state_be(source):
    assert holders(source, "m.py") == []


def test_every_crawl_context_reaches_the_one_process_object():
    from scrapy.utils.test import get_crawler

    from scrapy_walsh.context import CrawlContext
    from scrapy_walsh.process import PROCESS

    one, other = CrawlContext.of(get_crawler()), CrawlContext.of(get_crawler())
    assert one is not other
    assert one.process is other.process is PROCESS
    assert one.process.in_flight is other.process.in_flight  # R4: serial per process, not per crawler
