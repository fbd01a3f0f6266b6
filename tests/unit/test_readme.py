"""The README's tables describe what the code does: same settings, preset, stats, hosts."""

import re

from scrapy.settings import Settings

from scrapy_walsh.demo.hosts import HOSTS
from scrapy_walsh.settings import WALSH_SETTINGS, preset

from ..helpers import REPO

README = (REPO / "README.md").read_text()


def table(marker):
    block = README.split(f"<!-- {marker} -->", 1)[1].split(f"<!-- /{marker} -->", 1)[0]
    rows = [line for line in block.strip().splitlines() if line.startswith("|")][2:]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def unquote(cell):
    return cell.strip("`")


def test_settings_table_matches_the_registry():
    rows = {unquote(r[0]): r for r in table("settings-table")}
    assert list(rows) == [s.name for s in WALSH_SETTINGS]
    for setting in WALSH_SETTINGS:
        row = rows[setting.name]
        assert unquote(row[1]) == str(setting.default), setting.name
        assert row[2] == setting.requirement, setting.name


def test_preset_table_matches_the_addon():
    names = [unquote(r[0]) for r in table("preset-table")]
    assert names == [entry.name for entry in preset(Settings())]


def test_every_stat_key_in_the_code_is_documented():
    documented = [unquote(r[0]) for r in table("stats-table")]
    patterns = [
        re.compile(re.sub(r"<[^>]+>", "[^/]+", re.escape(k).replace(r"\<", "<").replace(r"\>", ">")) + "$")
        for k in documented
    ]
    used = set()
    for path in (REPO / "scrapy_walsh").rglob("*.py"):
        used |= set(re.findall(r"""["'](walsh/[a-z0-9_/]+)""", path.read_text()))
    assert used, "no stat keys found: the scan is broken"
    for key in used:
        full = key.rstrip("/")
        assert any(p.match(full) or p.match(full + "/x") for p in patterns), f"{key} is not in the README"


def test_hosts_table_matches_the_demo_site():
    rows = table("hosts-table")
    assert [(unquote(r[0]), unquote(r[1])) for r in rows] == [(h.name, h.ip) for h in HOSTS.values()]
