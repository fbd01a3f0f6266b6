"""The preset sends http(s) through the checkpoint and disables every other scheme;
the audit refuses a project that undoes either, or a timeout under the floor."""

import pytest
from scrapy.settings import Settings
from scrapy.settings.default_settings import DOWNLOAD_HANDLERS_BASE

from scrapy_walsh import Addon, ConformanceError
from scrapy_walsh.conformance import FAIL, audit_settings
from scrapy_walsh.settings import CHECKPOINT_HANDLER, DOWNLOAD_TIMEOUT_FLOOR


def _settings(**values):
    settings = Settings(values, priority="project")
    Addon().update_settings(settings)
    return settings


def test_the_preset_disables_every_scheme_but_http_and_https():
    handlers = _settings().getwithbase("DOWNLOAD_HANDLERS")
    assert set(DOWNLOAD_HANDLERS_BASE) <= set(handlers)
    assert {s: h for s, h in handlers.items() if h is not None} == {
        "http": CHECKPOINT_HANDLER,
        "https": CHECKPOINT_HANDLER,
    }


def test_a_project_handler_for_https_is_wrapped_not_put_around_the_checkpoint():
    httpx = "scrapy.core.downloader.handlers._aiohttp.AiohttpDownloadHandler"  # a handler the add-on accepts
    settings = _settings(DOWNLOAD_HANDLERS={"https": httpx})
    assert settings.getwithbase("DOWNLOAD_HANDLERS")["https"] == CHECKPOINT_HANDLER
    assert settings["WALSH_DOWNLOAD_HANDLER"] == httpx
    assert settings.getwithbase("DOWNLOAD_HANDLERS")["file"] is None


@pytest.mark.parametrize(
    "late, message",
    [
        ({"file": "scrapy.core.downloader.handlers.file.FileDownloadHandler"}, "file re-enabled"),
        ({"http": "scrapy.core.downloader.handlers.http11.HTTP11DownloadHandler"}, "'http' is handled by"),
    ],
)
def test_the_audit_refuses_a_handler_set_after_the_add_on(late, message):
    settings = _settings()
    settings.set("DOWNLOAD_HANDLERS", {**settings.getdict("DOWNLOAD_HANDLERS"), **late}, priority="spider")
    found = [f for f in audit_settings(settings) if f.status == FAIL]
    assert [f.setting for f in found] == ["DOWNLOAD_HANDLERS"] and message in found[0].message


@pytest.mark.parametrize("value", [DOWNLOAD_TIMEOUT_FLOOR - 1, 0, float("nan"), "soon"])
def test_a_download_timeout_under_the_floor_is_refused(value):
    with pytest.raises(ConformanceError) as info:
        _settings(DOWNLOAD_TIMEOUT=value)
    assert [(f.setting, f.requirement) for f in info.value.findings] == [("DOWNLOAD_TIMEOUT", "R4")]
    assert "DOWNLOAD_TIMEOUT breaks R4" in str(info.value)


def test_scrapys_default_timeout_passes():
    assert not [f for f in audit_settings(_settings()) if f.status == FAIL]


def test_the_documented_floor():
    assert DOWNLOAD_TIMEOUT_FLOOR == 5.0  # docs/checkpoint.md and tests/e2e/test_checkpoint_resends.py say 5 s


def test_every_waiter_for_one_origins_robots_txt_gets_the_outcome(tmp_path):
    """The bug this guards against: calls 3 and 4 for one origin got None (a Deferred awaited twice hands the
    second awaiter None) and crashed with AttributeError on ``crawl_delay``."""
    import asyncio

    from scrapy import Request
    from scrapy.utils.test import get_crawler
    from twisted.internet.defer import Deferred

    from scrapy_walsh.middlewares.robots_gate import RobotsMiddleware
    from scrapy_walsh.policy.gates import RobotsFetch, robots_outcome

    crawler = get_crawler(settings_dict={"ADDONS": {Addon: 500}, "WALSH_STATE_URI": f"sqlite:///{tmp_path}/s.db"})
    gate = RobotsMiddleware.from_crawler(crawler)
    answer: Deferred = Deferred()

    async def fetch(origin, request):  # the network's part: robots.txt answers when we say so
        from scrapy.utils.defer import maybe_deferred_to_future

        return await maybe_deferred_to_future(answer), None  # the outcome, no record to store

    gate._fetch = fetch

    async def main():
        calls = [asyncio.ensure_future(gate.robots_for(Request("http://a.example/p"))) for _ in range(4)]
        await asyncio.sleep(0)
        answer.callback(robots_outcome("http://a.example", RobotsFetch(404, b"", False), 0.0))
        return await asyncio.gather(*calls)

    results = asyncio.run(main())
    assert all(r is not None and r.crawl_delay("Walsh-Research") is None for r in results)
