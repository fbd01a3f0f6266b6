"""The site owner's report, pure: the interval and why of each request (both journal forms), the
pause after a 429/503, and a banner that never calls an unsigned or failed journal verified."""

from __future__ import annotations

import datetime

import pytest

from scrapy_walsh.identity import webbotauth
from scrapy_walsh.journal import intervals, report
from scrapy_walsh.journal.chain import journal_files, verify_path
from scrapy_walsh.journal.reading import read_journal
from scrapy_walsh.journal.writer import JournalWriter


def _host(path):
    """What the one reader holds about a.test (signatures not checked)."""
    return read_journal(path, None, "a.test")[1]


DAY = datetime.datetime(2026, 11, 24, 10, 0, tzinfo=datetime.timezone.utc).timestamp()


@pytest.mark.parametrize(
    "entry, expected",
    [
        ({"interval": 3.0, "why": "retry-after"}, (3.0, "retry-after")),
        ({"interval": {"seconds": 1, "by": "floor"}}, (1.0, "floor")),
        ({"interval": {"seconds": 5, "by": "crawl_delay"}}, (5.0, "crawl-delay")),
        ({}, (None, None)),
        ({"interval": "1", "why": 7}, (None, "7")),
        ({"interval": True}, (None, None)),
    ],
)
def test_interval_and_why_read_from_both_forms(entry, expected):
    assert intervals.applied(entry) == expected


def test_an_entry_that_does_not_say_reads_unknown_never_the_floor():
    assert intervals.words({}) == "unknown"
    assert intervals.words({"interval": 2, "why": "timeout-rest"}) == "2 s (a rest after timeouts)"


def write(tmp_path, statuses, key=None, close=True, **extra):
    clock = iter(range(10_000))
    writer = JournalWriter(tmp_path / "j", "W", key=key, sign_every=1000, clock=lambda: DAY + next(clock))
    for i, status in enumerate(statuses):
        writer.append("send", method="GET", url=f"http://a.test/p/{i}", host="a.test", status=status, **extra)
    if close:
        writer.close()
    return tmp_path / "j"


def test_the_request_after_a_429_is_marked_as_the_pause_after_it(tmp_path):
    path = write(tmp_path, [200, 429, 200], interval={"seconds": 1, "by": "floor"})
    rows = report.rows(_host(path))
    assert [r.after for r in rows] == [None, None, 429]
    assert rows[2].why_words().endswith("pause after the 429 (your Retry-After, or our backoff)")
    lines = report.request_lines(_host(path)).splitlines()
    assert "429" in lines[2] and "slow down" in lines[2] and "pause after the 429" in lines[3]
    svg = report.timeline_svg(_host(path))
    assert svg.count('class="pausing-answer"') == 1 and svg.count('class="pause"') == 1


def test_a_why_recorded_by_the_writer_is_shown_as_it_is(tmp_path):
    path = write(tmp_path, [429, 200], interval=4.0, why="retry-after")
    (_, second) = report.rows(_host(path))
    assert second.why_words() == "4 s (your Retry-After)"


def test_the_banner_says_what_was_checked_and_never_styles_less_as_verified(tmp_path):
    key = webbotauth.generate_key()
    keys = {webbotauth.keyid(key): key.public_key()}
    signed = write(tmp_path / "s", [200, 200], key=key)
    ok = report.banner(verify_path(signed, keys), "--key walsh.pub")
    assert ok.state == "verified" and webbotauth.keyid(key) in ok.words and "--key walsh.pub" in ok.words
    no_key = report.banner(verify_path(signed, None), None)
    assert no_key.state == "unverified" and no_key.words.startswith("NOT VERIFIED")
    crashed = write(tmp_path / "c", [200, 200], key=key, close=False)  # no signed head at all
    failed = report.banner(verify_path(crashed, keys), "--key walsh.pub")
    assert failed.state == "failed" and "not covered by a head the key signed" in failed.words
    (file,) = journal_files(signed)
    file.write_bytes(file.read_bytes().replace(b"/p/0", b"/p/9"))
    broken = report.banner(verify_path(signed, keys), "--key walsh.pub")
    assert broken.state == "failed" and broken.words.startswith("FAILED")
    assert 'data-verification="failed"' in report.report_html(_host(signed), broken, "UA")


