"""Which Scrapy command runs, as Scrapy's command line reads it: ``fetch`` and ``shell`` of a
refused URL must say so and exit non-zero, since a person typed it and waits for the page."""

from __future__ import annotations

import pytest

from scrapy_walsh.outputs.typed_command import command


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["python", "-m", "scrapy", "fetch", "--nolog", "http://x/"], "fetch"),
        (["/venv/bin/python", "/venv/bin/scrapy", "--nolog", "shell", "http://x/"], "shell"),
        (["/venv/bin/python", "/venv/bin/scrapy", "crawl", "s"], "crawl"),
        (["python", "run.py", "fetch"], None),
        (["python", "-m", "pytest", "tests"], None),
        ([], None),
    ],
)
def test_the_command_is_read_from_the_original_arguments(argv, expected):
    assert command(argv) == expected
