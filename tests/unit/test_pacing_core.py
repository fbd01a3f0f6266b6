"""R4/R5 arithmetic of :mod:`scrapy_walsh.policy.pacing` (``ready_time`` and the local pacer) and
the pacing ledger's operations in Python, driven by an injected clock (no Scrapy, no sleeping)."""

import pytest

from scrapy_walsh.policy.pacing import ADAPTIVE_MAX, HostPace, Pacer, ready_time, time_left
from scrapy_walsh.store.ledger import ADVANCE, RESERVE

T0 = 1_700_000_000.0  # a realistic wall-clock time: never 0


class Clock:
    def __init__(self, now: float = T0):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


def pacer(clock, floor=1.0, margin=0.0):
    return Pacer(floor=floor, margin=margin, clock=clock)


def test_a_never_seen_host_is_ready_at_once(clock):
    p = pacer(clock, floor=5.0, margin=0.25)
    assert p.ready_at("new.test") == 0.0
    assert not p.seen("new.test")
    assert HostPace().ready_at(5.0) == 0.0
    assert ready_time(None, 0.0, 5.0, 0.25) == 0.0
    p.set_robots("robots-only.test", crawl_delay=30.0, request_rate=None)  # known, never requested
    assert p.ready_at("robots-only.test") == 0.0


@pytest.mark.parametrize(
    "fields, expected",
    [
        ({}, 1.0),
        ({"crawl_delay": 7.0}, 7.0),
        ({"request_rate": 6.0}, 6.0),
        ({"adaptive": 5.0}, 5.0),
        ({"crawl_delay": 2.0, "request_rate": 9.0, "adaptive": 3.0}, 9.0),
        ({"crawl_delay": 0.2, "request_rate": 0.5, "adaptive": 0.9}, 1.0),  # under the floor: adds nothing
        ({"crawl_delay": 0.0, "request_rate": 0.0}, 1.0),
    ],
)
def test_interval_is_the_largest_term_and_no_term_lowers_it(fields, expected):
    assert HostPace(**fields).interval(1.0) == expected


def test_after_a_start_the_next_is_ready_an_interval_plus_the_margin_later(clock):
    p = pacer(clock, floor=1.0, margin=0.25)
    p.set_robots("a.test", crawl_delay=3.0, request_rate=None)
    p.pace("a.test").last_start = T0
    assert p.seen("a.test")
    assert p.ready_at("a.test") == T0 + 3.25
    assert ready_time(T0, 0.0, 3.0, 0.25) == T0 + 3.25


@pytest.mark.parametrize(
    "last_start, not_before, interval, margin, expected",
    [
        (T0, T0 + 30, 1.0, 0.0, T0 + 30),  # a pause dominates
        (T0, T0 - 100, 10.0, 0.0, T0 + 10),  # a pause in the past does not shorten the interval
        (None, T0 + 20, 1.0, 0.5, T0 + 20.5),  # a paused host never requested waits for the pause
        (T0, 0.0, 1.0, 0.0, T0 + 1),
        (0.0, 0.0, 1.0, 0.5, 1.5),
    ],
)
def test_ready_time_is_the_later_of_the_interval_and_the_pause_plus_the_margin(
    last_start, not_before, interval, margin, expected
):
    assert ready_time(last_start, not_before, interval, margin) == expected
    pace = HostPace(last_start=last_start, crawl_delay=interval, not_before=not_before)
    assert pace.ready_at(interval, margin) == expected


def test_a_paused_host_never_requested_is_seen(clock):
    p = pacer(clock, floor=1.0, margin=0.5)
    p.pace("a.test").not_before = T0 + 20
    assert p.seen("a.test")
    assert p.ready_at("a.test") == T0 + 20.5


def test_a_later_shorter_pause_never_shortens_one():
    """The ledger's advance raises times and never lowers them (Python side of the operation)."""
    _, entry = ADVANCE.python({}, T0, {"not_before": 30.0}, {})
    _, entry = ADVANCE.python(entry, T0, {"not_before": 5.0}, {})
    assert entry["not_before"] == T0 + 30
    _, entry = ADVANCE.python(entry, T0, {"not_before": 40.0}, {"adaptive": 0.5})
    assert entry == {"not_before": T0 + 40, "adaptive": 0.5}


def test_settle_counts_the_interval_from_the_answer_not_the_send():
    wait, entry = RESERVE.python({}, T0, 2.0, 0.0, {})
    assert (wait, entry) == (0.0, {"last_start": T0})
    _, entry = ADVANCE.python(entry, T0 + 0.3, {"last_start": 0.0}, {})  # a stall, or a slow answer
    assert ready_time(entry["last_start"], 0.0, 2.0) == T0 + 2.3
    _, entry = ADVANCE.python(entry, T0, {"last_start": 0.0}, {})  # a clock that went back
    assert entry["last_start"] == T0 + 0.3
    wait, refused = RESERVE.python(entry, T0 + 1.0, 2.0, 0.0, {})
    assert (wait, refused) == (pytest.approx(1.3), None)


def test_ok_answers_smooth_the_latency_by_halves_and_the_floor_still_holds(clock):
    p = pacer(clock, floor=1.0)
    p.observe("a.test", 4.0, ok=True)
    assert p.pace("a.test").adaptive == 2.0
    p.observe("a.test", 4.0, ok=True)
    assert p.pace("a.test").adaptive == 3.0
    assert p.interval("a.test") == 3.0
    p.observe("a.test", 0.0, ok=True)
    assert p.pace("a.test").adaptive == 1.5
    for _ in range(10):
        p.observe("a.test", 0.01, ok=True)
    assert p.pace("a.test").adaptive < 1.0
    assert p.interval("a.test") == 1.0
    p.observe("a.test", 1000.0, ok=True)
    assert p.pace("a.test").adaptive == ADAPTIVE_MAX


