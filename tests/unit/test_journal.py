"""The request journal's chain, signatures, fsync budget, retention and a real kill -9."""

from __future__ import annotations

import datetime
import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scrapy_walsh.identity import webbotauth
from scrapy_walsh.journal import reading
from scrapy_walsh.journal.chain import Chain, journal_files, verify_path
from scrapy_walsh.journal.report import banner
from scrapy_walsh.journal.writer import JournalWriter

DAY = datetime.datetime(2026, 11, 24, 10, 0, tzinfo=datetime.timezone.utc).timestamp()


class Clock:
    def __init__(self, t: float = DAY, step: float = 0.0):
        self.t, self.step = t, step

    def __call__(self) -> float:
        self.t += self.step
        return self.t


def send(writer: JournalWriter, i: int, host: str = "a.test") -> None:
    writer.append(
        "send",
        method="GET",
        url=f"http://{host}/p/{i}",
        host=host,
        ua="UA",
        settled=writer.clock() + 0.01,
        interval={"seconds": 1, "by": "floor"},
        robots={"verdict": "allowed_explicit", "digest": "sha256:00"},
        status=200,
        bytes=10,
    )


def keys_of(key):
    return {webbotauth.keyid(key): key.public_key()}


@pytest.fixture
def key():
    return webbotauth.generate_key()


@pytest.fixture
def journal(tmp_path, key):
    writer = JournalWriter(tmp_path / "j", "Walsh-Research", key=key, sign_every=4, clock=Clock(step=1.0))
    for i in range(10):
        send(writer, i)
    writer.close()
    (path,) = journal_files(tmp_path / "j")
    return path


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def test_an_untouched_journal_verifies_with_its_signed_heads(journal, key):
    report = verify_path(journal.parent.parent, keys_of(key))
    assert report.ok, report.first_problem()
    (f,) = report.files
    assert f.keyids == {webbotauth.keyid(key)} and f.unsigned_tail == 0
    kinds = [json.loads(x)["kind"] for x in lines(journal)]
    assert kinds[0] == "open" and kinds[-2:] == ["close", "head"] and kinds.count("head") >= 3
    assert all("pid" in json.loads(x) for x in lines(journal))


def test_one_edited_byte_breaks_the_chain_at_the_next_entry(journal, key):
    data = bytearray(journal.read_bytes())
    at = data.index(b"/p/3") + 3
    data[at] = ord("7")  # /p/3 -> /p/7: still valid, canonical JSON
    journal.write_bytes(bytes(data))
    problem = verify_path(journal, keys_of(key)).first_problem()
    assert problem is not None and "prev is not the hash of entry" in problem, problem


def test_an_edit_of_the_last_signed_entry_fails_its_signature(journal, key):
    rows = lines(journal)
    last = json.loads(rows[-1])
    last["t"] += 1
    rows[-1] = webbotauth.canonical_json(last) + b"\n"
    journal.write_bytes(b"".join(rows))
    assert "signature" in (verify_path(journal, keys_of(key)).first_problem() or "")


def test_one_deleted_entry_is_named(journal, key):
    rows = lines(journal)
    seq = json.loads(rows[4])["seq"]
    del rows[4]
    journal.write_bytes(b"".join(rows))
    problem = verify_path(journal, keys_of(key)).first_problem()
    assert problem == f"{journal.name}, line 5: entry {seq} is missing before entry {seq + 1} (deleted)"


def test_deleting_the_closing_signed_head_is_found(journal, key):
    rows = lines(journal)
    journal.write_bytes(b"".join(rows[:-1]))  # the last line: the head signed after close
    problem = verify_path(journal, keys_of(key)).first_problem()
    assert problem is not None and "without the signed head that follows close" in problem


def test_two_swapped_entries_are_named(journal, key):
    rows = lines(journal)
    rows[4], rows[5] = rows[5], rows[4]
    journal.write_bytes(b"".join(rows))
    problem = verify_path(journal, keys_of(key)).first_problem()
    seq = json.loads(rows[5])["seq"]
    assert problem == f"{journal.name}, line 5: entry {seq + 1} comes before entry {seq} (entries reordered)", problem


def edit_byte(rows: list[bytes]) -> list[bytes]:
    rows[3] = rows[3].replace(b"/p/", b"/q/")
    return rows


def delete_entry(rows: list[bytes]) -> list[bytes]:
    del rows[3]
    return rows


def swap_entries(rows: list[bytes]) -> list[bytes]:
    rows[3], rows[4] = rows[4], rows[3]
    return rows


