"""The build backend: setuptools', plus mypy in the build requirements when ``WALSH_MYPYC=1``.

The wheel is pure Python unless the builder asks for the compiled robots.txt parser (setup.py);
only then does the build need mypyc, so only then is it fetched into an isolated build.
"""

from __future__ import annotations

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - every hook not defined here is setuptools'

#: the mypy whose mypyc compiles the module (the version the dev venv type-checks with)
MYPYC = "mypy~=2.4"


def _compiler() -> list[str]:
    return [MYPYC] if os.environ.get("WALSH_MYPYC", "0") == "1" else []


def _requires(hook, config_settings):  # noqa: ANN001, ANN202
    """setuptools runs setup.py to list its requirements, before mypy is installed: setup.py is
    told (``WALSH_MYPYC_PROBE``) to list no extension then, so that asking does not need mypyc."""
    os.environ["WALSH_MYPYC_PROBE"] = "1"
    try:
        return hook(config_settings) + _compiler()
    finally:
        del os.environ["WALSH_MYPYC_PROBE"]


def get_requires_for_build_wheel(config_settings=None):  # noqa: ANN001, ANN201 - PEP 517's signature
    return _requires(_setuptools.get_requires_for_build_wheel, config_settings)


def get_requires_for_build_editable(config_settings=None):  # noqa: ANN001, ANN201
    return _requires(_setuptools.get_requires_for_build_editable, config_settings)
