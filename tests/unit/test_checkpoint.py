"""Issue 16: the preset sends http(s) through the checkpoint and disables every other scheme;
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
    httpx = "scrapy.core.downloader.handlers._httpx.HttpxDownloadHandler"
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
    assert DOWNLOAD_TIMEOUT_FLOOR == 5.0  # docs/architecture.md and tests/e2e/test_checkpoint_resends.py say 5 s