@pytest.mark.parametrize(
    "tamper, named",
    [
        (edit_byte, "line 5: entry 5's prev is not the hash of entry 4"),
        (delete_entry, "line 4: entry 4 is missing before entry 5 (deleted)"),
        (swap_entries, "line 4: entry 5 comes before entry 4 (entries reordered)"),
    ],
)
def test_the_verify_command_exits_1_naming_the_first_broken_entry(journal, key, tmp_path, tamper, named):
    pem = tmp_path / "k.pub"
    pem.write_bytes(webbotauth.public_pem(key))
    cmd = [sys.executable, "-m", "scrapy", "walsh", "journal", "verify", str(journal.parent.parent), "--key", str(pem)]
    ok = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert ok.returncode == 0 and "chain intact" in ok.stdout, ok.stderr
    journal.write_bytes(b"".join(tamper(lines(journal))))
    bad = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 1 and named in bad.stdout, bad.stdout + bad.stderr


FLEET = """
import sys
from scrapy_walsh.journal.writer import JournalWriter
w = JournalWriter(sys.argv[1], "W")
for i in range(300):
    w.append("send", method="GET", url=f"http://a.test/{i}", host="a.test", status=200, bytes=i)
w.close()
"""


def test_a_fleet_writes_one_journal_per_process_each_entry_naming_its_pid(tmp_path):
    procs = [subprocess.Popen([sys.executable, "-c", FLEET, str(tmp_path)]) for _ in range(3)]
    pids = {p.pid for p in procs}
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0]
    files = journal_files(tmp_path)
    report = verify_path(tmp_path, None)
    assert len(files) == 3 and report.ok, report.first_problem()
    # opened at once, under the chain's lock: one chain of three files on this machine
    assert [len(roots) for roots in report.chains.values()] == [1]
    for f in files:
        found = {json.loads(x)["pid"] for x in lines(f)}
        assert len(found) == 1 and found <= pids and f.name.startswith(f"{found.pop()}-")


@pytest.mark.parametrize("step, count, most", [(0.0, 1000, 10), (0.001, 1000, 10), (0.5, 200, 100)])
def test_at_most_one_fsync_per_100_entries_or_per_second(tmp_path, monkeypatch, step, count, most):
    calls = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd))[1])
    clock = Clock(step=step)
    writer = JournalWriter(tmp_path, "W", clock=clock)
    start = clock.t
    for i in range(count):
        send(writer, i)
    seconds = clock.t - start
    file_syncs = len(calls)
    # the file's fsyncs (the directory's and the chain tip's at open aside): within the budget, counted
    assert writer.fsyncs <= max(most, int(seconds) + 1) + 1
    assert writer.fsyncs >= (count // 100 if step < 0.01 else 1)
    assert file_syncs <= writer.fsyncs + 2


def test_days_rotate_and_link_and_a_missing_day_is_found(tmp_path, key):
    clock = Clock(t=DAY + 14 * 3600 - 8, step=1.0)  # crosses midnight UTC
    writer = JournalWriter(tmp_path, "W", key=key, clock=clock)
    for i in range(6):
        send(writer, i)
    writer.close()
    files = journal_files(tmp_path)
    assert [f.parent.name for f in files] == ["2026-11-24", "2026-11-25"]
    assert verify_path(tmp_path, keys_of(key)).ok
    files[0].unlink()
    problem = verify_path(tmp_path, keys_of(key)).first_problem()
    assert problem is not None and "missing" in problem


def test_retention_deletes_whole_old_days_and_records_it(tmp_path, key):
    for day in ("2026-01-01", "2026-08-01", "2026-11-20"):
        (tmp_path / day).mkdir()
        (tmp_path / day / "1-000000-aaaaaa.jsonl").write_bytes(b"")
    writer = JournalWriter(tmp_path, "W", key=key, retention_days=90, clock=Clock())
    send(writer, 1)
    writer.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".chains", "2026-11-20", "2026-11-24"]
    entries = [json.loads(x) for f in journal_files(tmp_path / "2026-11-24") for x in lines(f)]
    (kept,) = [e for e in entries if e["kind"] == "retention"]
    assert kept["deleted_days"] == ["2026-01-01", "2026-08-01"] and kept["days"] == 90


KILLED = """
import sys, time
from scrapy_walsh.identity import webbotauth
from scrapy_walsh.journal.writer import JournalWriter
w = JournalWriter(sys.argv[1], "W", key=webbotauth.load_private_key(sys.argv[2]), sign_every=50)
i = 0
while True:
    i += 1
    w.append("send", method="GET", url=f"http://a.test/{i}", host="a.test", status=200, bytes=i)
"""


def _killed_mid_write(directory: Path, pem: Path) -> None:
    """A writer appending as fast as it can, SIGKILLed once its file is past 200 KB."""
    proc = subprocess.Popen([sys.executable, "-c", KILLED, str(directory), str(pem)])
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = journal_files(directory) if directory.exists() else []
            if found and found[0].stat().st_size > 200_000:
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL


