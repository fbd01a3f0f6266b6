"""Usage preferences in robots.txt: one selected group's lines -> statements (pure).

Input is the ``(field, value[, line_number])`` lines of the group RFC 9309 selected for our
token (selecting it is the robots parser's job). Read: ``Content-Usage`` (per path, the longest
match), ``Content-Signal`` (group-wide) and RSL ``License`` (a reference only). Unknown fields
are ignored; nothing here raises. docs/preferences.md ("Each parser's reading") says why.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from scrapy_walsh.policy.preferences.model import Signal, Statement
from scrapy_walsh.policy.preferences.paths import PathPattern, PathRule, url_path, written_path
from scrapy_walsh.policy.preferences.syntax import parse_aipref, parse_content_signal

RobotsLine = tuple[str, str] | tuple[str, str, int]
#: ``explain`` quotes the line; a hostile one is cut to this many characters.
MAX_SOURCE_CHARS = 200
_CONTENT_USAGE = "content-usage"
_CONTENT_SIGNAL = "content-signal"
_LICENSE = "license"
_SP_HTAB = " \t"


def _source(field: str, value: str, line: int | None) -> str:
    where = "robots.txt" if line is None else f"robots.txt line {line}"
    text = f"{where}: {field}: {value}"
    return text if len(text) <= MAX_SOURCE_CHARS else text[: MAX_SOURCE_CHARS - 3] + "..."


@dataclass(frozen=True, slots=True)
class RobotsPreferences:
    """The usage records of one selected group, parsed once, asked per path."""

    usage_rules: tuple[PathRule, ...] = ()
    group_statements: tuple[Statement, ...] = ()

    @classmethod
    def from_lines(cls, lines: Iterable[RobotsLine]) -> RobotsPreferences:
        rules: list[PathRule] = []
        group: list[Statement] = []
        for entry in lines:
            field, value = str(entry[0]), str(entry[1])
            line = entry[2] if len(entry) == 3 else None
            name = field.strip(_SP_HTAB).lower()
            value = value.split("#", 1)[0].strip(_SP_HTAB + "\r\n")
            if name == _CONTENT_USAGE:
                rule = _usage_rule(value, _source("Content-Usage", value, line))
                if rule is not None:
                    rules.append(rule)
            elif name == _CONTENT_SIGNAL:
                source = _source("Content-Signal", value, line)
                group.append(Statement(Signal.CONTENT_SIGNAL_ROBOTS, source, parse_content_signal(value)))
            elif name == _LICENSE and value:
                source = _source("License", value, line)
                group.append(Statement(Signal.RSL_LICENSE, source, {}, reference=value[:2048]))
        return cls(tuple(rules), tuple(group))

    def statements(self, path: str) -> list[Statement]:
        """What this group says about ``path`` (path and query of the URL, as sent)."""
        target, written = url_path(path), written_path(path)
        matching = [rule for rule in self.usage_rules if rule.pattern.matches(target, written)]
        longest = max((rule.pattern.length for rule in matching), default=-1)
        chosen = [rule.statement for rule in matching if rule.pattern.length == longest]
        return chosen + list(self.group_statements)


def _usage_rule(value: str, source: str) -> PathRule | None:
    """attach-05 §3.2: a leading ``/`` starts a path, ended by the first SP or HTAB."""
    raw_path, preference = "", value
    if value.startswith("/"):
        cut = min((i for i in (value.find(" "), value.find("\t")) if i >= 0), default=len(value))
        raw_path, preference = value[:cut], value[cut:]
    pattern = PathPattern.parse(raw_path)
    if pattern is None:
        return None
    return PathRule(pattern, Statement(Signal.CONTENT_USAGE_ROBOTS, source, parse_aipref(preference)))
