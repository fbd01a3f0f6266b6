"""The two builds of :mod:`scrapy_walsh.policy.robots`: the one imported (compiled by mypyc
when ``pip install`` could, see setup.py) and its pure Python source, loaded on its own.

Shared by ``tests/unit/test_robots_compiled.py`` (both give the same results) and
``bench/robots_oracle.py`` (both are timed against Google's parser).
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import scrapy_walsh.policy.robots as imported

SOURCE = Path(imported.__file__).with_name("robots.py")
PURE_NAME = "scrapy_walsh.policy._robots_pure_python"


def is_compiled(module: ModuleType = imported) -> bool:
    """True when the module was loaded from an extension (mypyc), not from its source."""
    return not str(module.__file__).endswith(".py")


@cache
def pure_python() -> ModuleType:
    """``robots.py`` executed as Python, under a name of its own (its imports are the package's)."""
    spec = importlib.util.spec_from_file_location(PURE_NAME, SOURCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[PURE_NAME] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def stale_extension() -> Path | None:
    """The compiled module, when ``robots.py`` was changed after it was built: the suite would
    test the old code (``make install`` builds it again)."""
    if not is_compiled():
        return None
    extension = Path(str(imported.__file__))
    return extension if SOURCE.stat().st_mtime > extension.stat().st_mtime else None