def test_errors_double_the_adaptive_delay_from_at_least_the_floor_up_to_the_cap(clock):
    p = pacer(clock, floor=1.0)
    p.observe("a.test", 0.1, ok=False)
    assert p.pace("a.test").adaptive == 1.0
    seen = []
    for _ in range(8):
        p.observe("a.test", 0.1, ok=False)
        seen.append(p.pace("a.test").adaptive)
    assert seen == [2.0, 4.0, 8.0, 16.0, 32.0, ADAPTIVE_MAX, ADAPTIVE_MAX, ADAPTIVE_MAX]
    p.observe("b.test", 9.0, ok=False)  # a slow error: at least its latency
    assert p.pace("b.test").adaptive == 9.0
    p.observe("b.test", 0.1, ok=False)
    assert p.pace("b.test").adaptive == 18.0


def test_soonest_picks_the_earliest_host(clock):
    p = pacer(clock, floor=1.0)
    p.set_robots("slow.test", crawl_delay=10.0, request_rate=None)
    p.pace("slow.test").last_start = T0
    p.pace("fast.test").last_start = T0
    p.pace("paused.test").not_before = T0 + 100
    assert p.soonest(["slow.test", "fast.test", "paused.test"]) == (T0 + 1.0, "fast.test")
    assert p.soonest(["slow.test", "paused.test"]) == (T0 + 10.0, "slow.test")
    assert p.soonest(["slow.test", "never.test"]) == (0.0, "never.test")
    assert p.soonest([]) is None


def test_host_pace_json_round_trip_ignores_unknown_keys():
    pace = HostPace(last_start=T0, crawl_delay=2.5, request_rate=4.0, adaptive=1.25, not_before=T0 + 9)
    assert HostPace.from_json(pace.to_json()) == pace
    assert HostPace.from_json({**pace.to_json(), "future_field": 1, "version": "v2"}) == pace
    assert HostPace.from_json({"crawl_delay": 3.0}) == HostPace(crawl_delay=3.0)


def test_host_pace_to_json_copies_nothing_deep(monkeypatch):
    """The ledger writes one per reservation: every field as it is, no ``copy.deepcopy`` call."""
    import copy

    calls = []
    real = copy.deepcopy
    monkeypatch.setattr(copy, "deepcopy", lambda *args, **kwargs: calls.append(args) or real(*args, **kwargs))
    pace = HostPace(last_start=12.5, crawl_delay=3.0, adaptive=0.25, not_before=20.0, timeouts=2)
    assert pace.to_json() == {
        "last_start": 12.5,
        "crawl_delay": 3.0,
        "request_rate": None,
        "adaptive": 0.25,
        "not_before": 20.0,
        "ratelimit": None,
        "timeouts": 2,
    }
    assert calls == []


def test_the_ledger_never_forgets_a_host_idle_past_scrapys_60_s(clock):
    """Scrapy drops idle download slots after 60 s; a Crawl-delay: 120 host must still wait."""
    p = pacer(clock, floor=1.0)
    p.set_robots("slow.test", crawl_delay=120.0, request_rate=None)
    p.pace("slow.test").last_start = T0
    clock.now = T0 + 61
    for i in range(1000):  # plenty of other traffic meanwhile
        p.pace(f"h{i}.test").last_start = clock.now
    assert p.ready_at("slow.test") - clock.now == pytest.approx(59.0)


def test_a_host_floor_from_download_slots_slows_that_host_only_and_never_lowers_the_floor(clock):
    """The project's per-host interval is a floor of that host's interval."""
    p = Pacer(floor=1.0, clock=clock, host_floors={"slow.example": 3.0, "fast.example": 0.5})
    assert p.interval("slow.example") == 3.0
    assert p.interval("fast.example") == 1.0, "under the R4 floor it changes nothing"
    assert p.interval("other.example") == 1.0
    p.pace("slow.example").crawl_delay = 5.0
    assert p.interval("slow.example") == 5.0, "the site's Crawl-delay still adds"
    p.pace("slow.example").crawl_delay = None
    p.pace("slow.example").last_start = clock.now
    assert p.ready_at("slow.example") == clock.now + 3.0


def test_host_intervals_reads_download_slots_by_host_key():
    from scrapy.settings import Settings

    from scrapy_walsh.config import host_intervals

    settings = Settings({"DOWNLOAD_SLOTS": {"Shop.Example.": {"delay": 3}, "x.example": {"concurrency": 1}}})
    assert host_intervals(settings) == {"shop.example": 3.0}
    assert host_intervals(Settings()) == {}


def test_time_left_is_the_longest_host_by_the_pacing_bound():
    now = 1000.0
    # a host ready in 0.5 s with 3 waiting at 1 s; another ready now with 2 waiting at 5 s; an empty one
    hosts = [(now + 0.5, 3, 1.0), (now - 9.0, 2, 5.0), (now + 50.0, 0, 1.0)]
    assert time_left(hosts, now) == 5.0, "the second host: its next request now, its last one 5 s later"
    assert time_left([(now + 0.5, 3, 1.0)], now) == 2.5
    assert time_left([], now) == 0.0
