"""jsonschema's format checkers, without paying for the one the blocklist never uses.

``rfc3987_syntax`` (the ``iri`` checkers) builds a Lark grammar on import, about 1.6 s before
any request may leave (R3: the blocklist comes first). :func:`prepare` puts a stand-in in its
place that loads the real module on first use. docs/requirements/r3-blocklist.md says why.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any

NAME = "rfc3987_syntax"


def _real() -> Any:
    if isinstance(sys.modules.get(NAME), _Deferred):
        del sys.modules[NAME]
    return importlib.import_module(NAME)


def _is_valid_syntax(*args: Any, **kwargs: Any) -> Any:
    return _real().is_valid_syntax(*args, **kwargs)


class _Deferred(types.ModuleType):
    """``rfc3987_syntax`` until something needs it."""

    is_valid_syntax = staticmethod(_is_valid_syntax)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the import system probing (__path__, __file__ ...), not a use
            raise AttributeError(name)
        return getattr(_real(), name)


def prepare() -> None:
    """Call before importing jsonschema; a no-op once it is imported, or without the module."""
    if "jsonschema" in sys.modules or NAME in sys.modules:
        return
    try:
        found = importlib.util.find_spec(NAME)
    except (ImportError, ValueError):
        return
    if found is not None:
        sys.modules[NAME] = _Deferred(NAME)
