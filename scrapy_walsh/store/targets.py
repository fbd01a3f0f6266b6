"""A target's record, read under its canonical key or the key an earlier version wrote.

A record is written under the canonical key only; the key an earlier version wrote
(:func:`scrapy_walsh.policy.canonical.record_keys`) is read too, for a record older than the
upgrade (namespace ``admission``, key ``keys-v2``). docs/state-store.md says why.
"""

from __future__ import annotations

import time
from typing import Any

from scrapy_walsh.policy.canonical import record_keys
from scrapy_walsh.policy.vocabulary import Namespace
from scrapy_walsh.process import PROCESS
from scrapy_walsh.store.base import StateStore

#: The key (namespace ``admission``) that holds when this version first read the store.
UPGRADED = "keys-v2"


def upgraded_at(store: StateStore) -> float:
    """When the first process of this version read ``store`` (records before it used old keys); read
    once per store object, kept in the process's state."""
    found = PROCESS.upgraded_at.get(store)
    if found is None:
        store.claim(Namespace.ADMISSION, UPGRADED, time.time())
        value = store.get(Namespace.ADMISSION, UPGRADED)
        found = PROCESS.upgraded_at[store] = float(value) if isinstance(value, (int, float)) else 0.0
    return found


def legacy_record(store: StateStore, namespace: str, url: str) -> Any:
    """The time an earlier version recorded for ``url`` under its old key; None when the two
    keys are one (no read at all: most URLs), nothing is stored there, or the record there is
    newer than the upgrade (another URI's own record)."""
    keys = record_keys(url)
    if len(keys) == 1:
        return None
    value = store.get(namespace, keys[1])
    if isinstance(value, (int, float)) and value < upgraded_at(store):
        return value
    return None


def read(store: StateStore, namespace: str, url: str, default: Any = None) -> Any:
    """The record of ``url``'s target in ``namespace``: its canonical key, else an earlier version's."""
    found = store.get(namespace, record_keys(url)[0])
    if found is None:
        found = legacy_record(store, namespace, url)
    return default if found is None else found
