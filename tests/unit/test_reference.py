"""The reference pages are generated from the code's registries, and the registries are complete.

docs/_ext/walsh_reference.py writes docs/reference/*.md at build time; these tests check
the generator covers every registry entry, that every stat key the code writes is in the
stats registry, and that the README stays the short front page it is meant to be.
"""

import importlib.util
import re

from scrapy.settings import Settings

from demo_site.hosts import HOSTS
from scrapy_walsh.exceptions import DENIALS, NOT_SENT
from scrapy_walsh.policy.vocabulary import META_KEYS, NAMESPACES, Meta, Namespace
from scrapy_walsh.preset import preset
from scrapy_walsh.settings import WALSH_SETTINGS
from scrapy_walsh.stats import STATS, documented
from tests.helpers import PACKAGE, REPO

_spec = importlib.util.spec_from_file_location("walsh_reference", REPO / "docs" / "_ext" / "walsh_reference.py")
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)


def _section(page: str, name: str) -> str:
    """The text of one setting's section: from its heading to the next one."""
    start = page.index(f"\n## {name}\n")
    end = page.find("\n## ", start + 1)
    return page[start : end if end > 0 else None]


def test_settings_page_gives_every_setting_a_section_with_its_default_requirement_and_loosening():
    page = reference.settings_page()
    for setting in WALSH_SETTINGS:
        section = _section(page, setting.name)
        assert repr(setting.default) in section
        assert f"- **Requirement:** {setting.requirement}\n" in section
        assert ("- **Loosens:** yes." in section) == bool(setting.loosens)
        assert setting.doc in section
    assert not re.search(r"^\|", page, re.MULTILINE), "no table: the page's column is too narrow for one"


def test_every_requirement_is_named_not_numbered():
    """A requirement is an R, or a rule's name: never a tracker number or a bare word like "memory"."""
    named = re.compile(r"R[1-9]|address rule|usage preferences|proof of conformance|hostile servers")
    for entry in (*WALSH_SETTINGS, *preset(Settings())):
        assert named.match(entry.requirement), f"{entry.name}: {entry.requirement!r}"


def test_the_loosening_page_lists_exactly_the_settings_that_loosen():
    page = (REPO / "docs" / "loosening.md").read_text()
    listed = set(re.findall(r"^\| `(WALSH_[A-Z_]+)` \|", page, re.MULTILINE))
    assert listed == {s.name for s in WALSH_SETTINGS if s.loosens}


def test_the_committed_reference_pages_are_current(tmp_path):
    """The generated pages are in git, so a reader of the repository reaches them; `make docs` rewrites
    them from the registries, and this fails until the rewritten pages are committed."""
    for path in reference.write_pages(tmp_path):
        committed = REPO / "docs" / "reference" / path.name
        assert committed.exists(), f"{committed} is missing: run make docs and commit it"
        assert committed.read_text() == path.read_text(), f"{committed} is stale: run make docs and commit it"


def test_preset_page_lists_the_preset_and_every_component():
    from scrapy_walsh.addon import COMPONENTS

    page = reference.preset_page()
    assert "never looser" not in page, "five WALSH_* settings can loosen: the page says which, not 'never'"
    for entry in preset(Settings()):
        assert f"\n## {entry.name}\n" in page
    for _, cls, _ in COMPONENTS:
        assert f"`{cls.__module__}.{cls.__qualname__}`" in page


def test_every_stat_key_in_the_code_is_in_the_registry():
    used = set()
    for path in PACKAGE.rglob("*.py"):
        used |= set(re.findall(r"""["'](walsh/[a-z0-9_/]+)""", path.read_text()))
    used -= {s.key for s in STATS}
    assert used or STATS, "no stat keys found: the scan is broken"
    for key in used:
        assert documented(key.rstrip("/")), f"{key} is not in scrapy_walsh.stats.STATS"
    page = reference.stats_page()
    assert all(f"`{s.key}`" in page for s in STATS)


def test_meta_keys_namespaces_and_exceptions_are_all_documented():
    assert set(META_KEYS) == set(Meta)
    assert set(NAMESPACES) == set(Namespace)
    meta = reference.meta_keys_page()
    assert all(f"`{key.value}`" in meta for key in Meta) and all(f"`{ns.value}`" in meta for ns in Namespace)
    exceptions = reference.exceptions_page()
    assert all(f"`{cls.__name__}`" in exceptions for cls in (*DENIALS, *NOT_SENT))


def test_hosts_page_matches_the_demo_site():
    page = reference.hosts_page()
    assert all(f"| `{h.name}` | `{h.ip}` |" in page for h in HOSTS.values())


def test_write_pages_writes_each_page_once(tmp_path):
    written = reference.write_pages(tmp_path)
    assert sorted(p.name for p in written) == sorted(reference.PAGES)
    stamps = {p: p.stat().st_mtime_ns for p in written}
    reference.write_pages(tmp_path)
    assert {p: p.stat().st_mtime_ns for p in written} == stamps, "unchanged pages are not rewritten"


def test_readme_is_a_short_front_page_with_live_links():
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    assert 'ADDONS = {"scrapy_walsh.Addon": 500}' in text
    for target in re.findall(r"\]\(([^)#]+\.md)\)", text):
        assert (REPO / target).exists() or target == "docs/index.md", target


def test_the_readme_first_screen_says_what_a_crawl_sends_and_how_to_start():
    """A newcomer reads the first 40 lines: the identity and how to change it, the specification,
    the install and the two commands, and where to look when something is unexpected."""
    from scrapy_walsh.settings import BLOCKLIST_URL, ROBOTS_TOKEN, USER_AGENT

    first = "\n".join((REPO / "README.md").read_text().splitlines()[:40])
    for needed in (
        USER_AGENT,
        f"`{ROBOTS_TOKEN}`",
        BLOCKLIST_URL,
        "WALSH_USER_AGENT",
        "WALSH_ROBOTS_TOKEN",
        "WALSH_BLOCKLIST_URL",
        "(docs/specification.md)",
        "pip install ",
        "make demo",
        "make test",
        "(docs/troubleshooting.md)",
    ):
        assert needed in first, needed
