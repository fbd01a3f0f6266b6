"""Slow and hostile servers, the pure parts: byte bounds, reading a prefix of a compressed body,
the time budget's settings."""

from __future__ import annotations

import gzip
import zlib

import brotli
import pytest
from backports import zstd
from scrapy.settings import Settings

from scrapy_walsh.addon import Addon
from scrapy_walsh.config import Readings, WalshConfig
from scrapy_walsh.conformance import audit_settings
from scrapy_walsh.exceptions import WARN, ConformanceError
from scrapy_walsh.middlewares.bounds import encodings_of, read_prefix
from scrapy_walsh.outputs.summary import render_summary
from scrapy_walsh.policy import robots
from scrapy_walsh.policy.backoff import Backoff, timeout_rest
from scrapy_walsh.policy.bounds import ROBOTS_BYTES, bound_for, ceiling
from scrapy_walsh.settings import DOWNLOAD_TIMEOUT, TIMEOUT_EXCEPTION

TEXT = b"User-agent: *\nDisallow: /private\n" + b"#" * 3_000_000

ENCODERS = {
    b"gzip": lambda data: gzip.compress(data),
    b"deflate": zlib.compress,
    b"br": brotli.compress,
    b"zstd": zstd.compress,
}


def test_the_robots_bound_is_derived_from_the_parse_limit():
    assert ROBOTS_BYTES > robots.MAX_BYTES
    assert ROBOTS_BYTES - robots.MAX_BYTES <= 65_536


@pytest.mark.parametrize("coding", list(ENCODERS))
def test_read_prefix_stops_at_the_limit_for_every_coding(coding):
    body, left, cut = read_prefix(ENCODERS[coding](TEXT), [coding], 100_000)
    assert (body, left, cut) == (TEXT[:100_000], [], True)


@pytest.mark.parametrize("coding", list(ENCODERS))
def test_read_prefix_of_a_short_body_is_the_whole_body(coding):
    assert read_prefix(ENCODERS[coding](TEXT[:500]), [coding], 100_000) == (TEXT[:500], [], False)


