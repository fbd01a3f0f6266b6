"""The journal's format, its hash chain and its verification (pure: no Scrapy, no I/O but reading).

A file is JSON Lines of canonical JSON, each entry with ``seq``, ``prev`` (the SHA-256 of the
previous line), ``kind``, ``t`` and ``pid``; a signed ``head`` vouches for every entry before
it, and each file's ``open`` entry names the file before it (``after``). Editing, deleting or
swapping entries breaks the chain. docs/journal.md ("What an entry holds") says why.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scrapy_walsh.identity.webbotauth import SignatureInvalid, canonical_json, sign_record, verify_record

FORMAT = "walsh-journal/v1"
#: ``prev`` of a file's first entry.
GENESIS = hashlib.sha256(FORMAT.encode("ascii")).hexdigest()
KINDS = ("open", "send", "outcome", "refusal", "head", "retention", "close")
SUFFIX = ".jsonl"


def line_hash(line: bytes) -> str:
    return hashlib.sha256(line).hexdigest()


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


@dataclass
class FileReport:
    """What :func:`verify_lines` found in one file."""

    name: str
    entries: int = 0
    #: The chain head (hash of the last whole entry) and its seq.
    head: str = GENESIS
    seq: int = 0
    #: seq of the last signed head that verified (0: none).
    signed_seq: int = 0
    keyids: set[str] = field(default_factory=set)
    #: The first break, as ``(line number, seq or None, message)``; None when the chain holds.
    broken: tuple[int, int | None, str] | None = None
    torn_tail: bool = False
    unverified_signatures: int = 0
    first: dict[str, Any] | None = None
    retention: list[dict[str, Any]] = field(default_factory=list)
    #: seq of the last entry carrying a signature (checked or not), and of the ``close`` entry.
    sig_seq: int = 0
    close_seq: int = 0
    #: The last entry that verified, and those kept for a reader (``verify_lines(keep=...)``).
    last: dict[str, Any] | None = None
    kept: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.broken is None

    @property
    def unsigned_tail(self) -> int:
        """Entries after the last verified signature (a crash, or no key)."""
        return self.seq - self.signed_seq


def verify_lines(
    name: str, data: bytes, keys: Mapping[str, Any] | None, keep: Callable[[dict[str, Any]], bool] | None = None
) -> FileReport:
    """Check one file's bytes: canonical lines, ``seq`` in order, each ``prev`` the hash of the
    line before, and every ``sig`` against ``keys`` (keyid -> public key; None: not checked).

    Nothing may follow ``close`` but its signed head, and a torn last line is tolerated only in a
    file that was not closed (a crash), never counted. With ``keys``, every entry must be covered
    by a head those keys signed: a crash's unsigned tail, or a chain rebuilt without its
    signatures, fails. ``keep``: the entries that verified and it accepts are kept in
    :attr:`FileReport.kept` (what the readers count: never an entry past a break)."""
    report = FileReport(name)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:
        lines.pop()  # no newline at the end: the tail a kill -9 tore
        report.torn_tail = True
    later = _seqs(lines)
    for number, line in enumerate(lines, 1):
        problem = _check(report, number, line, keys, later)
        if problem is not None:
            report.broken = problem
            return report
        if keep is not None and report.last is not None and keep(report.last):
            report.kept.append(report.last)
    end = len(lines)
    if report.close_seq and report.torn_tail:
        report.broken = (
            end + 1,
            None,
            f"a partial line follows the close of the file at entry {report.close_seq} (added)",
        )
    elif report.close_seq and report.sig_seq and report.sig_seq < report.seq:
        # a signing writer ends a closed file with a signed head right after ``close``
        report.broken = (
            end,
            report.seq,
            f"the file was closed at entry {report.close_seq} but ends at entry {report.seq} without the signed "
            "head that follows close (entries were deleted or added at the end)",
        )
    elif keys is not None and report.signed_seq < report.seq:
        unsigned = report.seq - report.signed_seq
        report.broken = (
            end,
            report.seq,
            f"entries {report.signed_seq + 1} to {report.seq} ({unsigned} entries) are not covered by a head "
            "the key signed (a crash's unsigned tail, or signatures removed)",
        )
    return report


def _seqs(lines: list[bytes]) -> set[int]:
    """Every ``seq`` the file holds (to tell an entry moved from an entry deleted)."""
    found = set()
    for line in lines:
        try:
            seq = json.loads(line).get("seq")
        except (ValueError, AttributeError):
            continue
        if isinstance(seq, int):
            found.add(seq)
    return found


def _check(
    report: FileReport, number: int, line: bytes, keys: Mapping[str, Any] | None, present: set[int]
) -> tuple | None:
    try:
        entry = json.loads(line)
    except ValueError:
        return number, None, "not a JSON entry (edited or corrupted)"
    if not isinstance(entry, dict) or not isinstance(entry.get("seq"), int):
        return number, None, "not a journal entry"
    seq = entry["seq"]
    if canonical_json(entry) != line:
        return number, seq, f"entry {seq} is not in its canonical form (edited)"
    expected = report.seq + 1
    if seq > expected:
        if expected in present:
            return number, seq, f"entry {seq} comes before entry {expected} (entries reordered)"
        return number, seq, f"entry {expected} is missing before entry {seq} (deleted)"
    if seq < expected:
        return number, seq, f"entry {seq} comes after entry {report.seq} (entries reordered)"
    if entry.get("prev") != report.head:
        before = f"entry {report.seq}" if report.seq else "the start of the file"
        return number, seq, f"entry {seq}'s prev is not the hash of {before} (that entry was edited, or replaced)"
    if "sig" in entry:
        report.sig_seq = seq
        if keys is None:
            report.unverified_signatures += 1
        else:
            body = {k: v for k, v in entry.items() if k != "sig"}
            try:
                report.keyids.add(verify_record(body, entry["sig"], keys))
            except SignatureInvalid as exc:
                return number, seq, f"entry {seq}'s signature: {exc}"
            report.signed_seq = seq
    if report.close_seq and not (seq == report.close_seq + 1 and entry.get("kind") == "head" and "sig" in entry):
        return number, seq, f"entry {seq} follows the close of the file at entry {report.close_seq} (added)"
    report.entries += 1
    report.seq, report.head, report.last = seq, line_hash(line), entry
    if report.first is None:
        report.first = entry
    if entry.get("kind") == "retention":
        report.retention.append(entry)
    elif entry.get("kind") == "close":
        report.close_seq = seq
    return None


@dataclass
class JournalReport:
    files: list[FileReport]
    #: Problems between files (a predecessor missing, replaced or cut short).
    links: list[str]
    #: The chains the files form: machine -> files that start one (one per identity per machine)
    chains: dict[str, list[str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.links and all(f.ok for f in self.files)

    def first_problem(self) -> str | None:
        for f in self.files:
            if f.broken is not None:
                line, _seq, message = f.broken
                return f"{f.name}, line {line}: {message}"
        return self.links[0] if self.links else None


def journal_files(path: Path) -> list[Path]:
    """The journal files at ``path`` (a file, or a directory searched recursively), in name order."""
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob(f"*{SUFFIX}") if p.is_file())


def no_journal(path: Path) -> str | None:
    """Why ``path`` holds no journal to read (one line), or None.

    A path with no journal file is an error, not a journal "intact in 0 files": a crawl writes its
    journal from its first request or refusal on, so there is nothing there to vouch for."""
    if not path.exists():
        return f"no journal at {path}"
    if not (path.is_file() or path.is_dir()):
        return f"{path} is not a journal file or folder"
    if not journal_files(path):
        return f"no journal file (*{SUFFIX}) in {path}: nothing was written there, so nothing can be verified"
    return None


def verify_path(
    path: Path,
    keys: Mapping[str, Any] | None,
    keep: Callable[[dict[str, Any]], bool] | None = None,
    seen: Callable[[str, bytes], None] | None = None,
) -> JournalReport:
    """Verify every file at ``path`` and, for a directory, the chain the files form (each file's
    ``open`` names the one before it on its machine); ``keep``: as for :func:`verify_lines`.
    ``seen(name, bytes)`` is given each file as it is read, so that another check of the same
    journal (the published heads) needs no second read."""
    root = path if path.is_dir() else path.parent
    reports = []
    for file in journal_files(path):
        name, data = str(file.relative_to(root) if path.is_dir() else file.name), file.read_bytes()
        if seen is not None:
            seen(name, data)
        reports.append(verify_lines(name, data, keys, keep))
    by_name = {r.name: r for r in reports}
    deleted = {d for r in reports for e in r.retention for d in e.get("deleted_days", [])}
    links: list[str] = []
    chains: dict[str, list[str]] = {}
    if path.is_dir():
        for r in reports:
            after = (r.first or {}).get("after")
            if not after:
                chains.setdefault(str((r.first or {}).get("machine", "?")), []).append(r.name)
                continue
            before = by_name.get(after.get("file", ""))
            if before is None:
                if str(after.get("file", "")).split("/")[0] not in deleted:
                    links.append(f"{r.name}: continues {after.get('file')}, which is missing (deleted)")
            elif before.ok and (before.seq < after.get("seq", 0) or _head_at(root / before.name, after) is False):
                links.append(
                    f"{r.name}: continues {after.get('file')} at entry {after.get('seq')}, which it does not hold"
                )
        for tip in sorted((path / ".chains").glob("*")) if (path / ".chains").is_dir() else []:
            # the file each chain was last continued by: a chain's last file deleted is missing here
            last = tip.read_text("utf-8", "replace").strip()
            if last and last not in by_name and last.split("/")[0] not in deleted:
                links.append(f"the chain {tip.name} ends with {last}, which is missing (deleted)")
    return JournalReport(reports, links, chains)


def _head_at(path: Path, after: Mapping[str, Any]) -> bool:
    """Whether the file's entry ``after["seq"]`` hashes to ``after["head"]``."""
    for line in path.read_bytes().split(b"\n"):
        try:
            if json.loads(line).get("seq") == after.get("seq"):
                return line_hash(line) == after.get("head")
        except ValueError:
            return False
    return False


def entries(data: bytes) -> Iterable[dict[str, Any]]:
    """The whole entries of a file's bytes (a torn last line is skipped), unverified."""
    for line in data.split(b"\n"):
        if line:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict):
                yield entry


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
