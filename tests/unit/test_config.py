"""WalshConfig: one typed, frozen config per crawler, refused exactly where the audit refuses."""

from __future__ import annotations

import ast
import dataclasses
import ipaddress
import re
from pathlib import Path

import pytest
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

import scrapy_walsh
from scrapy_walsh import Addon
from scrapy_walsh.commands.check import effective_settings
from scrapy_walsh.config import PARSERS, RELATIVE, WalshConfig, attribute, number
from scrapy_walsh.conformance import Status, audit_settings
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.exceptions import ConformanceError
from scrapy_walsh.settings import MIN_INTERVAL_FLOOR, WALSH_SETTINGS

PACKAGE = Path(scrapy_walsh.__file__).parent


def effective(**project):
    """The settings a crawl would get, even when the audit refuses them."""
    settings, _ = effective_settings(Settings({"ADDONS": {Addon: 500}, **project}), None)
    return settings


def test_one_field_and_one_parser_per_setting_in_registry_order():
    assert [f.name for f in dataclasses.fields(WalshConfig)] == [attribute(s.name) for s in WALSH_SETTINGS]
    assert set(PARSERS) | set(RELATIVE) == {s.name for s in WALSH_SETTINGS}
    assert not set(PARSERS) & set(RELATIVE)


def test_defaults_are_typed():
    config = WalshConfig.from_settings(effective())
    assert config.min_interval == MIN_INTERVAL_FLOOR and isinstance(config.min_interval, float)
    assert config.backoff_http_codes == (429, 503)
    assert config.backoff_max_retries == 5 and config.max_field_chars == 2000
    assert config.blocklist_extra == () and config.blocklist_schema_url is not None
    assert config.robots_mode == "respect" and config.dedup_reset is False
    assert not config.allow_private_addresses.allow_all and config.allow_private_addresses.networks == ()
    assert config.state_uri is None and config.state_location().scheme == "sqlite"
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.min_interval = 0.1  # type: ignore[misc]


def test_strings_from_the_command_line_are_parsed_once():
    config = WalshConfig.from_settings(
        effective(
            WALSH_MIN_INTERVAL="2.5",
            WALSH_MAX_CRAWL_DELAY="30",
            WALSH_BACKOFF_HTTP_CODES="503,429,500",
            WALSH_BACKOFF_MAX_RETRIES="3",
            WALSH_BLOCKLIST_EXTRA="a.example, b.example,",
            WALSH_ALLOW_PRIVATE_ADDRESSES="127.0.0.2/32",
            WALSH_DEDUP_RESET="true",
            WALSH_STATE_URI="redis://localhost:6379/0",
            DOWNLOAD_DELAY=2.5,
        )
    )
    assert config.min_interval == 2.5 and config.max_crawl_delay == 30.0
    assert config.backoff_http_codes == (503, 429, 500)
    assert config.backoff_max_retries == 3
    assert config.blocklist_extra == ("a.example", "b.example")
    assert config.allow_private_addresses.networks == (ipaddress.ip_network("127.0.0.2/32"),)
    assert config.dedup_reset is True
    assert config.state_uri is not None and config.state_uri.scheme == "redis"
    assert config.state_location() is config.state_uri


#: (a project's values, the setting the refusal names): one bad value per WALSH_* setting
#: that has a rule, and cross-setting limits.
REFUSED = [
    ({"WALSH_USER_AGENT": "Bot\r\nX-Injected: 1"}, "WALSH_USER_AGENT"),
    ({"WALSH_ROBOTS_TOKEN": "Walsh Research/1.0"}, "WALSH_ROBOTS_TOKEN"),
    ({"WALSH_BLOCKLIST_URL": "ftp://wal.sh/list"}, "WALSH_BLOCKLIST_URL"),
    ({"WALSH_BLOCKLIST_SCHEMA_URL": "file:///etc/schema.json"}, "WALSH_BLOCKLIST_SCHEMA_URL"),
    ({"WALSH_BLOCKLIST_EXTRA": ["example.com/path"]}, "WALSH_BLOCKLIST_EXTRA"),
    ({"WALSH_ROBOTS_MODE": "obey"}, "WALSH_ROBOTS_MODE"),
    ({"WALSH_ROBOTS_CACHE_SECONDS": 90000}, "WALSH_ROBOTS_CACHE_SECONDS"),
    ({"WALSH_MIN_INTERVAL": "fast"}, "WALSH_MIN_INTERVAL"),
    ({"WALSH_MAX_CRAWL_DELAY": 0.5}, "WALSH_MAX_CRAWL_DELAY"),
    ({"WALSH_MIN_INTERVAL": 5, "DOWNLOAD_DELAY": 5, "WALSH_MAX_CRAWL_DELAY": 4}, "WALSH_MAX_CRAWL_DELAY"),
    ({"WALSH_BACKOFF_HTTP_CODES": [429]}, "WALSH_BACKOFF_HTTP_CODES"),
    ({"WALSH_BACKOFF_BASE": 0}, "WALSH_BACKOFF_BASE"),
    ({"WALSH_BACKOFF_MAX_DELAY": 0.1}, "WALSH_BACKOFF_MAX_DELAY"),
    ({"WALSH_BACKOFF_MAX_RETRIES": -1}, "WALSH_BACKOFF_MAX_RETRIES"),
    ({"WALSH_MAX_FIELD_CHARS": "lots"}, "WALSH_MAX_FIELD_CHARS"),
    ({"WALSH_REFETCH_INTERVAL": "daily"}, "WALSH_REFETCH_INTERVAL"),
    ({"WALSH_DEDUP_RESET": "maybe"}, "WALSH_DEDUP_RESET"),
    ({"WALSH_ALLOW_PRIVATE_ADDRESSES": "127.0.0.2/8"}, "WALSH_ALLOW_PRIVATE_ADDRESSES"),
    ({"WALSH_STATE_URI": "sqlite:///:memory:"}, "WALSH_STATE_URI"),
    ({"WALSH_MIN_INTERVALL": 2}, "WALSH_MIN_INTERVALL"),
    ({"CONCURRENT_REQUESTS": 8}, "CONCURRENT_REQUESTS"),
]