def test_kill_9_loses_at_most_the_tail_and_what_remains_verifies(tmp_path, key):
    pem = tmp_path / "k.pem"
    pem.write_bytes(webbotauth.private_pem(key))
    # a kill that lands right after a signed head leaves no unsigned tail (about one run in fifty):
    # the chain must verify then too, and the next kill is tried for the tail's report
    for attempt in range(5):
        journal = tmp_path / f"j{attempt}"
        _killed_mid_write(journal, pem)
        report = verify_path(journal, None)  # the chain: intact up to the torn line
        assert report.ok, report.first_problem()
        (f,) = report.files
        assert f.entries > 500
        (signed,) = verify_path(journal, keys_of(key)).files
        tail = signed.seq - signed.signed_seq
        if tail:
            break
    # with the key, the crash's unsigned tail is a failure that says its size, never "ok"
    assert signed.signed_seq > 0 and 0 < tail <= 50 and signed.broken is not None
    assert f"({tail} entries) are not covered by a head the key signed" in signed.broken[2]


def test_match_pairs_log_lines_and_flags_both_kinds_of_gap():
    sends = [
        {
            "kind": "send",
            "t": DAY + i,
            "settled": DAY + i + 0.1,
            "method": "GET",
            "url": f"http://a.test/p/{i}",
            "seq": i,
        }
        for i in range(3)
    ]
    view = reading.HostView("a.test", sends=sends)
    stamp = datetime.datetime.fromtimestamp(DAY, datetime.timezone.utc).strftime("%d/%b/%Y:%H:%M:%S +0000")
    log = [
        f'127.0.0.1 - - [{stamp}] "GET /p/0 HTTP/1.1" 200 5 "-" "UA"',
        f'127.0.0.1 - - [{stamp}] "GET /p/1 HTTP/1.1" 200 5 "-" "UA"',
        f'127.0.0.1 - - [{stamp}] "GET /admin HTTP/1.1" 200 5 "-" "UA"',
        f'127.0.0.1 - - [{stamp}] "GET /p/2 HTTP/1.1" 200 5 "-" "Other \\"quoted\\""',
        "garbage",
    ]
    parsed, bad = reading.parse_access_log(log)
    assert bad == 1 and parsed[3].ua == 'Other "quoted"'
    result = reading.match(view, parsed, "UA")
    assert [x.target for x in result.not_in_journal] == ["/admin"]
    assert [e["seq"] for e in result.not_in_log] == [2]
    assert len(result.matched) == 2 and result.other_agents == 1


def _pub(key, tmp_path: Path) -> Path:
    pem = tmp_path / "k.pub"
    pem.write_bytes(webbotauth.public_pem(key))
    return pem


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scrapy", "walsh", "journal", *map(str, args)], capture_output=True, text=True
    )


def test_a_torn_line_after_a_signed_close_fails_verify_and_show_does_not_count_it(journal, key, tmp_path):
    directory = journal.parent.parent
    report, view = reading.read_journal(directory, keys_of(key), "a.test")
    assert report.ok and len(view.sends) == 10
    # a forged request appended after the signed close, without its newline (as a torn line looks)
    last = json.loads(lines(journal)[-1])
    forged = {"kind": "send", "t": last["t"], "method": "GET", "url": "http://a.test/p/0", "host": "a.test"}
    with journal.open("ab") as f:
        f.write(webbotauth.canonical_json({**forged, "seq": last["seq"] + 1, "prev": "0" * 64}))
    for keys in (keys_of(key), None):
        report, view = reading.read_journal(directory, keys, "a.test")
        assert not report.ok and "follows the close of the file" in (report.first_problem() or "")
        assert len(view.sends) == 10
    verified = _cli("verify", directory, "--key", _pub(key, tmp_path))
    assert verified.returncode == 1 and "FAILED" in verified.stdout, verified.stdout + verified.stderr
    shown = _cli("show", "--host", "a.test", "--journal", directory, "--key", _pub(key, tmp_path))
    assert "FAILED" in shown.stdout and "  10 requests" in shown.stdout, shown.stdout + shown.stderr


def test_an_entry_after_close_fails_even_with_a_whole_line(journal, key):
    rows = lines(journal)
    last = json.loads(rows[-1])
    chain = Chain(last["seq"], verify_path(journal, None).files[0].head)
    rows.append(chain.line({"kind": "send", "t": last["t"], "host": "a.test", "url": "http://a.test/x"}) + b"\n")
    journal.write_bytes(b"".join(rows))
    for keys in (keys_of(key), None):
        assert "follows the close of the file" in (verify_path(journal, keys).first_problem() or "")


