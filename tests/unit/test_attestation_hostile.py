"""The hostile probe's judge: each attempt that reaches a server fails its row."""

from __future__ import annotations

import pytest

from scrapy_walsh.conformance import FAIL, PASS
from scrapy_walsh.conformance.attestation import HOSTILE_UA, judge_hostile
from scrapy_walsh.settings import USER_AGENT

BLOCKED_IPS = ["127.0.0.6", "127.0.0.7"]
CANARY = "canary-text"


def record(host_key, path, mono, ua=USER_AGENT, ip="127.0.0.2", in_flight=1):
    return {
        "host_key": host_key,
        "path": path,
        "mono": mono,
        "ip": ip,
        "in_flight": in_flight,
        "headers": {"user-agent": ua},
    }


def clean():
    return [
        record("open", "/robots.txt", 0.0),
        record("open", "/page/1", 1.02),
        record("open", "/page/2", 2.04),
        record("down", "/robots.txt", 0.5, ip="127.0.0.5"),
        record("llmsonly", "/robots.txt", 0.7, ip="127.0.0.10"),
    ]


def judge(records, items=(), nan=(1, 0)):
    findings, _ = judge_hostile(records, list(items), CANARY, BLOCKED_IPS, nan, USER_AGENT)
    return findings


def failing_rows(records, items=(), nan=(1, 0)):
    findings = judge(records, items, nan)
    return sorted({f.row for f in findings if f.status == FAIL})


def test_a_clean_run_passes_every_row():
    findings = judge(clean())
    assert [f.status for f in findings] == [PASS] * len(findings)
    assert {f.row for f in findings} == {"1", "3a", "4", "6", "8", "-"}


@pytest.mark.parametrize(
    ("extra", "row"),
    [
        (record("open", "/private/secret", 3.1), "6"),  # forged walsh_internal
        (record("open", "/static/logo.png", 3.1), "6"),
        (record("named", "/page/errback", 3.1, ip="127.0.0.3"), "6"),  # forged walsh_declared
        (record("slow", "/page/engine", 3.1, ip="127.0.0.4"), "6"),  # engine.download
        (record("llmsonly", "/page/1", 3.1, ip="127.0.0.10"), "6"),  # robots.txt read from a file
        (record("sentinel", "/page/proxy-private", 3.1, ip="127.0.0.1"), "6"),  # a private proxy
        (record("open", "http://open.walsh-demo.test:1/page/proxy-blocked", 3.1, ip="127.0.0.6"), "3a"),
        (record("blocked", "/page/host-header", 3.1), "3a"),  # the Host header reached a server
        (record("open", "/page/1", 3.1), "8"),  # an R8 refetch by forged retry meta
        (record("open", "/page/3", 2.5), "4"),  # the trailing-dot spelling 0.46 s later
        (record("down", "/page/1", 3.1, ip="127.0.0.5", in_flight=2), "4"),
        (record("down", "/page/1", 3.1, ip="127.0.0.5", ua=HOSTILE_UA), "1"),
    ],
)
def test_each_attempt_that_reaches_a_server_fails_its_row(extra, row):
    assert row in failing_rows([*clean(), extra])


def test_the_feed_and_the_nan_start_are_judged():
    assert failing_rows(clean(), items=[{"url": "file:///x", "body": CANARY}]) == ["6"]
    assert failing_rows(clean(), items=[{"url": "u", "body": ["x" * 1000] * 50}]) == ["6"]
    assert failing_rows(clean(), nan=(0, 0)) == ["-"]
    assert failing_rows(clean(), nan=(1, 3)) == ["-"]


def test_open_never_fetched_twice_is_not_observed():
    records = [r for r in clean() if r["path"] != "/page/2"]
    assert failing_rows(records) == ["4"]