@pytest.mark.parametrize(("project", "setting"), REFUSED)
def test_the_audit_refuses_each_bad_value_at_start_naming_its_setting(project, setting):
    with pytest.raises(ConformanceError) as at_start:
        get_crawler(settings_dict={"ADDONS": {Addon: 500}, **project})
    assert setting in {f.setting for f in at_start.value.findings}
    assert str(at_start.value) == str(ConformanceError(audit_settings(effective(**project))))


def test_a_crawler_no_audit_passed_has_no_config():
    """The config is made by the audit that passes it (ConformanceGuard): a component of a
    crawl without the add-on is refused with the package's error, never run on unaudited values."""
    with pytest.raises(ConformanceError, match="settings were not audited") as refused:
        CrawlContext.of(get_crawler(settings_dict={"WALSH_REFETCH_INTERVAL": 60})).config  # noqa: B018 - the read refuses
    assert [f.setting for f in refused.value.findings] == ["EXTENSIONS"]


def test_every_value_a_parser_refuses_is_a_failing_finding_of_the_audit():
    """No parser refuses silently: each refusal is a row of the audit, naming the setting."""
    for project, setting in REFUSED:
        if setting.startswith("WALSH_") and setting in PARSERS | RELATIVE:
            settings = effective(**project)
            failing = {f.setting for f in audit_settings(settings) if f.status == Status.FAIL}
            assert setting in failing, project


def test_one_config_per_crawler_shared_by_every_component():
    crawler = get_crawler(settings_dict={"ADDONS": {Addon: 500}, "WALSH_REFETCH_INTERVAL": 60})
    config = CrawlContext.of(crawler).config
    assert CrawlContext.of(crawler).config is config and config.refetch_interval == 60.0
    other = get_crawler(settings_dict={"ADDONS": {Addon: 500}})
    assert CrawlContext.of(other).config is not config and CrawlContext.of(other).config.refetch_interval == 86400.0


def test_the_number_parser_reads_what_getfloat_reads():
    assert number("2.5") == 2.5 and number(2) == 2.0
    for bad in ("fast", None, [1]):
        with pytest.raises(ValueError, match="not a number"):
            number(bad)


def test_conformance_error_is_exported_lazily_and_once():
    from scrapy_walsh import conformance

    assert scrapy_walsh.ConformanceError is ConformanceError is conformance.ConformanceError
    assert "ConformanceError" in scrapy_walsh.__all__
    assert issubclass(ConformanceError, ValueError)
    assert [s.value for s in Status] == ["pass", "warn", "fail"] and Status.FAIL == "fail"


# --- who reads WALSH_* settings ---------------------------------------------------------

#: The config package parses every WALSH_* setting; settings.py is their registry, and the preset
#: (preset.py, the add-on's) reads them through config's parsers.
READERS = {"settings.py"}
CONFIG = PACKAGE / "config"
SETTINGS_GETTERS = {"get", "getfloat", "getint", "getbool", "getlist", "getdict", "getdictorlist", "getwithbase"}


def walsh_reads(path: Path) -> list[str]:
    """Where a module reads a ``WALSH_*`` name from settings (``s["WALSH_X"]``, ``s.get("WALSH_X")``...)."""

    def walsh(node: ast.AST) -> bool:
        return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("WALSH_")

    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Subscript) and walsh(node.slice):
            found.append(f"{path.name}:{node.lineno}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in SETTINGS_GETTERS
            and node.args
            and walsh(node.args[0])
        ):
            found.append(f"{path.name}:{node.lineno}")
        elif isinstance(node, ast.Compare) and walsh(node.left) and isinstance(node.ops[0], ast.In | ast.NotIn):
            found.append(f"{path.name}:{node.lineno}")
    return found


def test_only_the_config_reads_walsh_settings():
    modules = [p for p in sorted(PACKAGE.rglob("*.py")) if p.name not in READERS and CONFIG not in p.parents]
    offenders = [hit for path in modules for hit in walsh_reads(path)]
    assert not offenders, offenders


def test_the_reader_scan_finds_reads(tmp_path):
    """The scan itself can fail: it sees the three ways a setting is read."""
    module = tmp_path / "m.py"
    module.write_text('s = {}\nx = s["WALSH_A"]\ny = s.getfloat("WALSH_B")\nz = "WALSH_C" in s\nok = {"WALSH_D": 1}\n')
    assert walsh_reads(module) == ["m.py:2", "m.py:3", "m.py:4"]


def test_the_audit_names_components_by_class_not_by_path_strings():
    """Component paths come from the classes the add-on places, never from string constants."""
    dotted = re.compile(r"^scrapy_walsh\.[\w.]+\.[A-Z]\w+$")
    offenders = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value}"
        for path in sorted((PACKAGE / "conformance").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and dotted.match(node.value)
    ]
    assert not offenders, offenders
