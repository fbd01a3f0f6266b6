"""The compliance summary block is rendered from stats alone."""

from scrapy_walsh.outputs.summary import render_summary


def test_summary_lists_hosts_denials_wait_and_backoffs():
    stats = {
        "walsh/spec_version": "walsh-research-compliance/v1",
        "walsh/identity/user_agent": "UA/1.0",
        "walsh/identity/ua_overridden": 2,
        "walsh/requests/sent": 5,
        "walsh/requests/host/b.example": 2,
        "walsh/requests/host/a.example": 3,
        "walsh/requests/max_in_flight": 1,
        "walsh/denied": 3,
        "walsh/denied/robots": 2,
        "walsh/denied/robots/disallowed_explicit": 2,
        "walsh/denied/blocklist/blocked_by_operator": 1,
        "walsh/pacing/wait_seconds": 4.26,
        "walsh/backoff/count": 1,
        "walsh/backoff/429": 1,
        "retry/count": 0,
        "walsh/blocklist/source": "stored",
        "walsh/blocklist/entries": 4,
        "walsh/blocklist/fetch_failed": 1,
        "walsh/robots/mode": "report_only",
        "walsh/robots/fetched": 3,
        "walsh/robots/verdict/allowed_implicit": 7,
        "walsh/robots/verdict/disallowed_explicit": 2,
        "walsh/pacing/interval/b.example": 2.0,
    }
    text = render_summary(stats)
    lines = text.splitlines()
    assert lines[0] == "scrapy_walsh compliance summary (walsh-research-compliance/v1)"
    assert "  UA overrides      2" in lines
    assert "  requests sent     5 to 2 host(s), at most 1 in flight" in lines
    # busiest host first
    assert lines.index("          3  a.example") < lines.index("          2  b.example (every 2 s or more)")
    assert "  denied            3" in lines
    assert "          2  robots/disallowed_explicit" in lines
    assert "          1  blocklist/blocked_by_operator" in lines
    assert "          2  robots" not in lines, "per-gate totals are not repeated as verdicts"
    assert "  politeness wait   4.3 s (0 requests handed back to the queue for a host ready sooner)" in lines
    assert "  blocklist         stored, 4 entries (schema: bundled, failed fetches: 1)" in lines
    assert lines[lines.index("          7  allowed_implicit") - 1].startswith(
        "  robots.txt        mode report_only (R2 NOT ENFORCED); 3 fetched, 0 from the store"
    )
    assert "  backoffs          1 (Scrapy retries: 0)" in lines
    assert "          1  429" in lines


def test_summary_of_an_empty_crawl_says_so():
    text = render_summary({})
    assert "requests sent     0 to 0 host(s)" in text
    assert "denied            0" in text


def test_summary_accounts_for_what_was_not_fetched_with_what_to_do():
    stats = {
        "walsh/requests/sent": 2,
        "walsh/requests/host/a.example": 2,
        "walsh/requests/not_connected/dns": 1,
        "walsh/requests/failed/DownloadTimeoutError": 1,
        "walsh/scope/followups_dropped": 4,
        "walsh/conditional/not_modified": 2,
        "walsh/denied": 1,
        "walsh/denied/frequency/skipped_recently_fetched": 1,
        "walsh/dedup/dropped": 3,
    }
    lines = render_summary(stats).splitlines()
    assert "  not connected     1: nothing was sent (dns: 1)" in lines
    assert "  failed            1 after connecting (counted as sent): DownloadTimeoutError: 1" in lines
    follow = next(line for line in lines if line.startswith("  follow-ups"))
    assert follow.startswith("  follow-ups        4 dropped (R6") and "declare them: start_urls, start()" in follow
    assert any(line.startswith("  not modified      2 304 (R7") for line in lines)
    assert any(line.startswith("  recently fetched  1 skipped (R8") and "state forget URL" in line for line in lines)
    assert any(line.startswith("  items dropped     3 had the dedup key") and "--spider" in line for line in lines)


def test_quiet_summary_has_no_empty_categories():
    lines = render_summary({"walsh/requests/sent": 1}).splitlines()
    assert not any(
        line.startswith(("  not connected", "  failed", "  follow-ups", "  items dropped")) for line in lines
    )


def test_the_summary_is_a_warning_only_when_something_was_refused():
    """INFO on a clean run, WARNING when a request or an item was refused."""
    from scrapy_walsh.outputs.summary import refused

    assert not refused({"walsh/requests/sent": 9})
    assert refused({"walsh/denied": 1})
    assert refused({"walsh/dedup/dropped": 2})
    assert refused({"walsh/items/content_rejected": 1})
    assert refused({"walsh/scope/followups_dropped": 1})
