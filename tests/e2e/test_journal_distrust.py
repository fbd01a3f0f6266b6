"""A site owner who distrusts us, forging copies of a real signed journal and its publication.

The journal is made once per module by real crawls of the demo site (two of them under
``faketime`` on earlier days, one killed with ``kill -9`` and recovered by the next), signed with a
key ``scrapy walsh keys`` made, then published with ``scrapy walsh publish``. Each forgery edits a
copy; ``scrapy walsh journal verify --key``, ``--published`` alone, and the verifier handed out as
one file must each fail it, in the same words, without a traceback. Some forgeries are made with
our own key (the operator lying): only the publication can catch those, and it must.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from demo_site import DemoSite
from demo_site.access_log import combined_log
from scrapy_walsh.identity import webbotauth
from scrapy_walsh.journal.writer import JournalWriter
from scrapy_walsh.verify import GENESIS, canonical_json, head_hash, line_hash
from tests.helpers import GATES_SPIDER, add_addon_line, new_project, run_scrapy

ROOT = Path(__file__).resolve().parent.parent.parent
FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
HEADS = "journal-heads.json"
HOST = "open.walsh-demo.test"
DIRECTORY = ".well-known/http-message-signatures-directory"


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Any]:
    if not Path(FAKETIME).exists():
        pytest.skip("libfaketime is not installed (make debian-packages)")
    return build(tmp_path_factory.mktemp("distrust"))


def build(tmp: Path) -> dict[str, Any]:
    """Six real crawls into one signed journal: two on earlier days, one killed with kill -9, the
    one that recovers it, and one more; then the folder ``publish`` writes."""
    key, other = tmp / "walsh.pem", tmp / "other.pem"
    for path in (key, other):
        assert run_scrapy(["walsh", "keys", "generate", str(path)], cwd=tmp).returncode == 0
    journal = tmp / "journal"
    with DemoSite() as site:
        agent = site.publish_directory(webbotauth.directory([webbotauth.load_private_key(key)]))
        project = new_project(tmp)
        extra = f"\nWALSH_SIGNING_KEY = {str(key)!r}\nWALSH_SIGNATURE_AGENT = {agent!r}\n"
        extra += f"WALSH_JOURNAL_DIR = {str(journal)!r}\n"
        add_addon_line(project, site=site, extra=extra)
        (project / "plainproj" / "spiders" / "gates.py").write_text(GATES_SPIDER)

        def crawl(paths: list[str], days_ago: int = 0) -> None:
            env = {"FAKETIME": f"-{days_ago}d", "LD_PRELOAD": FAKETIME, "FAKETIME_DONT_FAKE_MONOTONIC": "1"}
            urls = ",".join(site.url("open", p) for p in paths)
            result = run_scrapy(["crawl", "gates", "-a", f"urls={urls}"], cwd=project, env=env if days_ago else None)
            assert result.returncode == 0, result.stderr[-3000:]

        crawl(["/page/1", "/page/2"], days_ago=2)
        crawl(["/page/3", "/private/x"], days_ago=1)
        crawl(["/page/4", "/page/5"])
        held = subprocess.Popen(
            [sys.executable, "-m", "scrapy", "crawl", "gates", "-a", "urls=" + site.url("open", "/page/6?latency=5")],
            cwd=project,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 120
        while site.arrived("open", "/page/6") == 0:  # on the wire: the server holds it
            assert time.monotonic() < deadline and held.poll() is None, "the crawl did not send the page"
            time.sleep(0.05)
        os.kill(held.pid, signal.SIGKILL)
        held.wait(timeout=30)
        crawl(["/page/7"])
        crawl(["/page/8"])
        deadline = time.monotonic() + 30
        while site.arrived("open", "/page/6") > len(site.requests_for("open", path="/page/6?latency=5")):
            assert time.monotonic() < deadline, "the demo server never logged the held request"
            time.sleep(0.05)
        (tmp / "access.log").write_text(combined_log(site.requests, HOST))
        (tmp / "signed.log").write_text(
            "".join(json.dumps(signed_line(r)) + "\n" for r in site.requests if r["host"] == HOST)
        )
    public = tmp / "public"
    published = run_scrapy(["walsh", "publish", str(public), "--key", str(key), "--journal", str(journal)], cwd=tmp)
    assert published.returncode == 0, published.stdout + published.stderr
    opened = {
        str(p.relative_to(journal)): json.loads(p.read_bytes().split(b"\n")[0])["t"] for p in journal.rglob("*.jsonl")
    }
    files = sorted(opened, key=opened.__getitem__)  # in the order the chain runs
    assert len(files) == 6 and len({f.split("/")[0] for f in files}) == 3, files
    single = tmp / "walsh_verify.py"  # the verifier handed out as one file
    shutil.copy(ROOT / "scrapy_walsh" / "verify.py", single)
    return {
        "tmp": tmp,
        "journal": journal,
        "public": public,
        "key": key,
        "other": other,
        "files": files,
        "single": single,
    }


def signed_line(record: dict[str, Any]) -> dict[str, Any]:
    """A demo site's record as nginx's JSON log of docs/journal.md writes it, signatures and all."""
    headers = {k.lower(): v for k, v in record["headers"].items()}
    fields = {
        name: headers.get(name.replace("_", "-"), "") for name in ("signature", "signature_input", "signature_agent")
    }
    return {"msec": record["t"], "method": record["method"], "uri": record["path"], "host": headers.get("host", ""),
            "status": record["status"], "ua": headers.get("user-agent", ""), **fields}  # fmt: skip


# ---------------------------------------------------------------------- the forger's tools


@dataclass
class Forger:
    journal: Path
    public: Path
    key: Any
    other: Any
    files: list[str]

    # the files, by role: two earlier days, today's crawl, the crashed one, its recovery, the newest
    @property
    def day1(self) -> Path:
        return self.journal / self.files[0]

    @property
    def day2(self) -> Path:
        return self.journal / self.files[1]

    @property
    def today(self) -> Path:
        return self.journal / self.files[2]

    @property
    def crashed(self) -> Path:
        return self.journal / self.files[3]

    @property
    def recovering(self) -> Path:
        return self.journal / self.files[4]

    @property
    def newest(self) -> Path:
        return self.journal / self.files[5]

    @property
    def tip(self) -> Path:
        return next(p for p in (self.journal / ".chains").iterdir() if p.is_file())

    def lines(self, path: Path) -> list[bytes]:
        return path.read_bytes().split(b"\n")[:-1]

    def write_lines(self, path: Path, lines: list[bytes]) -> None:
        path.write_bytes(b"".join(line + b"\n" for line in lines))

    def entries(self, path: Path) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines(path)]

    def chained(self, entries: list[dict[str, Any]], sign: Any = "keep") -> list[bytes]:
        """The entries renumbered and re-hashed; each signature kept as it was (``"keep"``), made
        again with ``sign`` (a private key), or dropped (None)."""
        lines, head = [], GENESIS
        for seq, old in enumerate(entries, 1):
            entry = {k: v for k, v in old.items() if k not in ("seq", "prev", "sig")} | {"seq": seq, "prev": head}
            if "sig" in old and sign == "keep":
                entry["sig"] = old["sig"]
            elif "sig" in old and sign is not None:
                entry["sig"] = webbotauth.sign_record(sign, entry)
            lines.append(canonical_json(entry))
            head = line_hash(lines[-1])
        return lines

    def rewrite(self, path: Path, edit: Callable[[list[dict[str, Any]]], None], sign: Any = "keep") -> None:
        """Edit one file's entries, re-chain it, and carry the change down the chain: each later
        file's ``open.after`` and any ``recovery`` naming a rewritten file, re-signed alike."""
        moved: dict[str, tuple[int, str]] = {}
        for name in self.files[self.files.index(str(path.relative_to(self.journal))) :]:
            file = self.journal / name
            if not file.exists():
                continue
            entries = self.entries(file)
            if file == path:
                edit(entries)
            for entry in entries:
                after = entry.get("after") if entry.get("kind") == "open" else None
                if isinstance(after, dict) and after.get("file") in moved:
                    after["seq"], after["head"] = moved[after["file"]]
                if entry.get("kind") == "recovery" and entry.get("file") in moved:
                    entry["to"], entry["head"] = moved[entry["file"]]
            if file != path and not any(
                isinstance(e.get("after"), dict) and e["after"].get("file") in moved or e.get("file") in moved
                for e in entries
                if e.get("kind") in ("open", "recovery")
            ):
                continue
            lines = self.chained(entries, sign)
            self.write_lines(file, lines)
            moved[name] = (len(lines), line_hash(lines[-1]))

    def append_file(self, name: str, entries: list[dict[str, Any]], sign: Any) -> Path:
        """A new file continuing the newest one on our chain, with ``entries`` after its open."""
        last = self.lines(self.newest)[-1]
        opened = {**self.entries(self.newest)[0], "file": name, "t": self.entries(self.newest)[-1]["t"] + 60}
        opened["after"] = {"file": self.files[-1], "seq": len(self.lines(self.newest)), "head": line_hash(last)}
        head = {"kind": "head", "t": opened["t"] + 1, "pid": opened["pid"], "sig": {}}
        path = self.journal / name
        path.parent.mkdir(exist_ok=True)
        self.write_lines(path, self.chained([opened, *entries, head], sign))
        self.tip.write_text(f"{name}\n{opened['chain']}\n")
        return path

    def heads(self) -> dict[str, Any]:
        return json.loads((self.public / HEADS).read_text())

    def publish(self, document: dict[str, Any], relink: bool = False) -> None:
        if relink:
            previous = None
            for head in document["heads"]:
                head["previous"] = previous
                previous = head_hash(head)
        (self.public / HEADS).write_text(json.dumps(document))


