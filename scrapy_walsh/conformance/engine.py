"""The rule engine: what a rule audits (``Subject``) and the helpers the rules share. Running
them is :mod:`.audit`; ``Finding`` and its ``Status`` live with ``ConformanceError`` in
:mod:`scrapy_walsh.exceptions`, and are imported from here as before.

One set of rules serves two callers: the add-on, which refuses to start a crawl when
any rule fails (fail closed on the MUSTs), and the ``scrapy walsh check`` command, which
prints every row. A rule reports ``fail`` only where a MUST would break; ``warn`` is
for choices that are legal but surprising (a ``USER_AGENT`` that will be overridden).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy.settings import SETTINGS_PRIORITIES, BaseSettings
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import load_object

from scrapy_walsh.components import PLACED
from scrapy_walsh.config import Readings
from scrapy_walsh.exceptions import FAIL, Finding
from scrapy_walsh.exceptions import PASS as PASS  # the rules read the statuses from here
from scrapy_walsh.exceptions import WARN as WARN
from scrapy_walsh.exceptions import Status as Status
from scrapy_walsh.policy.vocabulary import requirement_name

if TYPE_CHECKING:
    from collections.abc import Iterable


def loosens(row: str, requirement: str, setting: str, value: Any, what: str) -> Finding:
    """The one warning of a loosening setting: which requirement it relaxes, and how."""
    shown = f"{value:g}" if isinstance(value, int | float) and not isinstance(value, bool) else repr(value)
    return Finding(
        row,
        requirement,
        WARN,
        setting,
        f"{shown} loosens {requirement_name(requirement)}: {what} (a loosening setting: use it only where you may)",
    )


@dataclass(frozen=True)
class Subject:
    """What a rule audits: the effective settings, and their ``WALSH_*`` values parsed once."""

    settings: BaseSettings
    walsh: Readings


Rule = Callable[[Subject], Iterator[Finding]]


def holds(subject: Subject, *failure_rules: Rule) -> bool:
    """True when none of ``failure_rules`` reports a failure on these settings."""
    return not any(f.status == FAIL for check in failure_rules for f in check(subject))


# --- settings and components ---------------------------------------------------------


def user_set(settings: BaseSettings, name: str) -> bool:
    """True when ``name`` was set above Scrapy's defaults (project, spider, cmdline)."""
    return (settings.getpriority(name) or 0) > SETTINGS_PRIORITIES["default"]


def number(settings: BaseSettings, name: str) -> float | None:
    """A Scrapy (not ``WALSH_*``) number setting, or None when it is not a number."""
    try:
        return settings.getfloat(name)
    except (TypeError, ValueError):
        return None


def path_of(component: Any) -> str:
    """A component's dotted path, the one way the audit names a component."""
    return f"{component.__module__}.{component.__qualname__}"


def placed_in(component: type) -> str:
    """The setting the add-on places ``component`` in (from its component table)."""
    return next(setting for setting, cls, _ in PLACED if cls is component)


def enabled_components(settings: BaseSettings, setting: str) -> list[Any]:
    """The component list exactly as Scrapy's middleware managers build it."""
    with_base = getattr(settings, "get_component_priority_dict_with_base", None)
    compdict = with_base(setting) if with_base else settings.getwithbase(setting)
    return build_component_list(compdict)


def index(components: Iterable[Any], component: type) -> int | None:
    """Where ``component`` stands in an ordered component list (paths or classes), or None."""
    for i, entry in enumerate(components):
        try:
            if load_object(entry) is component:
                return i
        except (ImportError, NameError, ValueError):
            continue
    return None


def component_enabled(settings: BaseSettings, component: type, setting: str | None = None) -> bool:
    """True when ``component`` is enabled in its ``*_MIDDLEWARES``-style setting (with its base)."""
    return index(enabled_components(settings, setting or placed_in(component)), component) is not None


def media_pipeline(entry: Any) -> type | None:
    """The class of an ``ITEM_PIPELINES`` entry that downloads images or files (a ``MediaPipeline``
    subclass: Scrapy's ``ImagesPipeline``, ``FilesPipeline``, a project's own), else None."""
    from scrapy.pipelines.media import MediaPipeline

    try:
        component = load_object(entry) if isinstance(entry, str) else entry
    except (ImportError, NameError, ValueError):
        return None
    return component if isinstance(component, type) and issubclass(component, MediaPipeline) else None


def gate_removed(subject: Subject, row: str, requirement: str, component: type, what: str) -> Iterator[Finding]:
    """A failure when one of the add-on's components is disabled."""
    setting = placed_in(component)
    if not component_enabled(subject.settings, component, setting):
        yield Finding(row, requirement, FAIL, setting, f"{path_of(component)} is disabled; nothing consults {what}")
