"""The layering rule: the policy core imports no Scrapy, Twisted or redis, and loads fast.

Each module is imported in a fresh interpreter, so nothing imported earlier by the test
process can hide a dependency. Loading fast means no jsonschema at import time: its
format checkers alone cost about 2 s, so the blocklist loads it on the first validation.
"""

from __future__ import annotations

import functools
import json
import pkgutil
import subprocess
import sys

import pytest

import scrapy_walsh.policy

FORBIDDEN = ("scrapy", "twisted", "redis")
#: Loaded on first use only, never by an import of the core.
LAZY = ("jsonschema", "jsonschema_specifications", "referencing")
POLICY_MODULES = sorted(
    info.name for info in pkgutil.walk_packages(scrapy_walsh.policy.__path__, prefix="scrapy_walsh.policy.")
) + ["scrapy_walsh.policy"]

PROBE = """
import json, sys, time
start = time.perf_counter()
import {module}
elapsed = time.perf_counter() - start
print(json.dumps({{"loaded": sorted({{m.split(".")[0] for m in sys.modules}}), "seconds": elapsed}}))
"""


@functools.cache  # one fresh interpreter per module, shared by the checks below
def _import_in_fresh_interpreter(module: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module)], capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


@pytest.mark.parametrize("module", POLICY_MODULES)
def test_policy_module_imports_no_framework(module):
    loaded = set(_import_in_fresh_interpreter(module)["loaded"])
    assert not loaded & set(FORBIDDEN), f"{module} loads {sorted(loaded & set(FORBIDDEN))}"


def test_subpackages_are_walked():
    """The modules of a subpackage (the blocklist's) are checked too, not just its name."""
    assert {"scrapy_walsh.policy.blocklist", "scrapy_walsh.policy.blocklist.compile"} <= set(POLICY_MODULES)


@pytest.mark.parametrize("module", POLICY_MODULES)
def test_policy_module_imports_no_jsonschema(module):
    loaded = set(_import_in_fresh_interpreter(module)["loaded"])
    assert not loaded & set(LAZY), f"{module} loads {sorted(loaded & set(LAZY))} at import time"


def test_blocklist_loads_jsonschema_on_first_validation():
    """In a fresh interpreter, the first adoption loads jsonschema and still refuses a bad entry."""
    probe = """
import json, sys
from scrapy_walsh.policy.blocklist import CONTRACT, Blocklist, InvalidBlocklist
before = "jsonschema" in sys.modules
doc = {"contract": CONTRACT, "updated": "2026-05-23T00:00:00Z", "operator": "o", "contact": "c@x.org",
       "policy": "https://x.org/", "blocked": [{"domain": "x.com", "added": "2026-05-23", "reason": "r"}]}
adopted = len(Blocklist.from_document(doc))
doc["blocked"].append({"domain": "http://y.com", "added": "2026-05-23", "reason": "r"})
try:
    Blocklist.from_document(doc)
    refused = None
except InvalidBlocklist as exc:
    refused = str(exc)
print(json.dumps({"before": before, "after": "jsonschema" in sys.modules, "adopted": adopted, "refused": refused}))
"""
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    seen = json.loads(result.stdout)
    assert seen["before"] is False and seen["after"] is True
    assert seen["adopted"] == 1
    assert seen["refused"].startswith("blocked[1].domain: 'http://y.com' is not a 'hostname'")


def test_package_import_is_lazy():
    """``import scrapy_walsh`` (PEP 562) loads neither Scrapy nor the adapters."""
    loaded = set(_import_in_fresh_interpreter("scrapy_walsh")["loaded"])
    assert not loaded & set(FORBIDDEN)


def test_lazy_names_resolve():
    import scrapy_walsh

    assert scrapy_walsh.Addon.__name__ == "Addon"
    assert scrapy_walsh.SPEC_VERSION.startswith("walsh-research-compliance/")
    with pytest.raises(AttributeError):
        scrapy_walsh.NoSuchName  # noqa: B018


def test_every_denial_is_exported_from_the_package():
    """An errback imports every denial from ``scrapy_walsh``, never from a middleware module."""
    import scrapy_walsh
    from scrapy_walsh.exceptions import DENIALS, WalshIgnoreRequest

    assert {cls.__name__ for cls in DENIALS} | {"WalshIgnoreRequest"} <= set(scrapy_walsh.__all__)
    for cls in DENIALS:
        assert getattr(scrapy_walsh, cls.__name__) is cls
        assert issubclass(cls, WalshIgnoreRequest)
    subclasses = set()
    pending = [WalshIgnoreRequest]
    while pending:
        for sub in pending.pop().__subclasses__():
            subclasses.add(sub)
            pending.append(sub)
    import scrapy_walsh.addon  # noqa: F401 - loads every middleware, so every subclass is defined

    assert {c for c in subclasses if c.__module__.startswith("scrapy_walsh")} <= set(DENIALS)


def test_vocabulary_is_defined_once():
    """No module re-types a meta key as a literal string, nor a store namespace in a store call."""
    import ast
    from pathlib import Path

    from scrapy_walsh.policy.vocabulary import Meta

    root = Path(scrapy_walsh.__file__).parent
    meta_keys = {m.value for m in Meta if m is not Meta.WALSH}
    store_ops = {"get", "set", "delete", "items", "get_many", "claim", "reserve", "advance"}
    offenders = []
    for path in root.rglob("*.py"):
        if path.name == "vocabulary.py":
            continue
        tree = ast.parse(path.read_text())
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in meta_keys and id(node) not in docstrings:
                offenders.append(f"{path.relative_to(root)}:{node.lineno}: {node.value!r}")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in store_ops
                and isinstance(node.func.value, ast.Attribute | ast.Name)
                and "store" in ast.unparse(node.func.value)
                and node.args
                and isinstance(node.args[0], ast.Constant | ast.JoinedStr)
            ):
                offenders.append(f"{path.relative_to(root)}:{node.lineno}: a namespace typed as a string")
    assert not offenders, offenders
