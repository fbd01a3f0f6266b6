"""Who made a record: the project, the spider and the command of the process writing it.

Every project and command of an identity shares one state store, so a record says who made it:
``scrapy walsh state forget --spider NAME`` forgets what that spider of *this* project fetched,
and an R8 refusal names the command that fetched the page. A project is its settings module and
the directory of its ``scrapy.cfg``. docs/records-and-progress.md says why.
"""

from __future__ import annotations

import os
from typing import Any

from scrapy_walsh.outputs import typed_command

#: The commands that look at a page a person typed: their fetches are theirs, not a spider's.
LOOKING = typed_command.TYPED


def project() -> str:
    """This process's project: ``<settings module>@<project directory>``."""
    from scrapy.utils.conf import closest_scrapy_cfg

    cfg = closest_scrapy_cfg()
    directory = os.path.dirname(cfg) if cfg else os.getcwd()
    return f"{os.environ.get('SCRAPY_SETTINGS_MODULE', '')}@{os.path.realpath(directory)}"


def fetcher(spider: str | None, crawl: str) -> dict[str, Any]:
    """The record of who fetches now: the spider, the crawl, the project, and the command when a
    person looks at a page (``shell``, ``fetch``, ``parse``)."""
    found: dict[str, Any] = {"spider": spider, "crawl": crawl, "project": project()}
    command = typed_command.command()
    if command in LOOKING:
        found["command"] = command
    return found


def made_by(record: Any, spider: str, here: str) -> bool | None:
    """Whether a ``fetched_by`` record was made by ``spider`` of project ``here``: None when the
    record names no project (written by an earlier version, or none at all)."""
    if not isinstance(record, dict) or "project" not in record:
        return None
    return record.get("spider") == spider and record.get("project") == here


def described(record: dict[str, Any]) -> str:
    """Who fetched, for a message: ``scrapy shell`` or ``spider NAME``."""
    command = record.get("command")
    if command in LOOKING:
        return f"`scrapy {command}`"
    return f"spider {record.get('spider')}"
