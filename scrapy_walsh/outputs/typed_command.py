"""``scrapy fetch``, ``shell`` and ``parse URL``: a person typed the URL and waits for it.

While one of these commands runs, each refusal is also printed on stderr as one line, whatever
the log settings (``--nolog`` included), and the crawl fails (``fetch`` and ``parse`` exit 1,
:mod:`scrapy_walsh.outputs.exit_status`): nothing was fetched for it. The command is read from the
process's arguments as Scrapy's command line reads them, only when the program is Scrapy's.
docs/existing-projects.md says why.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from scrapy_walsh.outputs import exit_status

#: The commands whose refusals are printed and fail the process.
TYPED = frozenset({"fetch", "shell", "parse"})


def command(argv: list[str] | None = None) -> str | None:
    """The Scrapy command this process runs (``fetch``, ``crawl`` ...), or None.

    Read from ``sys.orig_argv`` (the interpreter's own arguments): Scrapy's command line pops
    the command's name out of ``sys.argv``."""
    argv = list(sys.orig_argv if argv is None else argv)
    for index, arg in enumerate(argv):
        if (arg == "scrapy" and index and argv[index - 1] == "-m") or (
            os.path.basename(arg) == "scrapy" and not (index and argv[index - 1] == "-m")
        ):
            return next((a for a in argv[index + 1 :] if not a.startswith("-")), None)
    return None


def refused(crawler: Any, message: str) -> None:
    """A gate refused a request: under ``fetch``/``shell``/``parse``, say so on stderr and fail the crawl."""
    if command() not in TYPED:
        return
    print(f"scrapy_walsh: not fetched: {message}", file=sys.stderr, flush=True)
    exit_status.failed(crawler, message)
