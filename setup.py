"""The one compiled module: :mod:`scrapy_walsh.policy.robots`, built with mypyc when it can be.

A robots.txt parse plus its first verdict must stay within 3x the time of Google's C++ parser.
Compiled by mypyc (part of mypy, as black and mypy itself ship), the module reads a line's
characters in place and is within 3x in every size bucket (bench/README.md); as pure CPython
the same source, which then takes Python's string methods, is about 1.4x slower than that and
over 3x, with the same results (``tests/unit/test_robots_compiled.py`` compares the two).
Everything else in the package is pure Python.

The build falls back to pure Python, and says so, when mypyc or a C compiler is missing
(``optional``), or when ``WALSH_MYPYC=0`` is set: the package works the same either way.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup

COMPILED = ["scrapy_walsh/policy/robots.py"]


def ext_modules() -> list:
    if os.environ.get("WALSH_MYPYC", "1") == "0":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("scrapy-walsh: mypyc is not installed; building pure Python", file=sys.stderr)
        return []
    extensions = mypycify(COMPILED, opt_level="3")
    for extension in extensions:
        extension.optional = True  # no C compiler: the pure Python module is used
    return extensions


setup(ext_modules=ext_modules())
