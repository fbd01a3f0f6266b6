"""The demo site's requests as a server access log in the combined format, so
``scrapy walsh journal match`` can be shown and tested against what the site saw."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from typing import Any


def combined_line(record: Mapping[str, Any]) -> str:
    """One record of :attr:`DemoSite.requests` as Apache/nginx ``combined`` writes it."""
    when = datetime.datetime.fromtimestamp(record["t"], datetime.timezone.utc).strftime("%d/%b/%Y:%H:%M:%S +0000")
    headers = record.get("headers") or {}

    def quoted(value: Any) -> str:
        return str(value if value is not None else "-").replace("\\", "\\\\").replace('"', '\\"')

    return (
        f'{record.get("ip") or "-"} - - [{when}] "{record.get("method")} {record.get("path")} HTTP/1.1" '
        f'{record.get("status") or 0} - "{quoted(headers.get("Referer", "-"))}" '
        f'"{quoted(headers.get("User-Agent", "-"))}"'
    )


def combined_log(records: Iterable[Mapping[str, Any]], host: str | None = None) -> str:
    """The records (of one host name, when given) as a combined-format log, in arrival order."""
    chosen = [r for r in records if host is None or r.get("host") == host]
    return "".join(combined_line(r) + "\n" for r in sorted(chosen, key=lambda r: r.get("mono", r["t"])))
