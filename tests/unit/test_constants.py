"""Module-level tables are immutable (tests/unit/test_process_state.py scans for it), and a
project's settings that name one still copy as Scrapy copies them for each crawler."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from scrapy.settings import Settings

import scrapy_walsh

PACKAGE = Path(scrapy_walsh.__file__).parent
EXAMPLES = PACKAGE.parent / "example_project"


@pytest.mark.parametrize("module", sorted(EXAMPLES.rglob("settings.py")), ids=lambda p: p.parent.name)
def test_the_example_settings_copy(module):
    """Scrapy deep-copies a project's settings for each crawler, and every upper-case name of
    the settings module is a setting: a mapping proxy bound to one fails the copy."""
    spec = importlib.util.spec_from_file_location(f"_example_{module.parent.name}_settings", module)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    settings = Settings()
    settings.setmodule(loaded)
    assert settings.copy().getlist("WALSH_ALLOW_PRIVATE_ADDRESSES")