def edit_line(path: Path, number: int, old: bytes, new: bytes) -> None:
    lines = path.read_bytes().split(b"\n")
    assert old in lines[number], (old, lines[number])
    lines[number] = lines[number].replace(old, new, 1)
    path.write_bytes(b"\n".join(lines))


def index_of(entries: list[dict[str, Any]], **fields: Any) -> int:
    return next(i for i, e in enumerate(entries) if all(str(e.get(k, "")).endswith(str(v)) for k, v in fields.items()))


def drop_request(entries: list[dict[str, Any]], path: str) -> None:
    send = entries[index_of(entries, kind="send", url=path)]
    entries[:] = [e for e in entries if e is not send and e.get("id") != send["id"]]


def set_status(status: int) -> Callable[[list[dict[str, Any]]], None]:
    def edit(entries: list[dict[str, Any]]) -> None:
        entries[index_of(entries, kind="outcome", status=200)]["status"] = status

    return edit


def strip_close(entries: list[dict[str, Any]]) -> None:
    del entries[-2:]  # close, and the signed head after it


def foreign_journal(folder: Path, key: Any, machine: str, identity: str = "Walsh-Research") -> list[Path]:
    writer = JournalWriter(folder, identity, key=key, clock=lambda: time.time() - 3600)
    writer.machine = machine
    for i in range(2):
        writer.append(
            "send", method="GET", url=f"http://open.walsh-demo.test/page/{90 + i}", host="open.walsh-demo.test"
        )
    writer.close()
    return sorted(folder.rglob("*.jsonl"))


