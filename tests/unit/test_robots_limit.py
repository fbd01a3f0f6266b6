"""The parse limit is 4 MiB, and a hostile file at that size stays bounded.

The 4 MiB hostile shapes, with their time and memory bounds, are in
tests/e2e/test_robots_hostile.py (about 40 s of CPU: the slower lane).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_walsh.policy.gates import STORED_BODY_LIMIT
from scrapy_walsh.policy.robots import MAX_BYTES, RobotsTxt
from tests.fuzz import FUZZ
from tests.robots_hostile import fill


def test_the_limit_is_4_mib_and_the_stored_copy_keeps_what_is_parsed():
    assert MAX_BYTES == 4 * 1024 * 1024
    assert STORED_BODY_LIMIT == MAX_BYTES


def test_a_rule_past_500_kib_is_obeyed():
    """RFC 9309 §2.5 sets a floor: a rule 1 MiB into the file is read (it was dropped at 512,000)."""
    body = fill(b"User-agent: *\n", lambda i: b"Allow: /page%d\n" % i, limit=1024 * 1024) + b"Disallow: /late\n"
    assert len(body) > 1024 * 1024
    assert not RobotsTxt.parse(body).allowed("https://example.com/late/x", "walsh")


def test_a_line_cut_by_the_limit_is_dropped():
    body = fill(b"User-agent: *\n", lambda i: b"# %d\n" % i) + b"Disallow: /private\n"
    assert len(body) > MAX_BYTES > len(body) - len(b"Disallow: /private\n")
    assert RobotsTxt.parse(body).allowed("https://example.com/p", "walsh")  # not "Disallow: /"


@settings(FUZZ, max_examples=40)
@given(
    st.lists(
        st.sampled_from(
            [b"User-agent: ", b"Disallow: ", b"Allow: ", b"/", b"*", b"$", b"%", b"\xff", b"#", b"a", b"?"]
        ),
        min_size=2,
        max_size=12,
    )
)
def test_any_line_repeated_to_the_limit_parses_and_decides(parts):
    """A line of record names, wildcards and octets, repeated up to 128 KiB: never raises,
    and deciding a URL takes linear time (the property behind the 4 MiB bounds above)."""
    line = b"".join(parts) + b"\n"
    body = b"User-agent: *\n" + line * (128 * 1024 // len(line))
    robots = RobotsTxt.parse(body)
    assert robots.verdict("https://example.com/" + "a*$%" * 500, "walsh") is not None
