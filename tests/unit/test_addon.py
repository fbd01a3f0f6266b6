"""The add-on on real Crawler objects: placement, preset, and fail-closed start-up."""

import logging

import pytest
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.misc import load_object
from scrapy.utils.test import get_crawler, get_reactor_settings

from scrapy_walsh import Addon
from scrapy_walsh.conformance import (
    ConformanceError,
    ConformanceGuard,
    enabled_components,
)
from scrapy_walsh.outputs.summary import ComplianceSummary
from scrapy_walsh.policy.vocabulary import requirement_name
from scrapy_walsh.preset import preset
from scrapy_walsh.settings import USER_AGENT, WALSH_SETTINGS


def crawler_with(**settings):
    return get_crawler(settings_dict={"ADDONS": {Addon: 500}, **settings})


def enabled(crawler, name):
    return [load_object(c) for c in enabled_components(crawler.settings, name)]


def test_places_every_component_and_removes_scrapy_robots_middleware():
    crawler = crawler_with(ROBOTSTXT_OBEY=True)
    mws = enabled(crawler, "DOWNLOADER_MIDDLEWARES")
    assert RobotsTxtMiddleware not in mws
    # R1 has one enforcement, the checkpoint: no middleware sets the User-Agent besides it
    assert not [m for m in mws if m.__name__ == "IdentityMiddleware"]
    assert (
        crawler.settings.getdict("DOWNLOAD_HANDLERS")["http"]
        == "scrapy_walsh.sending.checkpoint.CheckpointDownloadHandler"
    )
    exts = enabled(crawler, "EXTENSIONS")
    assert ConformanceGuard in exts and ComplianceSummary in exts


def test_preset_is_written_at_addon_priority_and_defaults_at_default_priority():
    crawler = crawler_with()
    for entry in preset(crawler.settings):
        if entry.name.startswith("DOWNLOAD_HANDLERS") and "DOWNLOAD_HANDLERS" in get_reactor_settings():
            continue  # a reactorless test run sets aiohttp at project priority: the add-on wraps it
        assert crawler.settings.getpriority(entry.name) == SETTINGS_PRIORITIES["addon"], entry.name
        assert crawler.settings[entry.name] == entry.value, entry.name
    for setting in WALSH_SETTINGS:
        if setting.name == "WALSH_DOWNLOAD_HANDLER" and "DOWNLOAD_HANDLERS" in get_reactor_settings():
            continue  # the reactorless run's aiohttp handler is what the checkpoint wraps
        assert crawler.settings.getpriority(setting.name) == SETTINGS_PRIORITIES["default"]
        assert crawler.settings[setting.name] == setting.default
    assert crawler.settings["USER_AGENT"] == USER_AGENT
    assert crawler.settings.getint("CONCURRENT_REQUESTS") == 3
    assert crawler.settings.getfloat("DOWNLOAD_DELAY_JITTER") == 0.0


def test_stricter_project_values_win_and_follow_the_raised_floor():
    crawler = crawler_with(DOWNLOAD_DELAY=2.5)
    assert crawler.settings.getfloat("DOWNLOAD_DELAY") == 2.5
    raised = crawler_with(WALSH_MIN_INTERVAL=3)
    assert raised.settings.getfloat("DOWNLOAD_DELAY") == 3.0


