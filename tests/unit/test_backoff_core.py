"""R5 arithmetic of :mod:`scrapy_walsh.policy.backoff`: Retry-After parsing and the retry decision.

A fixed ``now`` and injected rngs: no Scrapy, no network, no sleeping.
"""

import random
from email.utils import formatdate

import pytest

from scrapy_walsh.policy.backoff import Backoff, parse_retry_after

NOW = 1_700_000_000.0
POLICY = Backoff(base=1.0, max_delay=3600.0, max_retries=5)


def low(a, b):
    return a


def high(a, b):
    return b


def http_date(offset):
    return formatdate(NOW + offset, usegmt=True)  # IMF-fixdate: "..., 14 Nov 2023 22:13:50 GMT"


@pytest.mark.parametrize(
    "values, seconds",
    [
        (["3"], 3.0),
        ([" 3 "], 3.0),
        (["0"], 0.0),
        (["7", "7"], 7.0),  # identical duplicates are one instruction
        ([http_date(30)], 30.0),
        (["Tuesday, 14-Nov-23 22:13:50 GMT"], 30.0),  # RFC 850 form of NOW + 30
        ([http_date(-3600)], 0.0),  # a date in the past means "now"
    ],
)
def test_valid_retry_after(values, seconds):
    parsed = parse_retry_after(values, NOW)
    assert (parsed.seconds, parsed.problem) == (seconds, None)


def test_no_header_is_no_instruction_and_no_problem():
    assert parse_retry_after([], NOW).seconds is None
    assert parse_retry_after([], NOW).problem is None
    decision = POLICY.decide(2, [], NOW, interval=1.0, rng=high)
    assert (decision.retry, decision.delay, decision.reason) == (True, 4.0, "exponential backoff with jitter")


def test_retry_after_wins_over_the_computed_delay():
    decision = POLICY.decide(0, ["3"], NOW, interval=1.0, rng=lambda a, b: 999.0)
    assert (decision.retry, decision.delay, decision.reason) == (True, 3.0, "Retry-After")
    assert POLICY.decide(4, [http_date(30)], NOW, interval=1.0, rng=high).delay == 30.0


def test_a_past_date_means_now_but_never_under_the_interval():
    decision = POLICY.decide(0, [http_date(-60)], NOW, interval=2.0, rng=high)
    assert decision.retry_after.seconds == 0.0
    assert (decision.retry, decision.delay, decision.reason) == (True, 2.0, "Retry-After")


GARBAGE = [
    (["-1"], 0.0),
    (["1.5"], 1.5),
    (["+5"], 5.0),
    (["soon"], 0.0),
    ([""], 0.0),
    (["Wed, 32 Foo 2024 99:99:99 GMT"], 0.0),
    (["3", "5"], 5.0),  # several different headers: the largest is the floor
    (["3", http_date(100)], 100.0),
]


@pytest.mark.parametrize("values, floor", GARBAGE)
def test_garbage_is_reported_and_falls_back_to_a_computed_delay_never_under_its_floor(values, floor):
    parsed = parse_retry_after(values, NOW)
    assert parsed.seconds is None
    assert parsed.problem
    assert parsed.floor == floor
    for rng, computed in ((low, 0.0), (high, 8.0)):
        decision = POLICY.decide(3, values, NOW, interval=0.5, rng=rng)
        assert decision.retry and decision.reason == "exponential backoff with jitter"
        assert decision.delay == max(computed, floor, 0.5)


@pytest.mark.parametrize("values", [["172800"], ["9" * 30], [http_date(172800)], ["99999.5"], ["10", "7200"]])
def test_a_retry_after_over_max_delay_gives_up_rather_than_retrying_early(values):
    decision = POLICY.decide(0, values, NOW, interval=1.0, rng=low)
    assert decision.retry is False
    assert decision.delay > POLICY.max_delay
    assert "WALSH_BACKOFF_MAX_DELAY" in decision.reason


def test_a_retry_after_of_exactly_max_delay_is_still_honoured():
    decision = POLICY.decide(0, ["3600"], NOW, interval=1.0, rng=low)
    assert (decision.retry, decision.delay) == (True, 3600.0)


@pytest.mark.parametrize(
    "policy, attempt, bound",
    [
        (Backoff(base=1.0), 0, 1.0),
        (Backoff(base=2.0), 3, 16.0),
        (Backoff(base=1.0, max_delay=100.0), 7, 100.0),
        (Backoff(base=1.0, max_delay=100.0), 40, 100.0),
    ],
)
def test_computed_is_full_jitter_up_to_the_capped_exponential(policy, attempt, bound):
    calls = []
    assert policy.computed(attempt, rng=lambda a, b: calls.append((a, b)) or b) == bound
    assert calls == [(0.0, bound)]
    rng = random.Random(1234)
    draws = [policy.computed(attempt, rng=rng.uniform) for _ in range(2000)]
    assert all(0.0 <= d <= bound for d in draws)
    assert min(draws) < bound * 0.05 and max(draws) > bound * 0.95  # jitter spans the range


def test_the_last_attempt_gives_up():
    assert POLICY.decide(4, [], NOW, interval=1.0, rng=low).retry is True
    for attempt, values in ((5, []), (6, []), (5, ["3"])):
        decision = POLICY.decide(attempt, values, NOW, interval=1.0, rng=low)
        assert decision.retry is False
        assert decision.reason == "no retries left (5)"
    assert Backoff(max_retries=0).decide(0, [], NOW, interval=1.0).retry is False


@pytest.mark.parametrize(
    "attempt, values",
    [
        (0, ["3"]),
        (0, [http_date(-60)]),
        (0, [http_date(4)]),
        (0, []),
        (9, []),
        (0, ["1.5"]),
        (0, ["3", "5"]),
        (5, ["3"]),
        (5, []),
    ],
)
def test_the_delay_is_never_under_the_pacing_interval(attempt, values):
    for rng in (low, high, random.Random(7).uniform):
        assert POLICY.decide(attempt, values, NOW, interval=12.0, rng=rng).delay >= 12.0


@pytest.mark.parametrize("value", ["Tue Nov 14 22:13:50 2023", formatdate(NOW + 30)], ids=["asctime", "minus-0000"])
def test_a_date_without_gmt_is_not_undercut(value):
    # both name NOW + 30 s
    assert POLICY.decide(0, [value], NOW, interval=1.0, rng=low).delay >= 30.0


def test_a_huge_attempt_is_capped_not_an_overflow():
    assert Backoff(max_delay=100.0).computed(1024, rng=high) == 100.0
    assert Backoff(max_retries=5).decide(2000, [], NOW, interval=1.0).reason == "no retries left (5)"
