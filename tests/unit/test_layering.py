"""The layering rule: the policy core imports no Scrapy, Twisted or redis, and loads fast.

Each module is imported in a fresh interpreter, so nothing imported earlier by the test
process can hide a dependency.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import pytest

import scrapy_walsh.policy

FORBIDDEN = ("scrapy", "twisted", "redis")
POLICY_MODULES = sorted(
    f"scrapy_walsh.policy.{info.name}" for info in pkgutil.walk_packages(scrapy_walsh.policy.__path__)
) + ["scrapy_walsh.policy"]

PROBE = """
import json, sys, time
start = time.perf_counter()
import {module}
elapsed = time.perf_counter() - start
print(json.dumps({{"loaded": sorted({{m.split(".")[0] for m in sys.modules}}), "seconds": elapsed}}))
"""


def _import_in_fresh_interpreter(module: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module)], capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


@pytest.mark.parametrize("module", POLICY_MODULES)
def test_policy_module_imports_no_framework(module):
    loaded = set(_import_in_fresh_interpreter(module)["loaded"])
    assert not loaded & set(FORBIDDEN), f"{module} loads {sorted(loaded & set(FORBIDDEN))}"


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