@pytest.mark.parametrize(
    ("settings", "setting", "requirement"),
    [
        ({"CONCURRENT_REQUESTS": 8}, "CONCURRENT_REQUESTS", "R4"),
        ({"CONCURRENT_REQUESTS": 4}, "CONCURRENT_REQUESTS", "R4"),
        ({"CONCURRENT_REQUESTS": 0}, "CONCURRENT_REQUESTS", "R4"),
        ({"CONCURRENT_REQUESTS": "many"}, "CONCURRENT_REQUESTS", "R4"),
        ({"DOWNLOAD_DELAY": 0.5}, "DOWNLOAD_DELAY", "R4"),
        ({"WALSH_MIN_INTERVAL": 2, "DOWNLOAD_DELAY": 1}, "DOWNLOAD_DELAY", "R4"),
        ({"DOWNLOAD_DELAY_JITTER": 0.5}, "DOWNLOAD_DELAY_JITTER", "R4"),
        ({"RANDOMIZE_DOWNLOAD_DELAY": True}, "RANDOMIZE_DOWNLOAD_DELAY", "R4"),
        ({"WALSH_MIN_INTERVAL": 0.5}, "WALSH_MIN_INTERVAL", "R4"),
        ({"WALSH_MIN_INTERVAL": "fast"}, "WALSH_MIN_INTERVAL", "R4"),
        ({"DOWNLOAD_SLOTS": {"a.example": {"delay": 0.2}}}, "DOWNLOAD_SLOTS", "R4"),
        ({"DOWNLOAD_SLOTS": {"a.example": {"jitter": 0.3}}}, "DOWNLOAD_SLOTS", "R4"),
        ({"WALSH_ROBOTS_TOKEN": "Walsh Research/1.0"}, "WALSH_ROBOTS_TOKEN", "R1"),
        ({"WALSH_USER_AGENT": "Bot\r\nX-Injected: 1"}, "WALSH_USER_AGENT", "R1"),
        ({"WALSH_USER_AGENT": ""}, "WALSH_USER_AGENT", "R1"),
        ({"WALSH_BLOCKLIST_URL": ""}, "WALSH_BLOCKLIST_URL", "R3"),
        ({"WALSH_BLOCKLIST_URL": "ftp://wal.sh/list"}, "WALSH_BLOCKLIST_URL", "R3"),
        ({"WALSH_STATE_URI": "postgres://db/walsh"}, "WALSH_STATE_URI", "R3"),
        ({"WALSH_STATE_URI": "sqlite:///:memory:"}, "WALSH_STATE_URI", "R3"),
        ({"WALSH_STATE_URI": "redis:///0"}, "WALSH_STATE_URI", "R3"),  # no server named
        ({"WALSH_ALLOW_PRIVATE_ADDRESSES": "127.0.0.2/8"}, "WALSH_ALLOW_PRIVATE_ADDRESSES", "addresses"),
        ({"WALSH_ALLOW_PRIVATE_ADDRESSES": 42}, "WALSH_ALLOW_PRIVATE_ADDRESSES", "addresses"),
        ({"WALSH_MIN_INTERVALL": 2}, "WALSH_MIN_INTERVALL", "configuration"),
        ({"WALSH_ROBOTS_MODE": "obey"}, "WALSH_ROBOTS_MODE", "R2"),
        ({"WALSH_ROBOTS_CACHE_SECONDS": 0}, "WALSH_ROBOTS_CACHE_SECONDS", "R2"),
        ({"WALSH_BLOCKLIST_EXTRA": ["example.com/path"]}, "WALSH_BLOCKLIST_EXTRA", "R3"),
        ({"WALSH_BLOCKLIST_SCHEMA_URL": "file:///etc/schema.json"}, "WALSH_BLOCKLIST_SCHEMA_URL", "R3"),
        ({"WALSH_MAX_CRAWL_DELAY": 0.5}, "WALSH_MAX_CRAWL_DELAY", "R4"),
        ({"WALSH_BACKOFF_HTTP_CODES": [429]}, "WALSH_BACKOFF_HTTP_CODES", "R5"),
        ({"WALSH_BACKOFF_BASE": -1}, "WALSH_BACKOFF_BASE", "R5"),
        ({"WALSH_BACKOFF_MAX_DELAY": 0.1}, "WALSH_BACKOFF_MAX_DELAY", "R5"),
        ({"WALSH_BACKOFF_MAX_RETRIES": "lots"}, "WALSH_BACKOFF_MAX_RETRIES", "R5"),
        ({"RETRY_HTTP_CODES": [500, 503]}, "RETRY_HTTP_CODES", "R5"),
        ({"HTTPCACHE_ENABLED": True}, "HTTPCACHE_ENABLED", "R6"),
        ({"WALSH_MAX_FIELD_CHARS": 0}, "WALSH_MAX_FIELD_CHARS", "R6"),
        ({"WALSH_REFETCH_INTERVAL": -5}, "WALSH_REFETCH_INTERVAL", "R8"),
    ],
)
def test_refuses_to_start_naming_setting_and_requirement(settings, setting, requirement):
    with pytest.raises(ConformanceError) as info:
        crawler_with(**settings)
    message = str(info.value)
    assert f"{setting} breaks {requirement_name(requirement)}" in message, "the requirement by number and subject"
    assert "seed 0" not in message and "checklist #-" not in message
    assert any(f.setting == setting and f.requirement == requirement for f in info.value.findings)


class OwnPipeline:
    def process_item(self, item):
        return item


