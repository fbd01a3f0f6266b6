"""RateLimit header fields -> seconds between requests: the draft's own examples, what is
ignored, and property tests that no header raises and that a policy never speeds us up."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scrapy_walsh.policy.ratelimit import MAX_INTERVAL, parse_ratelimit, requested_interval
from tests.fuzz import FUZZ


@pytest.mark.parametrize(
    ("policy", "expected"),
    [  # draft-ietf-httpapi-ratelimit-headers-10 §3 and §3.2
        ('"burst";q=100;w=60,"daily";q=1000;w=86400', 86.4),
        ('"default";q=100;w=10', 0.1),
        ('"permin";q=50;w=60,"perhr";q=1000;w=3600', 3.6),
        ('"peruser";q=100;w=60;pk=:cHsdsRa894==:', 0.6),
        ('"peruser";q=65535;qu="content-bytes";w=10;pk=:sdfjLJUOUH==:', None),  # not a request rate
        ('"none";q=0;w=30', 30.0),  # no request at all in the window: one per window
        ("legacy;q=10;w=20", 2.0),  # a Token identifier, as earlier drafts wrote it
    ],
)
def test_policy_examples(policy, expected):
    assert requested_interval([("RateLimit-Policy", policy)]) == expected


@pytest.mark.parametrize(
    ("field", "expected"),
    [  # §4.2
        ('"default";r=50;t=30', 0.6),
        ('"default";r=999;pk=:dHJpYWwxMjEzMjM=:', None),  # no reset: no time to spread over
        ('"problemPolicy";r=0;t=10', 10.0),  # nothing left: wait for the reset
    ],
)
def test_ratelimit_examples(field, expected):
    assert requested_interval([("RateLimit", field)]) == expected


def test_the_slowest_item_wins_and_is_named():
    hint = parse_ratelimit(
        [
            (b"RateLimit-Policy", b'"permin";q=50;w=60'),
            (b"ratelimit-policy", b'"perhr";q=1000;w=3600'),  # a second field line, any case
            (b"RateLimit", b'"permin";r=1;t=5'),
        ]
    )
    assert hint is not None
    assert hint.seconds == 5.0
    assert hint.source == 'RateLimit: "permin";r=1;t=5'


def test_a_service_limit_of_a_byte_quota_is_not_a_request_rate():
    headers = [("RateLimit-Policy", '"bw";q=1000;qu="content-bytes";w=1'), ("RateLimit", '"bw";r=0;t=60')]
    assert requested_interval(headers) is None


@pytest.mark.parametrize(
    "headers",
    [
        [],
        [("RateLimit-Policy", "")],
        [("RateLimit-Policy", '"p";q=10;w=0')],  # window must be positive
        [("RateLimit-Policy", '"p";q=-1;w=10')],
        [("RateLimit-Policy", '"p";q=?1;w=10')],  # a boolean is no count
        [("RateLimit-Policy", '"p";w=10')],  # q is required
        [("RateLimit-Policy", '"p";q=1.5;w=10')],
        [("RateLimit-Policy", '("a" "b");q=1;w=10')],  # an inner list is no policy
        [("RateLimit-Policy", '"p";q=10;w=10,,')],  # malformed: the whole field is ignored
        [("RateLimit", '"p";t=10')],  # r is required
        [("Retry-After", "120")],  # the backoff gate's business, not ours
    ],
)
def test_malformed_or_incomplete_fields_are_ignored(headers):
    assert requested_interval(headers) is None


def test_a_huge_window_is_capped():
    assert requested_interval([("RateLimit-Policy", '"year";q=1;w=31536000')]) == MAX_INTERVAL


_item = st.builds(
    lambda name, q, w, qu: f'"{name}";q={q};w={w}' + ("" if qu is None else f';qu="{qu}"'),
    st.sampled_from(["a", "b", "c"]),
    st.integers(min_value=-2, max_value=10**6),
    st.integers(min_value=-2, max_value=10**6),
    st.sampled_from([None, "requests", "content-bytes"]),
)
_limit = st.builds(
    lambda name, r, t: f'"{name}";r={r};t={t}',
    st.sampled_from(["a", "b", "c"]),
    st.integers(min_value=-2, max_value=10**6),
    st.integers(min_value=-2, max_value=10**6),
)
_line = st.one_of(
    st.tuples(st.just("RateLimit-Policy"), _item),
    st.tuples(st.just("RateLimit"), _limit),
    st.tuples(st.sampled_from(["RateLimit-Policy", "RateLimit"]), st.text()),
    st.tuples(st.binary(max_size=20), st.binary()),
)


@FUZZ
@given(st.lists(_line, max_size=6))
def test_no_header_raises_and_the_answer_is_bounded(headers):
    seconds = requested_interval(headers)
    assert seconds is None or 0 <= seconds <= MAX_INTERVAL


@FUZZ
@given(
    st.lists(st.tuples(st.just("RateLimit-Policy"), _item), max_size=4),
    st.integers(min_value=1, max_value=10**4),
    st.integers(min_value=1, max_value=10**5),
)
def test_another_request_policy_never_speeds_us_up(lines, quota, window):
    before = requested_interval(lines) or 0.0
    after = requested_interval([*lines, ("RateLimit-Policy", f'"fresh";q={quota};w={window}')])
    assert after is not None
    assert after >= before
    assert after >= min(window / quota, MAX_INTERVAL)