def test_a_chain_rebuilt_without_its_signatures_fails_with_the_key(journal, key, tmp_path):
    entries = [json.loads(x) for x in lines(journal)]
    entries = [e for e in entries if "sig" not in e and e["kind"] != "close"]  # drop signed heads and close
    entries[3]["url"] = "http://a.test/forged"
    chain = Chain()
    rebuilt = [chain.line({k: v for k, v in e.items() if k not in ("seq", "prev")}) + b"\n" for e in entries]
    journal.write_bytes(b"".join(rebuilt))
    assert verify_path(journal, None).ok  # a chain anyone can rebuild: it proves no author
    problem = verify_path(journal, keys_of(key)).first_problem() or ""
    assert f"entries 1 to {len(entries)} ({len(entries)} entries) are not covered by a head the key signed" in problem
    verified = _cli("verify", journal.parent.parent, "--key", _pub(key, tmp_path))
    assert verified.returncode == 1 and "not covered by a head the key signed" in verified.stdout
    unkeyed = banner(verify_path(journal, None), None)
    assert unkeyed.state == "unverified" and "no signature was checked" in unkeyed.words


def _three_crawls(directory: Path, key) -> list[Path]:
    """Three crawls of one identity on this machine, one after the other: three chained files."""
    for run in range(3):
        writer = JournalWriter(directory, "W", key=key, clock=Clock(t=DAY + run * 3600, step=1.0))
        for i in range(3):
            send(writer, i)
        writer.close()
    files = sorted(journal_files(directory), key=lambda p: json.loads(p.read_bytes().split(b"\n")[0])["t"])
    assert len(files) == 3
    return files


def test_files_of_one_identity_form_one_chain_across_processes(tmp_path, key):
    files = _three_crawls(tmp_path, key)
    report = verify_path(tmp_path, keys_of(key))
    assert report.ok, report.first_problem()
    (machine,) = report.chains
    assert report.chains[machine] == [str(files[0].relative_to(tmp_path))]
    afters = [json.loads(p.read_bytes().split(b"\n")[0])["after"] for p in files]
    assert afters[0] is None and [a["file"] for a in afters[1:]] == [str(p.relative_to(tmp_path)) for p in files[:2]]
    assert "1 chain(s)" in banner(report, "--key walsh.pub").words


@pytest.mark.parametrize("which", [0, 1, 2])
def test_a_whole_file_deleted_fails_verify_on_the_directory(tmp_path, key, which):
    files = _three_crawls(tmp_path, key)
    files[which].unlink()
    problem = verify_path(tmp_path, keys_of(key)).first_problem()
    assert problem is not None and "missing (deleted)" in problem and files[which].name in problem, problem


def test_a_whole_file_replaced_or_two_files_swapped_fails_verify(tmp_path, key):
    files = _three_crawls(tmp_path / "j", key)
    replacement = _three_crawls(tmp_path / "other", key)[1]  # a whole, signed file of the same identity
    original = files[1].read_bytes()
    files[1].write_bytes(replacement.read_bytes())
    links = verify_path(tmp_path / "j", keys_of(key)).links
    assert any(files[2].name in link and "does not hold" in link for link in links), links
    files[1].write_bytes(files[0].read_bytes())
    files[0].write_bytes(original)  # the first two swapped
    assert verify_path(tmp_path / "j", keys_of(key)).first_problem() is not None


def test_an_append_never_waits_for_the_disk_and_close_waits_for_every_fsync(tmp_path, monkeypatch):
    # a disk that takes 0.3 s per fsync (a cloud disk under writeback does): the crawl's next
    # request must not wait behind it, since the batched fsync only guards against a power cut
    synced = []
    real = os.fsync

    def slow_fsync(fd):
        time.sleep(0.3)
        real(fd)
        synced.append(fd)

    writer = JournalWriter(tmp_path, "W", sync_every=10)
    writer.append("start")  # the file's own fsyncs at open (file, directory, chain tip) stay in line
    monkeypatch.setattr(os, "fsync", slow_fsync)
    slowest = 0.0
    for i in range(50):
        began = time.perf_counter()
        send(writer, i)
        slowest = max(slowest, time.perf_counter() - began)
    assert writer.fsyncs >= 5
    assert slowest < 0.1
    writer.close()
    # close returns once every fsync asked for has run, its own last
    assert len(synced) == writer.fsyncs - 1 and synced[-1] == synced[0]
    assert verify_path(tmp_path, None).ok


def test_an_fsync_the_disk_refuses_is_an_error_of_the_next_one(tmp_path, monkeypatch):
    # the adapter stops the crawl on the writer's OSError: a failing disk still stops it, one
    # batch later, when the fsync that failed was in the writer's thread
    def refused(fd):
        raise OSError(errno.EIO, "the disk refused")

    writer = JournalWriter(tmp_path, "W", sync_every=10)
    writer.append("start")
    monkeypatch.setattr(os, "fsync", refused)
    with pytest.raises(OSError, match="refused"):
        for i in range(100):
            send(writer, i)
            time.sleep(0.001)
    with pytest.raises(OSError, match="refused"):
        writer.sync()
