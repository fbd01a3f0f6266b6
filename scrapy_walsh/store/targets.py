"""A target's record, read under its canonical key or the key an earlier version wrote.

:func:`scrapy_walsh.policy.canonical.record_keys` gives both; a record is written under the
canonical key only, and read both ways (one read either way), so a store written before
issue 32 neither re-fetches nor skips a target after the upgrade (docs/state-store.md).
"""

from __future__ import annotations

from typing import Any

from ..policy.canonical import record_keys
from .base import StateStore


def read(store: StateStore, namespace: str, url: str, default: Any = None) -> Any:
    """The record of ``url``'s target in ``namespace`` (canonical key first), else ``default``."""
    keys = record_keys(url)
    if len(keys) == 1:
        return store.get(namespace, keys[0], default)
    found = store.get_many(namespace, keys)
    return next((found[key] for key in keys if key in found), default)


def legacy_record(store: StateStore, namespace: str, url: str) -> Any:
    """The record an earlier version wrote for ``url`` under its old key; None when the two
    keys are one (no read at all: most URLs) or nothing is stored there."""
    keys = record_keys(url)
    return store.get(namespace, keys[1]) if len(keys) > 1 else None
