"""docs/architecture.md draws the request path; the add-on's component table is the truth.

The text drawing and the picture (docs/_static/request-path.svg) must name every component the
add-on places, downloader middlewares in their priority order, so neither can drift from the code.
"""

from __future__ import annotations

import re
from pathlib import Path

from scrapy_walsh.addon import COMPONENTS

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _placed(setting: str) -> list[tuple[int, str]]:
    """(priority, class name) of each component the add-on places under ``setting``, in order."""
    return sorted((priority, cls.__name__) for name, cls, priority in COMPONENTS if name == setting and priority)


def _drawing() -> str:
    page = (DOCS / "architecture.md").read_text()
    section = page.split("## One request's way through", 1)[1]
    return section.split("```text\n", 1)[1].split("```", 1)[0]


def _pictured() -> list[str]:
    """The component names in the picture, top to bottom (a trailing ``(R6)`` dropped)."""
    svg = (DOCS / "_static" / "request-path.svg").read_text()
    return [name.split(" (")[0] for name in re.findall(r'class="name">([^<]+)<', svg)]


def test_the_drawing_lists_every_downloader_middleware_in_priority_order():
    drawn = [(int(p), name) for p, name in re.findall(r"^\s+(\d+)\s+(\w+Middleware)\b", _drawing(), re.M)]
    assert drawn == _placed("DOWNLOADER_MIDDLEWARES")


def test_the_drawing_names_every_spider_middleware_and_pipeline_at_its_place():
    drawing = " ".join(_drawing().split())
    for priority, name in _placed("SPIDER_MIDDLEWARES"):
        assert f"{name} (spider mw {priority}" in drawing, name
    for priority, name in _placed("ITEM_PIPELINES"):
        assert f"{name} ({priority}" in drawing, name
    page = (DOCS / "architecture.md").read_text()
    assert all(f"`{name}`" in page for _, name in [(0, c.__name__) for s, c, _ in COMPONENTS if s == "EXTENSIONS"])


def test_the_picture_shows_every_component_and_the_downloader_middlewares_in_order():
    pictured = _pictured()
    downloader = [name for _, name in _placed("DOWNLOADER_MIDDLEWARES")]
    assert [name for name in pictured if name in downloader] == downloader
    others = {name for setting in ("SPIDER_MIDDLEWARES", "ITEM_PIPELINES") for _, name in _placed(setting)}
    assert others <= set(pictured), others - set(pictured)
    assert pictured.index(downloader[-1]) < pictured.index("CheckpointDownloadHandler")


def test_the_checkpoint_reserves_then_signs_as_drawn():
    """The drawing's order at the checkpoint is the code's: the reservation, then the signature."""
    import inspect

    from scrapy_walsh.sending.checkpoint import CheckpointDownloadHandler

    assert "self.prepare(" in inspect.getsource(CheckpointDownloadHandler.download_request)
    code = inspect.getsource(CheckpointDownloadHandler.prepare)  # the step under the in-flight lock
    assert code.index(".reserve_to_send(") < code.index(".sign(request)")
    drawing = " ".join(_drawing().split())
    assert drawing.index("the reservation, and the signature last") > drawing.index("CheckpointDownloadHandler")


def test_the_layers_drawing_names_the_tree():
    """The drawing under "The layers" shows the package as it is: every folder and every module
    at its root, and no folder that isn't there."""
    import scrapy_walsh

    page = (DOCS / "architecture.md").read_text()
    drawing = page.split("## The layers", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    package = Path(scrapy_walsh.__file__).parent
    folders = {f"{p.name}/" for p in package.iterdir() if (p / "__init__.py").exists()}
    modules = {p.name for p in package.glob("*.py") if p.name != "__init__.py"}
    named = set(re.findall(r"(?<![\w/])([a-z_]+/)", drawing)) | set(re.findall(r"(?<![\w/])([a-z_]+\.py)\b", drawing))
    assert folders | modules <= named, f"not drawn: {sorted((folders | modules) - named)}"
    subfolders = {f"{p.name}/" for p in package.glob("*/*") if (p / "__init__.py").exists()}
    drawn_folders = {n for n in named if n.endswith("/")}
    assert drawn_folders <= folders | subfolders, f"drawn, not there: {sorted(drawn_folders - folders - subfolders)}"
