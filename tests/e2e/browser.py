"""A page rendered by a real headless Chromium, as a reviewer's browser would show it: its DOM after
parsing, and a screenshot checked not to be blank. Skips the test when Chromium is not installed."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest


def render(page: Path, tmp_path: Path, window: str = "1000,1000") -> tuple[str, bytes]:
    """(the DOM Chromium built from ``page``, a PNG screenshot of it at ``window`` pixels)."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (make debian-packages)")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([browser, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    png = tmp_path / f"{page.stem}.png"
    shot = [browser, *flags, f"--screenshot={png}", f"--window-size={window}", page.as_uri()]
    subprocess.run(shot, capture_output=True, timeout=120)
    assert png.exists(), f"Chromium wrote no screenshot of {page}"
    return dom.stdout, png.read_bytes()


def png_pixels_not_blank(data: bytes) -> bool:
    """True when a PNG (8-bit RGB/RGBA, as Chromium writes) has more than one colour."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, _height, depth, colour, *_ = header
    raw = zlib.decompress(idat)
    channels = {2: 3, 6: 4}[colour]
    stride = width * channels * depth // 8
    colours = set()
    for row in range(0, len(raw), stride + 1):  # the first byte of a row is its filter type
        colours.update(raw[row + 1 : row + 1 + stride : channels * 37])
        if len(colours) > 2:
            return True
    return False
