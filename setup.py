"""The optional accelerator: :mod:`scrapy_walsh.policy.robots` compiled by mypyc, on request.

``make dist`` and ``pip install scrapy-walsh`` give a pure Python ``py3-none-any`` wheel that
installs on every CPython the package supports. ``WALSH_MYPYC=1`` at build time compiles
``robots.py`` with mypyc (part of mypy) for the building Python and platform only: the same
source, about 1.4x faster at parsing and matching robots.txt (docs/install.md has the figures).
The build then needs mypy (walsh_build.py adds it to the build requirements) and a C compiler; when compiling
fails, the pure module is installed and the build says so. ``make install`` (the dev venv)
builds it compiled, so the suite tests both (``tests/unit/test_robots_compiled.py``).
"""

from __future__ import annotations

import os

from setuptools import setup

COMPILED = ["scrapy_walsh/policy/robots.py"]


def wanted() -> bool:
    # WALSH_MYPYC_PROBE: the build backend only asks what the build requires (walsh_build.py)
    return os.environ.get("WALSH_MYPYC", "0") == "1" and "WALSH_MYPYC_PROBE" not in os.environ


def ext_modules() -> list:
    if not wanted():
        return []
    from mypyc.build import mypycify  # WALSH_MYPYC=1 without mypy installed: an error, not a quiet pure build

    extensions = mypycify(COMPILED, opt_level="3")
    for extension in extensions:
        extension.optional = True  # no C compiler: the pure Python module is used
    return extensions


setup(ext_modules=ext_modules())
