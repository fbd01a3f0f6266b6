"""Remote content never crashes a gate.

A robots.txt ``Request-rate`` with thousands of digits, a unit Python's case folding reads
as ``s`` (``ſ``), or a quotient past a float's range made every request of its origin fail
with ValueError, KeyError or OverflowError instead of a verdict; a non-ASCII digit was read
as a number. A ``Retry-After`` of hundreds of digits was an infinite pause. Asserted on what
the recording server saw.
"""

from __future__ import annotations

from tests.helpers import crawl_targets, stat

RATES = {
    "open": "1/" + "9" * 5000,  # ValueError: int() of more than 4300 digits
    "named": "1/5ſ",  # KeyError: IGNORECASE matched "ſ" as the unit "s"
    "gone": "1/" + "9" * 400,  # OverflowError: the quotient is past a float's range
    "htmlonly": "1/٣",  # read as 1 request per 3 s: a non-ASCII digit is no number of the RFC
}


def test_a_request_rate_that_is_no_number_is_ignored_and_every_page_gets_a_verdict(project, demo_site):
    for host, rate in RATES.items():
        demo_site.override(host, "/robots.txt", 200, f"User-agent: *\nRequest-rate: {rate}\nDisallow: /private/\n")
    urls = [demo_site.url(host, f"/page/{n}") for host in RATES for n in (1, 2)]
    urls += [demo_site.url(host, "/private/1") for host in RATES]
    result, items = crawl_targets(project, urls)
    assert result.returncode == 0, result.stderr[-3000:]
    for error in ("ValueError", "KeyError", "OverflowError", "Traceback"):
        assert error not in result.stderr, result.stderr[-3000:]
    fetched = {(r["host_key"], r["path"]) for r in demo_site.requests}
    for host in RATES:
        assert {(host, "/page/1"), (host, "/page/2")} <= fetched, host
        assert (host, "/private/1") not in fetched
        assert items[demo_site.url(host, "/private/1")]["verdict"] == "disallowed_explicit"
    assert stat(result.stderr, "walsh/robots/verdict/disallowed_explicit") == len(RATES)
    # the rule is ignored: the host is paced at the 1 s floor, not 3 s
    pages = [r["mono"] for r in demo_site.requests if r["host_key"] == "htmlonly" and r["path"].startswith("/page/")]
    gap = pages[1] - pages[0]
    assert 0.98 <= gap < 2.9, gap  # 3 s if "1/٣" were read as a rate


def test_a_retry_after_of_hundreds_of_digits_is_a_finite_give_up(project, demo_site):
    huge = "9" * 400
    urls = [demo_site.url("busy", f"/status/429?times=1&retry-after={huge}"), demo_site.url("busy", "/page/1")]
    result, items = crawl_targets(project, urls)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr and " inf " not in result.stderr, result.stderr[-3000:]
    paths = [r["path"].split("?")[0] for r in demo_site.requests if r["host_key"] == "busy"]
    assert paths == ["/robots.txt", "/status/429"], "never retried, and the host rests"
    assert stat(result.stderr, "walsh/backoff/gave_up_retry_after") == 1
    paused = items[demo_site.url("busy", "/page/1")]
    assert paused["verdict"] == "host_paused_beyond_max_delay", paused
    assert "inf" not in paused["reason"], paused