def test_read_prefix_of_a_truncated_or_damaged_stream_keeps_what_decoded():
    data = gzip.compress(TEXT[:200_000])
    body, _, cut = read_prefix(data[: len(data) // 2], [b"gzip"], 1_000_000)
    assert body and TEXT.startswith(body) and not cut
    assert read_prefix(b"not gzip at all", [b"gzip"], 100) == (b"", [], False)


def test_read_prefix_undoes_codings_last_first_and_keeps_unknown_ones():
    twice = gzip.compress(brotli.compress(TEXT[:1000]))
    assert read_prefix(twice, encodings_of([b"br, gzip"]), 5000) == (TEXT[:1000], [], False)
    assert read_prefix(gzip.compress(b"x"), encodings_of([b"Compress", b"GZIP"]), 10) == (b"x", [b"compress"], False)
    assert read_prefix(b"y" * 50, [], 10) == (b"y" * 10, [], True)


@pytest.mark.parametrize(
    ("asked", "bound"),
    [(None, 1000), (0, 1000), (-5, 1000), ("big", 1000), (True, 1000), (500, 500), (10**12, 52_428_800)],
)
def test_a_request_may_ask_for_its_own_bound_up_to_the_ceiling(asked, bound):
    assert bound_for(asked, 1000) == bound
    assert ceiling(10**9) == 10**9


def test_a_timeout_pauses_at_least_the_recheck_interval_and_retries_like_a_503():
    policy = Backoff(base=1.0, max_delay=3600.0, max_retries=2)
    first = policy.after_timeout(0, 1.0, 600.0, rng=lambda a, b: b)
    assert first.retry and first.delay == 600.0
    assert policy.after_timeout(0, 1.0, 0.0, rng=lambda a, b: b).delay == 1.0
    last = policy.after_timeout(2, 1.0, 600.0)
    assert not last.retry and last.delay == 600.0 and "no retries left" in last.reason


def test_timeouts_in_a_row_double_the_rest_up_to_a_day_and_past_the_longest_pause_are_not_retried():
    policy = Backoff(base=1.0, max_delay=3600.0, max_retries=5)
    rests = [policy.after_timeout(0, 1.0, 600.0, rng=lambda a, b: b, streak=k) for k in range(1, 5)]
    assert [r.delay for r in rests] == [600.0, 1200.0, 2400.0, 4800.0]
    assert [r.retry for r in rests] == [True, True, True, False]
    assert "over WALSH_BACKOFF_MAX_DELAY" in rests[-1].reason
    rests_by_streak = [timeout_rest(600.0, k) for k in (0, 1, 2, 8, 9, 10_000)]
    assert rests_by_streak == [600.0, 600.0, 1200.0, 76_800.0, 86_400.0, 86_400.0]
    assert timeout_rest(100_000.0, 3) == 100_000.0  # never under the recheck interval


def _settings(**values):
    settings = Settings()
    for name, value in values.items():
        settings.set(name, value, priority="project")
    Addon().update_settings(settings)
    return settings


def test_the_preset_sets_a_short_budget_bounded_bodies_and_no_instant_timeout_retry():
    settings = _settings()
    assert settings.getfloat("DOWNLOAD_TIMEOUT") == DOWNLOAD_TIMEOUT == 30.0
    assert settings.getint("DOWNLOAD_MAXSIZE") == 8 * 1024 * 1024
    assert TIMEOUT_EXCEPTION not in settings.getlist("RETRY_EXCEPTIONS")
    config = WalshConfig.from_settings(settings)
    assert (config.max_body_bytes, config.recheck_interval) == (8 * 1024 * 1024, 600.0)
    assert _settings(WALSH_MAX_BODY_BYTES=20 * 1024 * 1024).getint("DOWNLOAD_MAXSIZE") == 20 * 1024 * 1024


def test_a_longer_budget_is_warned_about_naming_its_cost():
    settings = _settings(DOWNLOAD_TIMEOUT=180)
    warned = [f for f in audit_settings(settings, Readings(settings)) if f.setting == "DOWNLOAD_TIMEOUT"]
    assert [f.status for f in warned] == ["warn"]
    assert "holds every other host 180 s" in warned[0].message and "5.0 h" in warned[0].message


@pytest.mark.parametrize(
    ("name", "value"),
    [("WALSH_MAX_BODY_BYTES", 1000), ("WALSH_MAX_BODY_BYTES", "lots"), ("WALSH_RECHECK_INTERVAL", 0.5)],
)
def test_bad_bounds_stop_the_start(name, value):
    with pytest.raises(ConformanceError, match=name):
        WalshConfig.from_settings(_settings(**{name: value}))


def test_retrying_timeouts_at_once_stops_the_start():
    with pytest.raises(ConformanceError, match="RETRY_EXCEPTIONS"):
        WalshConfig.from_settings(_settings(RETRY_EXCEPTIONS=[TIMEOUT_EXCEPTION]))


def test_the_summary_names_refused_and_cut_bodies():
    text = render_summary(
        {"walsh/bounds/refused/page": 2, "walsh/bounds/refused/sitemap": 1, "walsh/bounds/cut/robots": 1}
    )
    assert (
        "body bounds       3 refused over its bound (WALSH_MAX_BODY_BYTES, or the fetch's own): page: 2, sitemap: 1"
        in text
    )
    assert "body bounds       1 read up to its bound, the rest not read: robots: 1" in text
    assert "body bounds" not in render_summary({})


def test_download_maxsize_is_news_only_when_the_project_sets_it():
    """The preset writes DOWNLOAD_MAXSIZE itself: only a project's value is warned about (the
    warning fired on every crawl and every `check` when the preset's own value counted)."""
    preset_only = _settings()
    assert not [f for f in audit_settings(preset_only, Readings(preset_only)) if f.setting == "DOWNLOAD_MAXSIZE"]
    project = _settings(DOWNLOAD_MAXSIZE=1024)
    (warning,) = [f for f in audit_settings(project, Readings(project)) if f.setting == "DOWNLOAD_MAXSIZE"]
    assert warning.status == WARN and "WALSH_MAX_BODY_BYTES" in warning.message
