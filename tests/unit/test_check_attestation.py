"""The live attestation's judge, on server logs built by hand: each MUST, kept and broken."""

from __future__ import annotations

import pytest

from demo_site.hosts import BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH
from scrapy_walsh.conformance.attestation import judge
from scrapy_walsh.settings import USER_AGENT


def rec(t, key, path, status=200, ua=USER_AGENT, in_flight=1):
    return {
        "mono": t,
        "host_key": key,
        "path": path,
        "status": status,
        "in_flight": in_flight,
        "headers": {"User-Agent": ua},
    }


def conformant_log():
    """What a conformant probe crawl looks like from the server (times in seconds)."""
    return [
        rec(0.0, "ops", BLOCKLIST_SCHEMA_PATH),
        rec(1.01, "ops", BLOCKLIST_PATH),
        rec(1.03, "open", "/robots.txt"),
        rec(1.04, "named", "/robots.txt"),
        rec(1.05, "slow", "/robots.txt"),
        rec(1.06, "busy", "/robots.txt"),
        rec(2.04, "open", "/page/1"),
        rec(2.05, "named", "/members/join"),
        rec(2.07, "busy", "/limited", status=429),
        rec(3.06, "slow", "/page/1"),
        rec(3.05, "open", "/page/2"),
        rec(4.06, "open", "/page/3"),
        rec(5.07, "slow", "/page/2"),
        rec(5.08, "busy", "/limited"),
    ]


def statuses(records):
    findings, figures = judge(records, USER_AGENT)
    return {f.row: f.status for f in findings}, findings, figures


def test_a_conformant_log_passes_every_observed_row_with_figures():
    rows, findings, figures = statuses(conformant_log())
    assert rows == dict.fromkeys(["1", "2", "2a", "3", "3a", "4", "5", "6"], "pass"), findings
    assert figures["min_gap"] == pytest.approx(1.01, abs=0.001)
    assert figures["slow_min_gap"] == pytest.approx(2.01, abs=0.001)
    assert figures["retry_after_wait"] == pytest.approx(3.01, abs=0.001)
    assert figures["max_in_flight"] == 1 and figures["requests"] == 14
    four = next(f for f in findings if f.row == "4")
    assert "minimum same-host gap 1.010 s" in four.message and "over 14 requests" in four.message


@pytest.mark.parametrize(
    ("row", "change"),
    [
        ("1", lambda log: log.__setitem__(3, {**log[3], "headers": {"User-Agent": "Scrapy/2.19"}})),
        ("2", lambda log: log.append(rec(9.0, "open", "/private/secret"))),
        ("2", lambda log: log.insert(2, rec(1.02, "gone", "/page/1"))),  # a host's first request is not robots.txt
        ("2a", lambda log: log.append(rec(9.0, "named", "/research-off/notes"))),
        ("2a", lambda log: log.remove(log[7])),  # /members/join never fetched
        ("3", lambda log: log.insert(0, rec(-0.5, "open", "/robots.txt"))),
        ("3", lambda log: log.remove(log[1])),  # no blocklist at all
        ("3a", lambda log: log.append(rec(9.0, "www.blocked", "/robots.txt"))),
        ("4", lambda log: log.append(rec(4.5, "open", "/page/3"))),  # 0.44 s after the last
        ("4", lambda log: log.__setitem__(9, {**log[9], "mono": 2.5})),  # slow under its Crawl-delay
        ("4", lambda log: log.__setitem__(6, {**log[6], "in_flight": 2})),
        ("5", lambda log: log.__setitem__(13, {**log[13], "mono": 4.0})),  # retried 1.93 s after Retry-After: 3
        ("5", lambda log: log.remove(log[13])),  # never retried
        ("6", lambda log: log.append(rec(9.0, "open", "/page/1-a"))),
        ("6", lambda log: log.append(rec(9.0, "named", "/static/logo.png"))),
        ("6", lambda log: log.append(rec(9.0, "sentinel", "/"))),
    ],
)
def test_each_broken_must_fails_its_row_and_only_its_row(row, change):
    log = conformant_log()
    change(log)
    rows, findings, _ = statuses(log)
    assert rows[row] == "fail", findings
    # a broken row does not drag the unrelated ones with it (rows 4 and 6 see every request)
    assert all(status == "pass" for r, status in rows.items() if r not in {row, "4", "6"}), findings


def test_a_crawl_that_sent_nothing_fails_every_row():
    rows, findings, _ = statuses([])
    assert set(rows.values()) == {"fail"} and len(rows) == 8
    assert all("not observed" in f.message for f in findings)
