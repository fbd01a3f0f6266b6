"""Rules about where the crawl writes: ``JOBDIR``, the local files of ``FEEDS``, the request journal.

Scrapy finds out that such a path can't be used only once the crawl has started; the audit
finds it before the first request, by trying to make a file in the path's nearest existing
directory (removed at once): permission bits say nothing for root or a read-only file system.
docs/existing-projects.md says why.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

from scrapy_walsh.config import journal_location, state_location
from scrapy_walsh.conformance.engine import FAIL, Finding, Subject, loosens
from scrapy_walsh.policy.urls import split


def output_paths(subject: Subject) -> Iterator[Finding]:
    settings = subject.settings
    jobdir = settings.get("JOBDIR")
    if jobdir:
        why = _unusable(Path(str(jobdir)), directory=True)
        if why is not None:
            yield _refused("JOBDIR", f"JOBDIR={str(jobdir)!r} (where Scrapy keeps the crawl's state): {why}")
    yield from _journal(subject)
    try:
        feeds = settings.getdict("FEEDS")
    except (TypeError, ValueError):
        return  # Scrapy refuses a FEEDS it can't read, with its own message
    for uri in feeds:
        path = _local_path(str(uri))
        if path is None:
            continue
        why = _unusable(path, directory=False)
        if why is not None:
            yield _refused("FEEDS", f"FEEDS output {str(uri)!r} (its items would be lost): {why}")


def _journal(subject: Subject) -> Iterator[Finding]:
    """The request journal is on (a loosening when off) and its directory can be written."""
    if why := subject.walsh.refused("WALSH_JOURNAL"):
        yield Finding("-", "proof of conformance", FAIL, "WALSH_JOURNAL", why)
        return
    if not subject.walsh.value("WALSH_JOURNAL", True):
        yield loosens(
            "-",
            "proof of conformance",
            "WALSH_JOURNAL",
            False,
            "no request is recorded in the request journal, so nothing proves what this crawl sent; "
            "meant for measuring the journal's cost",
        )
        return
    try:
        journal = journal_location(subject.settings)
        state = state_location(subject.settings)
    except ValueError:
        return  # a refused WALSH_STATE_URI or WALSH_JOURNAL_DIR is a finding of its own
    if state.scheme == "sqlite" and journal.parent == state.path.parent and _unusable(journal.parent, True):
        return  # beside a sqlite store that cannot be made either: the store's own refusal says it, once
    if (why := _unusable(journal, directory=True)) is not None:
        yield Finding(
            "-",
            "proof of conformance",
            FAIL,
            "WALSH_JOURNAL_DIR",
            f"the request journal at {str(journal)!r} (each request is recorded there before it is sent, so none "
            f"could be): {why}. Choose a directory that can be written.",
        )


def _refused(setting: str, text: str) -> Finding:
    return Finding(
        "-",
        "configuration",
        FAIL,
        setting,
        f"{text}; Scrapy would only find out once the crawl has started. Choose a path that can be written.",
    )


def _local_path(uri: str) -> Path | None:
    """The local file a feed URI writes, up to its first ``%(...)`` placeholder (a directory
    then); None for another storage (``s3://``, ``ftp://``, ``stdout:`` ...)."""
    try:
        parts = split(uri)
    except ValueError:
        return None
    if parts.scheme == "file":
        uri = unquote(parts.path)
    elif len(parts.scheme) > 1:
        return None  # another storage (a Windows drive letter is a one-letter "scheme")
    text, placeholder, _ = uri.partition("%(")
    if placeholder:
        return Path(text).parent if not text.endswith(("/", os.sep)) else Path(text)
    return Path(text)


def _unusable(path: Path, directory: bool) -> str | None:
    """Why ``path`` (a directory to make, or a file to write) can't be used, or None."""
    path = path.expanduser()
    if path.exists():
        if directory and not path.is_dir():
            return "it is a file, not a directory"
        if not directory and path.is_dir():
            return "it is a directory, not a file"
        if not directory and not os.access(path, os.W_OK):
            return "the file can't be written"
    ancestor = path if directory and path.is_dir() else path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"{str(ancestor)!r} is a file, so the directory can't be made"
    try:
        handle, name = tempfile.mkstemp(dir=ancestor, prefix=".walsh-probe-")
    except OSError as exc:
        return f"nothing can be written in {str(ancestor)!r} ({exc.strerror or exc})"
    os.close(handle)
    os.unlink(name)
    return None
