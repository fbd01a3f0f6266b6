"""What a plan's target costs beyond Scrapy's own machinery (counted, never timed): a sitemap's
plain URL never reaches w3lib (its sent form and both record keys are the URL as written), the
plan takes the target's request as it is, a host is canonicalised once, not per target, and a
dry run's progress counts nothing per request (it logs nothing)."""

from __future__ import annotations

import asyncio
import random

import scrapy
import w3lib.url
from scrapy import signals
from scrapy.utils.test import get_crawler

from scrapy_walsh import Addon
from scrapy_walsh.commands.plan import PlanRecorder
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.outputs.progress import Progress
from scrapy_walsh.policy import canonical, urls
from scrapy_walsh.policy.blocklist import hosts

BASE = "http://127.0.0.1:45021/p/"


class Counted:
    def __init__(self, wrapped):
        self.wrapped, self.calls = wrapped, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.wrapped(*args, **kwargs)


def _w3lib_counted(monkeypatch) -> tuple[Counted, Counted]:
    safe = Counted(w3lib.url.safe_url_string)
    canon = Counted(w3lib.url.canonicalize_url)
    monkeypatch.setattr(urls, "safe_url_string", safe)
    monkeypatch.setattr(w3lib.url, "canonicalize_url", canon)
    return safe, canon


def test_a_plain_url_never_reaches_w3lib(monkeypatch):
    safe, canon = _w3lib_counted(monkeypatch)
    for n in range(1_000):
        url = f"{BASE}{n}/" + "a" * 950
        assert urls.sent_url(url) == url
        assert canonical.record_keys(url) == (canonical.canonical_url(url),)
    assert (safe.calls, canon.calls) == (0, 0)
    # the counters count: a URL with a query (w3lib sorts its arguments) takes the long way
    urls.sent_url(f"{BASE}q?b=1&a=2")
    canonical.record_keys(f"{BASE}q?b=1&a=2")
    assert (safe.calls, canon.calls) == (1, 1)


def _random_url(rng: random.Random) -> str:
    hosts_ = ["127.0.0.1", "127.1", "0x7f.0.0.1", "example.com", "xn--bcher-kva.example", "xn--zz.example", "-a.com"]
    hosts_ += ["a-.com", "1.2.3.4.5", "09.1.1.1", "Example.com", "ex_ample.com", "a"]
    host = (
        rng.choice(hosts_)
        if rng.random() < 0.4
        else ".".join("".join(rng.choice("abz09-") for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(1, 4)))
    )
    port = rng.choice(["", "", ":80", ":443", ":8080", ":45021", ":1", ":65535", ":65536", ":0", ":080"])
    alphabet = rng.choice(["abcAZ09-._~", "abcAZ09-._~%:@!$"])
    segments = []
    for _ in range(rng.randint(0, 6)):
        if rng.random() < 0.05:
            segments.append(rng.choice([".", "..", "...", ".a", "a.", "", ".%2e", "%2E"]))
        else:
            segments.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))))
    return f"{rng.choice(['http', 'https', 'HTTP'])}://{host}{port}" + "".join("/" + s for s in segments)


def test_the_plain_form_is_what_w3lib_would_give_on_a_random_sample():
    rng = random.Random(20261129)
    plain = 0
    for _ in range(30_000):
        url = _random_url(rng)
        if not urls.PLAIN_URL.fullmatch(url):
            continue
        plain += 1
        assert urls._sent_url(url) == url == scrapy.Request(url).url
        key = canonical.canonical_url(url)
        try:
            old = canonical.legacy_canonical_url(url)
        except ValueError:
            old = key
        assert canonical.record_keys(url) == ((key,) if old == key else (key, old)), url
    assert plain > 5_000  # the sample does exercise the plain form


def test_the_plan_takes_the_request_as_it_is(monkeypatch):
    recorder = PlanRecorder(get_crawler(scrapy.Spider))
    made = Counted(w3lib.url.safe_url_string)
    monkeypatch.setattr(scrapy.http.request, "safe_url_string", made)
    requests = [scrapy.Request(f"{BASE}{n}", cb_kwargs={"n": n}) for n in range(100)]
    built = made.calls

    async def taken() -> list[scrapy.Request]:
        async def start():
            for request in requests:
                yield request

        return [entry async for entry in recorder.process_start(start())]

    out = asyncio.run(taken())
    assert made.calls == built, "no second request is built for a target"
    assert all(a is b for a, b in zip(out, requests, strict=True))
    assert {(r.callback, r.errback, r.dont_filter, len(r.cb_kwargs)) for r in out} == {
        (recorder.sent, recorder.decided, True, 0)
    }
    assert out[0].meta["walsh_plan_callback"] == "parse"


def test_a_host_is_canonicalised_once(monkeypatch):
    hosts.canonical.cache_clear()
    read = Counted(hosts._url_ipv4)
    monkeypatch.setattr(hosts, "_url_ipv4", read)
    for n in range(1_000):
        assert hosts.normalise_host(f"{BASE}{n}") == "127.0.0.1"
    assert read.calls == 1


def test_a_dry_run_counts_no_request_for_progress(tmp_path):
    crawler = get_crawler(
        scrapy.Spider, settings_dict={"ADDONS": {Addon: 500}, "WALSH_STATE_URI": f"sqlite:///{tmp_path}/s.sqlite3"}
    )
    crawler._apply_settings()
    CrawlContext.of(crawler).explain()
    progress = Progress.from_crawler(crawler)
    request = scrapy.Request(f"{BASE}1")
    crawler.signals.send_catch_log(signals.request_reached_downloader, request=request, spider=None)
    assert progress.in_downloader == 1
    progress.spider_opened(crawler.spider)  # a dry run logs no progress: its counts are switched off
    for _ in range(3):
        crawler.signals.send_catch_log(signals.request_reached_downloader, request=request, spider=None)
    assert (progress.in_downloader, progress.task) == (1, None)