@pytest.mark.parametrize(
    "pipelines",
    [
        {"scrapy.pipelines.images.ImagesPipeline": 1, "tests.unit.test_addon.OwnPipeline": 300},
        {"scrapy.pipelines.files.FilesPipeline": 1},
    ],
)
def test_media_pipelines_are_switched_off_with_one_warning(caplog, pipelines):
    """The preset disables sub-resources: a media pipeline no longer refuses the start."""
    with caplog.at_level(logging.WARNING, logger="scrapy_walsh"):
        crawler = crawler_with(ITEM_PIPELINES=pipelines)  # its ConformanceGuard logs the warnings
    active = crawler.settings.getdict("ITEM_PIPELINES")
    assert [p for p, order in active.items() if order is None] == [next(iter(pipelines))]
    assert active.get("tests.unit.test_addon.OwnPipeline") == pipelines.get("tests.unit.test_addon.OwnPipeline")
    warned = [r.getMessage() for r in caplog.records if "switched off by the preset" in r.getMessage()]
    name = next(iter(pipelines)).rsplit(".", 1)[-1]
    assert len(warned) == 1 and name in warned[0] and "R6" in warned[0], caplog.text


def test_an_unreadable_value_fails_closed_with_the_reason():
    with pytest.raises(ConformanceError, match="delay_floor: cannot audit") as info:
        crawler_with(DOWNLOAD_SLOTS={"a.example": {"delay": "soon"}})
    assert "could not convert string to float: 'soon'" in str(info.value)


def test_misspelt_setting_suggests_the_real_name():
    with pytest.raises(ConformanceError, match="did you mean WALSH_MIN_INTERVAL"):
        crawler_with(WALSH_MIN_INTERVALL=2)


def test_refusal_lists_every_broken_setting_at_once():
    with pytest.raises(ConformanceError) as info:
        crawler_with(CONCURRENT_REQUESTS=4, DOWNLOAD_DELAY=0.1)
    assert {f.setting for f in info.value.findings} == {"CONCURRENT_REQUESTS", "DOWNLOAD_DELAY"}


def test_another_user_agent_setting_is_allowed_but_warned(caplog):
    with caplog.at_level(logging.WARNING, logger="scrapy_walsh"):
        crawler = crawler_with(USER_AGENT="MyBot/2.0")
    assert crawler.settings["USER_AGENT"] == "MyBot/2.0"
    assert any("USER_AGENT" in r.getMessage() and "overridden" in r.getMessage() for r in caplog.records)


class LoosenAddon:
    """A later add-on that tries to undo the contract after ours has run."""

    def __init__(self, changes):
        self.changes = changes

    def update_settings(self, settings):
        for name, value in self.changes.items():
            if name == "DOWNLOADER_MIDDLEWARES":
                for cls, prio in value.items():
                    settings.set_in_component_priority_dict(name, cls, prio)
            else:
                settings.set(name, value, "addon")


def _loosen(changes):
    return type("Loosen", (LoosenAddon,), {"__init__": lambda self: LoosenAddon.__init__(self, changes)})


@pytest.mark.parametrize(
    ("changes", "setting"),
    [
        ({"CONCURRENT_REQUESTS": 4}, "CONCURRENT_REQUESTS"),
        ({"DOWNLOADER_MIDDLEWARES": {RobotsTxtMiddleware: 100}}, "DOWNLOADER_MIDDLEWARES"),
        (
            {"DOWNLOADER_MIDDLEWARES": {"scrapy_walsh.middlewares.robots_gate.RobotsMiddleware": None}},
            "DOWNLOADER_MIDDLEWARES",
        ),
        (
            {"DOWNLOADER_MIDDLEWARES": {"scrapy_walsh.middlewares.blocklist.BlocklistMiddleware": None}},
            "DOWNLOADER_MIDDLEWARES",
        ),
        (
            {"DOWNLOADER_MIDDLEWARES": {"scrapy_walsh.middlewares.pacing.PacingMiddleware": None}},
            "DOWNLOADER_MIDDLEWARES",
        ),
        (
            {"DOWNLOADER_MIDDLEWARES": {"scrapy_walsh.middlewares.backoff.BackoffMiddleware": None}},
            "DOWNLOADER_MIDDLEWARES",
        ),
        ({"RETRY_HTTP_CODES": [429, 503]}, "RETRY_HTTP_CODES"),
        ({"ITEM_PIPELINES": {"scrapy.pipelines.images.ImagesPipeline": 1}}, "ITEM_PIPELINES"),
    ],
)
def test_a_later_addon_cannot_loosen_the_contract(changes, setting):
    with pytest.raises(ConformanceError) as info:
        get_crawler(settings_dict={"ADDONS": {Addon: 500, _loosen(changes): 900}})
    assert setting in {f.setting for f in info.value.findings}