# ---------------------------------------------------------------------- the forgeries

#: name -> (forge, whether ``verify --key`` must fail it). Not for a forgery of the publication
#: alone (the journal is intact), nor for one made with our own key that leaves a well-formed
#: journal (the operator lying): only the publication can catch those, and it must.
FORGERIES: dict[str, tuple[Callable[[Forger], None], bool]] = {}


def forgery(forge: Callable[[Forger], None] | None = None, *, key: bool = True) -> Any:
    def register(forge: Callable[[Forger], None]) -> Callable[[Forger], None]:
        FORGERIES[forge.__name__.lstrip("_")] = (forge, key)
        return forge

    return register(forge) if forge is not None else register


@forgery(key=False)
def _published_file_rewritten_resigned(f: Forger) -> None:
    f.rewrite(f.day2, set_status(404), sign=f.key)


@forgery(key=False)
def _request_hidden_resigned(f: Forger) -> None:
    f.rewrite(f.today, lambda e: drop_request(e, "/page/4"), sign=f.key)


@forgery
def _status_edited_rest_rehashed(f: Forger) -> None:
    f.rewrite(f.day2, set_status(200 + 4), sign="keep")


@forgery
def _status_edited_signatures_stripped(f: Forger) -> None:
    f.rewrite(f.day2, set_status(304), sign=None)


@forgery
def _url_edited_not_rehashed(f: Forger) -> None:
    edit_line(f.day1, index_of(f.entries(f.day1), kind="send", url="/page/1"), b"/page/1", b"/page/9")


@forgery
def _adjacent_lines_swapped(f: Forger) -> None:
    lines = f.lines(f.today)
    at = index_of(f.entries(f.today), kind="send", url="/page/4")
    lines[at], lines[at + 1] = lines[at + 1], lines[at]
    f.write_lines(f.today, lines)


@forgery
def _sends_reordered_renumbered(f: Forger) -> None:
    def edit(entries: list[dict[str, Any]]) -> None:
        a, b = index_of(entries, kind="send", url="/page/1"), index_of(entries, kind="send", url="/page/2")
        entries[a], entries[b] = entries[b], entries[a]

    f.rewrite(f.day1, edit, sign="keep")


@forgery
def _line_duplicated(f: Forger) -> None:
    lines = f.lines(f.today)
    at = index_of(f.entries(f.today), kind="send", url="/page/5")
    f.write_lines(f.today, lines[: at + 1] + [lines[at]] + lines[at + 1 :])