def _view(rows):
    """A host's sends: (start, seconds to answer, status, interval applied, why)."""
    from scrapy_walsh.journal.reading import HostView

    sends = [
        {"kind": "send", "t": DAY + t, "settled": DAY + t + took, "status": status, "interval": interval, "why": why,
         "method": "GET", "url": f"http://a.test/p/{i}", "seq": i}
        for i, (t, took, status, interval, why) in enumerate(rows)
    ]  # fmt: skip
    return HostView("a.test", sends=sends)


#: (time, answer took, status, interval, why): a slow 200, a 503, a 429 and its Retry-After
PAUSES = [
    (0, 2.5, 200, 1, "floor"),
    (4.5, 0.1, 503, 2, "backoff"),  # after a slow 200
    (8, 0.1, 200, 4, "backoff"),  # after the 503
    (30, 0.1, 429, 1, "floor"),
    (60, 0.1, 200, 30, "retry-after"),
]


def test_a_pause_is_named_by_its_cause_slow_answer_error_answer_or_retry_after():
    view = _view(PAUSES)
    words = [row.why_words() for row in report.rows(view)]
    assert "slow answer" in words[1] and "2.5 s" in words[1] and "error" not in words[1], words[1]
    assert "after an error answer (503)" in words[2], words[2]
    assert "your Retry-After" in words[4], words[4]


def test_idle_time_between_crawls_is_a_break_not_the_height_of_the_chart():
    first = [(float(i), 0.1, 200, 1, "floor") for i in range(5)]
    second = [(3600.0 + i, 0.1, 200, 1, "floor") for i in range(5)]
    svg = report.timeline_svg(_view(first + second))
    ticks = [float(t.split(">")[1].split(" s<")[0]) for t in svg.split('class="y-tick"')[1:]]
    assert max(ticks) < 5, ticks  # the 1 s gaps fill the height, not the hour between the crawls
    assert svg.count('class="idle-break"') == 1 and "idle 59 min" in svg, svg
    xs = [float(c.split('cx="')[1].split('"')[0]) for c in svg.split("<circle")[1:]]
    assert len(xs) == 8 and xs[3] - xs[0] > 200 and xs[-1] - xs[4] > 200, xs  # both crawls at full width


def test_the_time_labels_of_a_short_crawl_after_a_break_do_not_overlap():
    first = [(float(i), 0.1, 200, 1, "floor") for i in range(20)]
    second = [(7200.0 + i, 0.1, 200, 1, "floor") for i in range(3)]  # two seconds of crawl time
    svg = report.timeline_svg(_view(first + second))
    xs = sorted(float(t.split('x="')[1].split('"')[0]) for t in svg.split("<text")[1:] if 'class="x-tick"' in t)
    assert len(xs) >= 3 and all(b - a >= 60 for a, b in zip(xs, xs[1:], strict=False)), xs  # HH:MM:SS is ~50 px wide


def test_each_pause_on_the_timeline_is_labelled_with_its_cause():
    view = _view(PAUSES)
    svg = report.timeline_svg(view)
    labels = [t.split(">", 1)[1].split("<")[0] for t in svg.split('<text class="pause-label"')[1:]]
    assert labels == [
        "our backoff after a slow answer (2.5 s): 4.5 s",
        "our backoff after an error answer (503): 3.5 s",
        "your Retry-After after the 429: 30.0 s",
    ], labels


def test_pause_labels_close_together_do_not_overlap():
    view = _view(
        [(0, 2.5, 200, 1, "floor"), (4.5, 0.1, 503, 2, "backoff"), (8, 0.1, 429, 2, "backoff")]
        + [(12, 0.1, 200, 3, "retry-after")]
        + [(13.0 + i, 0.1, 200, 1, "floor") for i in range(8)]
    )
    svg = report.timeline_svg(view)
    boxes = []
    for text in svg.split('<text class="pause-label"')[1:]:
        x, y = (float(text.split(f'{name}="')[1].split('"')[0]) for name in ("x", "y"))
        width = len(text.split(">", 1)[1].split("<")[0]) * report.CHAR_WIDTH
        boxes.append((y, x - width / 2, x + width / 2))
    assert len(boxes) == 3
    for i, (y, left, right) in enumerate(boxes):
        for other_y, other_left, other_right in boxes[i + 1 :]:
            assert y != other_y or right <= other_left or other_right <= left, boxes
        assert report.timeline_svg(view).count("pause-label") == 3 and left >= 0