def test_non_respect_robots_modes_start_loudly(caplog):
    with caplog.at_level(logging.WARNING):
        crawler = crawler_with(WALSH_ROBOTS_MODE="report_only")
        ConformanceGuard.from_crawler(crawler)
    assert "this crawl does NOT meet R2" in caplog.text


def test_another_priority_queue_is_a_warning_not_a_refusal(caplog):
    with caplog.at_level(logging.WARNING):
        crawler = crawler_with(SCHEDULER_PRIORITY_QUEUE="scrapy.pqueues.DownloaderAwarePriorityQueue")
        ConformanceGuard.from_crawler(crawler)
    assert "is not the politeness-aware queue" in caplog.text


def test_a_project_cannot_remove_a_gate():
    """The add-on places its gates after the project's settings: removal doesn't stick."""
    crawler = crawler_with(DOWNLOADER_MIDDLEWARES={"scrapy_walsh.middlewares.robots_gate.RobotsMiddleware": None})
    from scrapy_walsh.middlewares.robots_gate import RobotsMiddleware

    assert RobotsMiddleware in enabled(crawler, "DOWNLOADER_MIDDLEWARES")


def test_a_disabled_frequency_guard_is_a_warning_naming_r8(caplog):
    with caplog.at_level(logging.WARNING):
        ConformanceGuard.from_crawler(crawler_with(WALSH_REFETCH_INTERVAL=0))
    assert "R8" in caplog.text and "disables the frequency guard" in caplog.text


#: Run in a fresh interpreter: what the process looks like after each step, as JSON lines.
CLEAN_REFUSAL_PROBE = """
import json, logging, sys
import twisted.logger
from scrapy.settings import Settings
from scrapy_walsh.outputs import clean_refusal
from scrapy_walsh.addon import Addon
from scrapy_walsh.conformance import FAIL, ConformanceError, Finding

python_hook = sys.excepthook
LOGGERS = ("asyncio", "twisted", "scrapy.crawler", "scrapy.core.engine", "scrapy.utils.defer", "scrapy.core.scraper")

def seen():
    return {
        "hook_replaced": sys.excepthook is not python_hook,
        "filters": sum(len(logging.getLogger(name).filters) for name in LOGGERS),
        "twisted_logging_begun": twisted.logger.globalLogBeginner._temporaryObserver is None,
    }

print(json.dumps(seen()))
refusal = ConformanceError([Finding("4", "R4", FAIL, "CONCURRENT_REQUESTS", "8 requests in flight")])
for _ in range(2):
    Addon().update_settings(Settings())
try:
    Addon().update_settings(Settings({"CONCURRENT_REQUESTS": 8}))
except ConformanceError:
    pass
clean_refusal.report(refusal)
print(json.dumps(seen()))
"""


def test_neither_the_addon_nor_a_refusal_changes_the_process():
    """No ``sys.excepthook``, no filter on another library's logger, no Twisted log beginning:
    before and after the add-on ran, refused, and a refusal was said."""
    import json
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", CLEAN_REFUSAL_PROBE], capture_output=True, text=True, check=True, timeout=60
    )
    before, after = (json.loads(line) for line in result.stdout.splitlines())
    assert before == after == {"hook_replaced": False, "filters": 0, "twisted_logging_begun": False}
    assert result.stderr.count("CONCURRENT_REQUESTS breaks R4") == 1  # said once, by report()


def test_the_journal_switched_off_starts_loudly_and_a_bad_value_is_refused(caplog):
    with caplog.at_level(logging.WARNING):
        ConformanceGuard.from_crawler(crawler_with(WALSH_JOURNAL=False))
    assert "WALSH_JOURNAL: False loosens proof of conformance" in caplog.text
    assert "nothing proves what this crawl sent" in caplog.text
    with pytest.raises(ConformanceError) as info:
        ConformanceGuard.from_crawler(crawler_with(WALSH_JOURNAL="maybe"))
    assert "WALSH_JOURNAL" in {f.setting for f in info.value.findings}
