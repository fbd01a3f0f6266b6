"""The journal's hash chain as the writer extends it; its verification is
:mod:`scrapy_walsh.verify` (stdlib and ``cryptography`` only, so a site owner can run it alone).

A file is JSON Lines of canonical JSON, each entry with ``seq``, ``prev`` (the SHA-256 of the
previous line), ``kind``, ``t`` and ``pid``; a signed ``head`` vouches for every entry before
it, and each file's ``open`` entry names the file before it (``after``). docs/journal-format.md
specifies it byte for byte; docs/journal.md says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from scrapy_walsh.identity.webbotauth import sign_record
from scrapy_walsh.verify import (
    FORMAT,
    GENESIS,
    KINDS,
    SUFFIX,
    FileReport,
    JournalReport,
    canonical_json,
    entries,
    journal_files,
    line_hash,
    no_journal,
    verify_lines,
    verify_path,
)

__all__ = (
    "FORMAT",
    "GENESIS",
    "KINDS",
    "SUFFIX",
    "Chain",
    "FileReport",
    "JournalReport",
    "entries",
    "file_heads",
    "journal_files",
    "line_hash",
    "no_journal",
    "verify_lines",
    "verify_path",
)


class Chain:
    """The head of one file's chain: turns fields into the next line."""

    def __init__(self, seq: int = 0, head: str = GENESIS):
        self.seq, self.head = seq, head

    def line(self, fields: Mapping[str, Any], key: Any = None) -> bytes:
        """The next entry's line (no newline); signed over everything but ``sig`` when ``key``."""
        entry = {**fields, "seq": self.seq + 1, "prev": self.head}
        if key is not None:
            entry["sig"] = sign_record(key, entry)
        line = canonical_json(entry)
        self.seq += 1
        self.head = line_hash(line)
        return line


def file_heads(root: Path, files: Iterable[Path]) -> list[dict[str, Any]]:
    """Each file's chain head (its last whole entry: seq, hash, and whether it is a signed head),
    named relative to ``root``: what an attestation record quotes so the two vouch for each other."""
    heads = []
    for path in files:
        report = verify_lines(path.name, path.read_bytes(), None)
        last = None
        for entry in entries(path.read_bytes()):
            last = entry
        heads.append(
            {
                "file": str(path.relative_to(root)),
                "seq": report.seq,
                "head": report.head,
                "signed": bool(last and "sig" in last and last.get("seq") == report.seq),
                "intact": report.ok,
            }
        )
    return heads
