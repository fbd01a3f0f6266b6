"""Sphinx configuration: Markdown pages (MyST) with the furo theme; reference pages generated from the code.

Why Sphinx and MyST: it is what Scrapy and scrapy-zyte-api use, so a Scrapy user finds the same shape, and
MyST lets every page stay plain Markdown that GitHub renders too. Why furo: a full navigation sidebar, search
and a dark mode, kept up to date with Sphinx; it is a docs-build dependency only (the ``test`` extra).
``make docs`` builds with warnings as errors, so a broken link or a page outside the toctree fails the build.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(DOCS.parent))  # the demo site (demo_site/), which the package does not ship

from scrapy_walsh import __version__  # noqa: E402

project = "scrapy-walsh"
author = "scrapy-walsh contributors"
copyright = "scrapy-walsh contributors, MIT licence"  # noqa: A001
version = release = __version__

extensions = ["myst_parser", "sphinx.ext.autodoc", "walsh_reference"]
# The API page documents the names scrapy_walsh exports, in the order they are listed there.
autodoc_member_order = "bysource"
autodoc_typehints = "description"
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# `[text](page.md#a-heading)` links resolve to heading anchors, as they do on GitHub.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

html_theme = "furo"
html_title = f"scrapy-walsh {release}"