@forgery
def _middle_line_dropped(f: Forger) -> None:
    lines = f.lines(f.day2)
    del lines[len(lines) // 2]
    f.write_lines(f.day2, lines)


@forgery
def _request_dropped_signatures_stripped(f: Forger) -> None:
    f.rewrite(f.today, lambda e: drop_request(e, "/page/4"), sign=None)


@forgery
def _last_line_torn(f: Forger) -> None:
    data = f.today.read_bytes()
    f.today.write_bytes(data[: -len(f.lines(f.today)[-1]) // 2])


@forgery
def _closed_file_cut_at_a_line(f: Forger) -> None:
    f.write_lines(f.day2, f.lines(f.day2)[:5])


@forgery
def _newest_file_cut_to_its_open(f: Forger) -> None:
    f.write_lines(f.newest, f.lines(f.newest)[:1])


@forgery
def _newest_file_emptied(f: Forger) -> None:
    f.newest.write_bytes(b"")


@forgery
def _empty_file_added(f: Forger) -> None:
    (f.journal / f.files[2].rsplit("/", 1)[0] / "99999-235959-000000.jsonl").write_bytes(b"")


@forgery
def _crashed_tail_cut(f: Forger) -> None:
    f.write_lines(f.crashed, f.lines(f.crashed)[:-1])


@forgery
def _crashed_tail_extended(f: Forger) -> None:
    entries = f.entries(f.crashed)
    entries.append({**entries[-1], "url": entries[-1]["url"].replace("/page/6", "/page/66"), "id": "forged"})
    f.write_lines(f.crashed, f.chained(entries))


@forgery
def _float_written_with_a_trailing_zero(f: Forger) -> None:
    line = f.lines(f.day1)[1]
    t = json.loads(line)["t"]
    edit_line(f.day1, 1, f'"t":{t!r}'.encode(), f'"t":{t!r}0'.encode() if "." in repr(t) else f'"t":{t}.0'.encode())


@forgery
def _integer_written_as_float(f: Forger) -> None:
    at = index_of(f.entries(f.day2), kind="outcome", status=200)
    edit_line(f.day2, at, b'"status":200', b'"status":200.0')


@forgery
def _float_written_with_an_exponent(f: Forger) -> None:
    t = f.entries(f.day1)[2]["t"]
    edit_line(f.day1, 2, f'"t":{t!r}'.encode(), f'"t":{t / 1e9!r}e9'.encode())


@forgery
def _trailing_whitespace(f: Forger) -> None:
    lines = f.lines(f.day2)
    lines[3] += b" "
    f.write_lines(f.day2, lines)


@forgery
def _crlf_line_endings(f: Forger) -> None:
    f.today.write_bytes(f.today.read_bytes().replace(b"\n", b"\r\n"))


@forgery
def _byte_order_mark(f: Forger) -> None:
    f.day1.write_bytes(b"\xef\xbb\xbf" + f.day1.read_bytes())


@forgery
def _url_letter_escaped(f: Forger) -> None:  # the same string once parsed: only the bytes differ
    edit_line(f.today, index_of(f.entries(f.today), kind="send", url="/page/5"), b"/page/5", b"/p\\u0061ge/5")


@forgery
def _url_homoglyph_rehashed(f: Forger) -> None:
    def edit(entries: list[dict[str, Any]]) -> None:
        send = entries[index_of(entries, kind="send", url="/page/4")]
        send["url"] = send["url"].replace("/page/4", "/pag\u0435/4")  # a Cyrillic e

    f.rewrite(f.today, edit, sign="keep")


@forgery
def _url_decomposed_rehashed(f: Forger) -> None:
    def edit(entries: list[dict[str, Any]]) -> None:
        send = entries[index_of(entries, kind="send", url="/page/3")]
        send["url"] = send["url"].replace("/page/3", "/pa\u0301ge/3")  # a combining accent, NFD

    f.rewrite(f.day2, edit, sign="keep")


@forgery
def _keys_out_of_order(f: Forger) -> None:
    lines = f.lines(f.day1)
    entry = json.loads(lines[2])
    lines[2] = json.dumps(dict(reversed(entry.items())), separators=(",", ":"), ensure_ascii=False).encode()
    f.write_lines(f.day1, lines)


@forgery
def _not_utf8(f: Forger) -> None:
    edit_line(f.today, index_of(f.entries(f.today), kind="send", url="/page/4"), b"/page/4", b"/pag\xff/4")


@forgery
def _lone_surrogate(f: Forger) -> None:
    edit_line(f.today, index_of(f.entries(f.today), kind="send", url="/page/4"), b"/page/4", b"/page/\\ud800")


@forgery
def _deeply_nested_line(f: Forger) -> None:
    f.newest.write_bytes(f.newest.read_bytes() + b'{"seq":99,"x":' + b"[" * 200000 + b"]" * 200000 + b"}\n")


@forgery
def _huge_line(f: Forger) -> None:
    entries = f.entries(f.crashed)
    entries.append({**entries[-1], "url": "http://open.walsh-demo.test/" + "x" * (8 << 20), "id": "huge"})
    f.write_lines(f.crashed, f.chained(entries))


@forgery
def _seq_as_boolean(f: Forger) -> None:
    edit_line(f.day1, 0, b'"seq":1,', b'"seq":true,')


@forgery
def _after_not_an_object(f: Forger) -> None:
    def edit(entries: list[dict[str, Any]]) -> None:
        entries[0]["after"] = entries[0]["after"]["file"]

    f.rewrite(f.today, edit, sign=None)


@forgery
def _old_day_replayed(f: Forger) -> None:
    shutil.copy(f.day1, f.today.with_name("1-235959-abcdef.jsonl"))


@forgery
def _newest_replaced_by_oldest(f: Forger) -> None:
    shutil.copy(f.day1, f.newest)


@forgery
def _middle_file_deleted(f: Forger) -> None:
    f.day2.unlink()


@forgery
def _newest_file_deleted(f: Forger) -> None:
    f.newest.unlink()


@forgery(key=False)
def _newest_file_and_tip_line_deleted(f: Forger) -> None:
    f.newest.unlink()
    f.tip.write_text(f.tip.read_text().replace(f.files[5], f.files[4]))


@forgery
def _chain_tip_names_a_missing_file(f: Forger) -> None:
    f.tip.write_text(f.tip.read_text().replace(f.files[5], f.files[5].replace(".jsonl", "-gone.jsonl")))


@forgery
def _foreign_machine_spliced(f: Forger) -> None:
    for path in foreign_journal(f.journal.parent / "foreign", f.other, "other-host"):
        shutil.copy(path, f.newest.with_name(path.name))


@forgery
def _foreign_identity_with_our_machine(f: Forger) -> None:
    made = foreign_journal(f.journal.parent / "foreign", f.other, f.entries(f.day1)[0]["machine"], "SomeoneElse")
    for path in made:
        shutil.copy(path, f.newest.with_name(path.name))


@forgery
def _unsigned_file_continues_ours(f: Forger) -> None:
    f.append_file(f.files[2].rsplit("/", 1)[0] + "/1-235959-f0f0f0.jsonl", [], sign=None)


@forgery
def _file_signed_by_another_key_continues_ours(f: Forger) -> None:
    sends = [e for e in f.entries(f.today) if e["kind"] in ("send", "outcome")]
    f.append_file(f.files[2].rsplit("/", 1)[0] + "/1-235959-f1f1f1.jsonl", sends, sign=f.other)


@forgery
def _second_chain_start_with_our_chain_id(f: Forger) -> None:
    path = f.append_file(f.files[2].rsplit("/", 1)[0] + "/1-235959-f2f2f2.jsonl", [], sign=f.other)
    entries = f.entries(path)
    entries[0]["after"] = None
    f.write_lines(path, f.chained(entries, sign=f.other))


@forgery
def _head_signed_by_another_key(f: Forger) -> None:
    entries = f.entries(f.day2)
    body = {k: v for k, v in entries[-1].items() if k != "sig"}
    entries[-1]["sig"] = webbotauth.sign_record(f.other, body)
    f.write_lines(f.day2, [canonical_json(e) for e in entries])
    f.rewrite(f.day2, lambda e: None, sign="keep")


@forgery
def _our_keyid_another_keys_signature(f: Forger) -> None:
    entries = f.entries(f.day2)
    body = {k: v for k, v in entries[-1].items() if k != "sig"}
    entries[-1]["sig"] = {**entries[-1]["sig"], "signature": webbotauth.sign_record(f.other, body)["signature"]}
    f.write_lines(f.day2, [canonical_json(e) for e in entries])


@forgery
def _signature_algorithm_renamed(f: Forger) -> None:
    def edit(entries: list[dict[str, Any]]) -> None:
        entries[-1]["sig"]["alg"] = "EdDSA"

    f.rewrite(f.day1, edit, sign="keep")


@forgery
def _closed_file_stripped_of_close_and_head(f: Forger) -> None:
    f.rewrite(f.day1, strip_close, sign="keep")


@forgery
def _recovery_edited(f: Forger) -> None:
    def edit(entries: list[dict[str, Any]]) -> None:
        entries[index_of(entries, kind="recovery")]["from"] = 3

    f.rewrite(f.recovering, edit, sign="keep")


@forgery
def _recovery_claimed_twice(f: Forger) -> None:
    recovery = f.entries(f.recovering)[index_of(f.entries(f.recovering), kind="recovery")]
    f.append_file(f.files[5].rsplit("/", 1)[0] + "/1-235959-f3f3f3.jsonl", [recovery], sign=f.key)


@forgery
def _recovery_claims_more_than_the_file_holds(f: Forger) -> None:
    def edit(entries: list[dict[str, Any]]) -> None:
        entries[index_of(entries, kind="recovery")]["to"] += 3

    f.rewrite(f.recovering, edit, sign=f.key)


@forgery(key=False)
def _recovery_forged_over_a_closed_file(f: Forger) -> None:
    """Our key: a closed file stripped of its close and last head, then vouched for as a crash's tail."""
    f.rewrite(f.day2, strip_close, sign=f.key)
    entries = f.entries(f.day2)
    forged = {"kind": "recovery", "t": entries[-1]["t"] + 5, "pid": 1, "file": f.files[1], "from": 1, "sig": {}}
    forged |= {"to": len(entries), "head": line_hash(f.lines(f.day2)[-1]), "crashed": entries[-1]["t"], "torn": False}
    f.rewrite(f.today, lambda e: e.insert(1, forged), sign=f.key)


@forgery
def _retention_hides_a_middle_day(f: Forger) -> None:
    """Our key: a retention entry says the day before yesterday's folder was deleted; yesterday's was."""
    retention = {"kind": "retention", "t": time.time(), "pid": 1, "days": 1, "deleted_days": [f.files[1][:10]]}
    shutil.rmtree(f.day2.parent)
    f.append_file(f.files[5].rsplit("/", 1)[0] + "/1-235959-f4f4f4.jsonl", [retention], sign=f.key)


@forgery
def _retention_claims_a_recent_day(f: Forger) -> None:
    """Our key: a 90-day retention says it deleted yesterday."""
    retention = {"kind": "retention", "t": time.time(), "pid": 1, "days": 90, "deleted_days": [f.files[1][:10]]}
    shutil.rmtree(f.day2.parent)
    f.append_file(f.files[5].rsplit("/", 1)[0] + "/1-235959-f5f5f5.jsonl", [retention], sign=f.key)


@forgery
def _unsigned_retention_excuses_a_deleted_day(f: Forger) -> None:
    retention = {"kind": "retention", "t": time.time(), "pid": 1, "days": 1, "deleted_days": [f.files[1][:10]]}
    shutil.rmtree(f.day2.parent)
    f.append_file(f.files[5].rsplit("/", 1)[0] + "/1-235959-f6f6f6.jsonl", [retention], sign=None)


@forgery(key=False)
def _published_previous_changed(f: Forger) -> None:
    document = f.heads()
    document["heads"][2]["previous"] = "0" * 64
    f.publish(document)


@forgery(key=False)
def _published_head_removed(f: Forger) -> None:
    document = f.heads()
    del document["heads"][1]
    f.publish(document)


@forgery(key=False)
def _published_head_removed_relinked(f: Forger) -> None:
    document = f.heads()
    del document["heads"][1]
    f.publish(document, relink=True)


@forgery
def _published_head_and_its_file_removed_relinked(f: Forger) -> None:
    _published_head_removed_relinked(f)
    f.day2.unlink()


@forgery(key=False)
def _published_heads_swapped(f: Forger) -> None:
    document = f.heads()
    document["heads"][0], document["heads"][1] = document["heads"][1], document["heads"][0]
    f.publish(document)


@forgery(key=False)
def _published_heads_swapped_relinked(f: Forger) -> None:
    document = f.heads()
    document["heads"][0], document["heads"][1] = document["heads"][1], document["heads"][0]
    f.publish(document, relink=True)


@forgery(key=False)
def _published_heads_moved_and_restamped(f: Forger) -> None:
    """The newest head moved first and stamped with its own signing time: the stamps in order again."""
    document = f.heads()
    heads = [document["heads"][-1], *document["heads"][:-1]]
    heads[0]["published"] = heads[0]["entry"]["t"]
    document["heads"] = heads
    f.publish(document, relink=True)


@forgery(key=False)
def _published_head_stamped_before_it_was_signed(f: Forger) -> None:
    document = f.heads()
    document["heads"][1]["published"] = document["heads"][1]["entry"]["t"] - 3600
    f.publish(document, relink=True)


@forgery(key=False)
def _published_head_claims_more_entries(f: Forger) -> None:
    document = f.heads()
    document["heads"][0]["seq"] += 4
    document["heads"][0]["entry"]["seq"] += 4
    document["heads"][0]["hash"] = line_hash(canonical_json(document["heads"][0]["entry"]))
    f.publish(document, relink=True)


def _published_newest_head_dropped_with_its_file(f: Forger) -> None:
    """Our key: the newest file, its chain tip line and its published head gone: a consistent older state."""
    _newest_file_and_tip_line_deleted(f)
    document = f.heads()
    document["heads"] = [h for h in document["heads"] if h["file"] != f.files[5]]
    # relinked: heads are published in name order, and a newer pid may sort first (9720 after 10464)
    f.publish(document, relink=True)


@forgery(key=False)
def _published_head_is_nan(f: Forger) -> None:
    text = (f.public / HEADS).read_text()
    (f.public / HEADS).write_text(text.replace('"pid": ', '"pid": NaN, "was": ', 1))


@forgery(key=False)
def _published_document_deeply_nested(f: Forger) -> None:
    document = (f.public / HEADS).read_text()
    (f.public / HEADS).write_text(document.rstrip()[:-1] + ', "x": ' + "[" * 200000 + "]" * 200000 + "}")


@forgery(key=False)
def _publication_time_before_its_heads(f: Forger) -> None:
    document = f.heads()
    document["published"] = document["heads"][0]["entry"]["t"] - 86400
    f.publish(document)


@forgery
def _key_directory_two_keys_newest_resigned_by_the_second(f: Forger) -> None:
    directory = json.loads((f.public / DIRECTORY).read_text())
    directory["keys"] += webbotauth.directory([f.other])["keys"]
    (f.public / DIRECTORY).write_text(json.dumps(directory))
    f.rewrite(f.newest, set_status(500), sign=f.other)


@forgery(key=False)
def _key_directory_kid_not_its_thumbprint(f: Forger) -> None:
    directory = json.loads((f.public / DIRECTORY).read_text())
    directory["keys"][0]["x"] = webbotauth.directory([f.other])["keys"][0]["x"]
    (f.public / DIRECTORY).write_text(json.dumps(directory))


@forgery(key=False)
def _key_expired_before_the_entries(f: Forger) -> None:
    directory = json.loads((f.public / DIRECTORY).read_text())
    directory["keys"][0]["exp"] = int(f.entries(f.day1)[0]["t"]) - 86400
    (f.public / DIRECTORY).write_text(json.dumps(directory))


@forgery(key=False)
def _key_not_yet_valid_at_the_entries(f: Forger) -> None:
    directory = json.loads((f.public / DIRECTORY).read_text())
    directory["keys"][0]["nbf"] = int(time.time()) + 86400
    (f.public / DIRECTORY).write_text(json.dumps(directory))


def forged_copy(made: dict[str, Any], where: Path) -> Forger:
    """A copy of the journal and its publication to forge, with our key and another."""
    shutil.copytree(made["journal"], where / "journal")
    shutil.copytree(made["public"], where / "public")
    keys = [webbotauth.load_private_key(made[name]) for name in ("key", "other")]
    return Forger(where / "journal", where / "public", *keys, made["files"])


def forged(made: dict[str, Any], where: Path, name: str) -> Forger:
    forger = forged_copy(made, where)
    FORGERIES[name][0](forger)
    return forger


def scrapy_verify(*args: Any, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scrapy", "walsh", "journal", "verify", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def standalone(single: Path, *args: Any, cwd: Path) -> subprocess.CompletedProcess:
    """The one file handed out, run where neither Scrapy nor Twisted can be imported."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    block = "import sys, runpy; sys.modules.update(scrapy=None, twisted=None, scrapy_walsh=None); "
    code = block + f"sys.argv = [{str(single)!r}, *sys.argv[1:]]; runpy.run_path({str(single)!r}, run_name='__main__')"
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env, timeout=300
    )


def failures(out: str) -> list[str]:
    return sorted(line for line in out.splitlines() if line.startswith("FAILED"))


def verdicts(made: dict[str, Any], where: Path) -> dict[str, tuple[subprocess.CompletedProcess, ...]]:
    """Each check a site owner runs: (ours, the standalone file) for --key, --published, and no key."""
    journal, pub = where / "journal", f"{made['key']}.pub"
    runs = {"key": [journal, "--key", pub], "published": [journal, "--published", where / "public"], "none": [journal]}
    return {
        mode: (scrapy_verify(*args, cwd=where), standalone(made["single"], *args, cwd=where))
        for mode, args in runs.items()
    }


def test_the_real_journal_and_its_publication_verify(made, tmp_path):
    forger = Forger(made["journal"], made["public"], None, None, made["files"])
    assert "recovery" in {e["kind"] for e in forger.entries(forger.recovering)}
    for mode, (ours, theirs) in verdicts(made, made["tmp"]).items():
        assert ours.returncode == theirs.returncode == 0, (
            mode,
            ours.stdout + ours.stderr,
            theirs.stdout + theirs.stderr,
        )
        assert ours.stdout == theirs.stdout and ("recovered after a crash" in ours.stdout or mode == "none")


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_a_forgery_fails_every_check_and_both_verifiers_agree(made, tmp_path, name):
    forged(made, tmp_path, name)
    found = verdicts(made, tmp_path)
    for mode, (ours, theirs) in found.items():
        for run in (ours, theirs):
            assert "Traceback" not in run.stderr and run.returncode in (0, 1), (mode, run.stderr[-3000:])
        assert ours.returncode == theirs.returncode, (mode, ours.stdout, theirs.stdout + theirs.stderr)
        assert failures(ours.stdout) == failures(theirs.stdout), (mode, ours.stdout, theirs.stdout)
    ours, _ = found["published"]
    assert ours.returncode == 1 and failures(ours.stdout), ours.stdout
    ours, _ = found["key"]
    if FORGERIES[name][1]:
        assert ours.returncode == 1 and failures(ours.stdout), ours.stdout


def test_the_newest_file_its_tip_line_and_its_published_head_deleted_only_a_saved_copy_or_the_log_reveals(
    made, tmp_path
):
    """The limit docs/publishing.md states: an older state that agrees with itself passes the
    journal and its publication; the site owner's saved copy of the heads and its own access log don't."""
    saved = tmp_path / "saved-heads.json"
    shutil.copy(made["public"] / HEADS, saved)
    forger = forged_copy(made, tmp_path)
    _published_newest_head_dropped_with_its_file(forger)
    published = [forger.journal, "--published", forger.public]
    for ours, theirs in [(scrapy_verify(*args, cwd=tmp_path), standalone(made["single"], *args, cwd=tmp_path))
                         for args in (published, [*published, "--saved", saved])]:  # fmt: skip
        assert ours.returncode == theirs.returncode and failures(ours.stdout) == failures(theirs.stdout)
    alone, with_copy = (
        scrapy_verify(*published, cwd=tmp_path),
        scrapy_verify(*published, "--saved", saved, cwd=tmp_path),
    )
    assert alone.returncode == 0, alone.stdout  # the limit: nothing inside says the end was cut
    assert with_copy.returncode == 1 and "was dropped or changed since" in with_copy.stdout, with_copy.stdout
    match = [
        "walsh",
        "journal",
        "match",
        "--host",
        HOST,
        "--journal",
        str(forger.journal),
        "--key",
        f"{made['key']}.pub",
    ]
    for log in ("access.log", "signed.log"):
        matched = run_scrapy([*match, str(made["tmp"] / log)], cwd=tmp_path)
        assert matched.returncode == 1, matched.stdout + matched.stderr
        missing = matched.stdout.split("are NOT in the journal")[1].split("requests the journal holds")[0]
        assert "/page/8" in missing and "/page/7" not in missing, matched.stdout
    # the JSON log carries each request's signature: the site owner sees it is ours
    kid = webbotauth.keyid(webbotauth.load_private_key(made["key"]))
    assert f"its signature verifies under our key {kid}: we sent it, and the journal does not hold it" in missing


def test_a_reordered_publication_relinked_is_caught_by_the_saved_copy(made, tmp_path):
    saved = tmp_path / "saved-heads.json"
    shutil.copy(made["public"] / HEADS, saved)
    forger = forged_copy(made, tmp_path)
    _published_heads_swapped_relinked(forger)
    result = scrapy_verify(forger.journal, "--published", forger.public, "--saved", saved, cwd=tmp_path)
    assert result.returncode == 1 and "head 1 " in result.stdout, result.stdout


@pytest.mark.parametrize("deleted", ["newest", "middle"])
def test_a_republish_after_a_deletion_is_refused_and_writes_nothing(made, tmp_path, deleted):
    forger = forged_copy(made, tmp_path)
    if deleted == "newest":
        _newest_file_and_tip_line_deleted(forger)
    else:
        _middle_file_deleted(forger)
    before = (forger.public / HEADS).read_bytes()
    again = run_scrapy(
        ["walsh", "publish", str(forger.public), "--key", str(made["key"]), "--journal", str(forger.journal)],
        cwd=tmp_path,
    )
    assert again.returncode == 1 and again.stderr.startswith("error: "), again.stdout + again.stderr
    assert "Traceback" not in again.stderr and (forger.public / HEADS).read_bytes() == before


#: A send our own key signed, with a field no writer writes: each crashed show, report or match.
HOSTILE_SENDS = {
    "url_not_a_string": {"url": 5},
    "id_a_list": {"id": [1]},
    "robots_a_string": {"robots": "x"},
    "url_unreadable": {"url": "http://[::1/page/4"},
}


@pytest.mark.parametrize("name", sorted(HOSTILE_SENDS))
def test_a_signed_send_with_a_field_no_writer_writes_fails_verify_and_crashes_no_reader(made, tmp_path, name):
    forger = forged_copy(made, tmp_path)

    def edit(entries: list[dict[str, Any]]) -> None:
        entries[index_of(entries, kind="send", url="/page/4")].update(HOSTILE_SENDS[name])

    forger.rewrite(forger.today, edit, sign=forger.key)
    key = ["--journal", forger.journal, "--key", f"{made['key']}.pub"]
    verified = scrapy_verify(forger.journal, "--key", f"{made['key']}.pub", cwd=tmp_path)
    if name != "url_unreadable":  # a string that is no URL is the format's; the readers must bear it
        assert verified.returncode == 1 and "FAILED" in verified.stdout, verified.stdout
    for action in (
        ["show", "--requests"],
        ["report", "--html", tmp_path / "r.html"],
        ["match", made["tmp"] / "signed.log"],
    ):
        done = run_scrapy(
            ["walsh", "journal", action[0], "--host", HOST, *map(str, key), *map(str, action[1:])], cwd=tmp_path
        )
        assert done.returncode in (0, 1) and "Traceback" not in done.stderr, (action, done.stderr[-2000:])
