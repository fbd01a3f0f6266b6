"""The journal's published heads: what ``scrapy walsh publish`` puts on the bot's page (pure: no
Scrapy, no I/O but reading the journal); their check is :func:`scrapy_walsh.verify.check_heads`.

Per journal file, its last signed head, whole, with the SHA-256 of its line; each published head
names the one published before it (``previous``), and a publication only grows: a journal that
no longer holds a published head fails the check, and ``publish`` refuses to drop it.
docs/publishing.md ("The published heads") says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from scrapy_walsh.journal.writer import day_of
from scrapy_walsh.verify import (
    DIRECTORY,
    HEADS_FORMAT,
    HEADS_GENESIS,
    HEADS_NAME,
    Holdings,
    canonical_json,
    check_heads,
    entries,
    head_hash,
    journal_files,
    line_hash,
    verify_lines,
)

FORMAT = HEADS_FORMAT
#: The file name under the published folder.
NAME = HEADS_NAME


def signed_heads(root: Path, keys: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The last signed head of each journal file at ``root``, in name order (no ``previous`` yet).

    Only heads on an intact chain, with a signature that verifies under ``keys`` when given,
    are taken: we publish nothing the journal itself would not vouch for."""
    found = []
    for path in journal_files(root):
        data = path.read_bytes()
        name = str(path.relative_to(root)) if root.is_dir() else path.name
        report = verify_lines(name, data, keys)
        latest = None
        for entry in entries(data):
            if entry.get("kind") != "head" or "sig" not in entry or entry.get("seq", 0) > report.seq:
                continue
            if keys is not None and entry["seq"] > report.signed_seq:
                continue
            latest = entry
        if latest is not None:
            hashed = line_hash(canonical_json(latest))
            found.append({"day": day_of(latest.get("t", 0)), "chain": name, "file": name, "seq": latest["seq"],
                          "hash": hashed, "entry": latest})  # fmt: skip
    return found


class Shrinks(ValueError):
    """A publication would drop or change a head published before: the message names it."""


def grown(
    previous: Mapping[str, Any] | None, current: Iterable[dict[str, Any]], root: Path, at: float
) -> list[dict[str, Any]]:
    """The heads to publish: every head ``previous`` published, unchanged and still held by the
    journal at ``root`` (else :class:`Shrinks`), then each file's newer signed head, in name order,
    each naming the head before it and the time ``at`` it is published. A journal whose day a
    retention entry deleted keeps its heads published."""
    heads = _previous_heads(previous)
    held = Holdings({"heads": heads}, False)
    reports = []
    for path in journal_files(root) if root.exists() else []:
        name, data = str(path.relative_to(root)) if root.is_dir() else path.name, path.read_bytes()
        held.seen(name, data)
        reports.append(verify_lines(name, data, None))
    deleted = {d for r in reports for e in r.verified_retention() for d in e["deleted_days"]}
    problems, _ = check_heads(document("", heads, 0), None, held, deleted)
    if problems:
        raise Shrinks(f"{problems[0]}: publish never drops or changes a head it published")
    newest = {h["file"]: h["seq"] for h in heads}
    for head in current:
        if head["seq"] > newest.get(head["file"], 0):
            previous_head = head_hash(heads[-1]) if heads else HEADS_GENESIS
            heads.append({**head, "published": round(at, 3), "previous": previous_head})
    return heads


def _previous_heads(previous: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    if previous is None:
        return []
    heads = previous.get("heads")
    if previous.get("format") != FORMAT or not isinstance(heads, list) or not all(isinstance(h, dict) for h in heads):
        raise Shrinks(f"the heads published before are not a published heads document ({FORMAT})")
    chained, last = [], HEADS_GENESIS
    for head in heads:  # a publication made before heads named the one before: chained as it was
        head = head if "previous" in head else {**head, "previous": last}
        chained.append(head)
        last = head_hash(head)
    return chained


def document(identity: str, heads: Iterable[dict[str, Any]], published_at: float) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "identity": identity,
        "published": round(published_at, 3),
        "keys": DIRECTORY,
        "heads": list(heads),
    }
