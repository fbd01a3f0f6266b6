"""The journal's published heads: what ``scrapy walsh publish`` puts on the bot's page, and the
check of a journal against them (pure: no Scrapy, no I/O but reading the journal).

Per UTC day and chain, the last signed head, whole, with the SHA-256 of its line: a journal that
no longer holds a published head byte for byte fails :func:`check`, whatever its own chain
says. docs/publishing.md ("The published heads") says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from scrapy_walsh.identity.webbotauth import SignatureInvalid, canonical_json, verify_record
from scrapy_walsh.journal.chain import entries, journal_files, line_hash, verify_lines
from scrapy_walsh.journal.writer import day_of

FORMAT = "walsh-journal-heads/v1"
#: The file name under the published folder.
NAME = "journal-heads.json"


def signed_heads(root: Path, keys: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The last signed head of each (day, chain) in the journal at ``root``, in name order.

    Only heads on an intact chain, with a signature that verifies under ``keys`` when given,
    are taken: we publish nothing the journal itself would not vouch for."""
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for path in journal_files(root):
        data = path.read_bytes()
        name = str(path.relative_to(root)) if root.is_dir() else path.name
        report = verify_lines(name, data, keys)
        chain = str((report.first or {}).get("chain") or name)
        for entry in entries(data):
            if entry.get("kind") != "head" or "sig" not in entry or entry.get("seq", 0) > report.seq:
                continue
            if keys is not None and entry["seq"] > report.signed_seq:
                continue
            day = day_of(entry.get("t", 0))
            head = {
                "day": day,
                "chain": chain,
                "file": name,
                "seq": entry["seq"],
                "hash": line_hash(canonical_json(entry)),
                "entry": entry,
            }
            previous = latest.get((day, chain))
            if previous is None or (previous["entry"].get("t", 0), previous["seq"]) <= (
                entry.get("t", 0),
                entry["seq"],
            ):
                latest[(day, chain)] = head
    return [latest[k] for k in sorted(latest)]


def _order(entry: Mapping[str, Any]) -> tuple[float, int]:
    return entry.get("t", 0), entry.get("seq", 0)


def document(identity: str, heads: Iterable[dict[str, Any]], published_at: float) -> dict[str, Any]:
    return {"format": FORMAT, "identity": identity, "published": round(published_at, 3), "heads": list(heads)}


class Holdings:
    """What the journal holds of the heads a document publishes, gathered from its files as
    :func:`~scrapy_walsh.journal.chain.verify_path` reads them (its ``seen``), so the journal is
    read once for both checks. ``single_file``: the journal is one file, matched by its name."""

    def __init__(self, published: Mapping[str, Any], single_file: bool) -> None:
        heads = published.get("heads") if isinstance(published, Mapping) else None
        #: the name a file is seen under -> the published file names it answers for
        self._names: dict[str, set[str]] = {}
        #: the name a file is seen under -> the seqs the heads published for it want
        self._seqs: dict[str, set[int]] = {}
        for head in heads if isinstance(heads, list) else []:
            if isinstance(head, Mapping) and isinstance(head.get("seq"), int):
                name = str(head.get("file"))
                seen_as = Path(name).name if single_file else name
                self._names.setdefault(seen_as, set()).add(name)
                self._seqs.setdefault(seen_as, set()).add(head["seq"])
        #: published file name -> (its last seq, its lines of the wanted seqs)
        self.files: dict[str, tuple[int, dict[int, bytes]]] = {}

    def seen(self, name: str, data: bytes) -> None:
        """One pass over a file the heads name, whichever of them it answers for."""
        seqs = self._seqs.get(name)
        if not seqs:
            return
        last, lines = 0, dict[int, bytes]()
        for line in data.split(b"\n"):
            for entry in entries(line):
                seq = entry.get("seq")
                if isinstance(seq, int):
                    last = max(last, seq)
                    if seq in seqs:
                        lines.setdefault(seq, line)
        for published_name in self._names[name]:
            self.files[published_name] = last, lines


def check(published: Mapping[str, Any], keys: Mapping[str, Any] | None, held: Holdings) -> tuple[list[str], set[str]]:
    """Problems of the journal ``held`` saw against a published heads document, and the keyids
    that signed the published heads (checked under ``keys``; None: signatures not checked).

    Each published head must be in the journal byte for byte: same file, same ``seq``, the same
    line hash; its signature must verify. Anything else is a problem naming the head.
    """
    if published.get("format") != FORMAT or not isinstance(published.get("heads"), list):
        return [f"not a published heads document ({FORMAT})"], set()
    problems: list[str] = []
    signers: set[str] = set()
    for head in published["heads"]:
        if not isinstance(head, Mapping):
            problems.append("a published head is not a JSON object")
            continue
        where = f"the published head of {head.get('day')} (file {head.get('file')}, entry {head.get('seq')})"
        entry = head.get("entry")
        if not isinstance(entry, Mapping) or line_hash(canonical_json(entry)) != head.get("hash"):
            problems.append(f"{where}: its entry does not hash to its published hash")
            continue
        if keys is not None:
            try:
                signers.add(verify_record({k: v for k, v in entry.items() if k != "sig"}, entry.get("sig", {}), keys))
            except SignatureInvalid as exc:
                problems.append(f"{where}: {exc}")
                continue
        name = str(head.get("file"))
        last, lines = held.files.get(name, (0, {}))
        if not last:
            problems.append(f"{where}: the journal has no file {name} (deleted after publication)")
        elif head.get("seq") not in lines:
            problems.append(f"{where}: {name} ends at entry {last}, before the published head (cut after publication)")
        elif line_hash(lines[head["seq"]]) != head["hash"]:
            problems.append(f"{where}: {name} holds another entry {head['seq']} (rewritten after publication)")
    return problems, signers
