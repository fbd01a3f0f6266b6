"""The two value syntaxes of usage preferences, read into our purposes (pure).

aipref values are a Structured Field Dictionary parsed strictly with ``http-sf`` (vocab-07
§6.5); Content Signals are no Structured Field and real files write ``Search=Yes``, so they
are split leniently, case-insensitive. docs/preferences.md ("Each parser's reading") says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import http_sf

from scrapy_walsh.policy.preferences.model import AI_INPUT, SEARCH, TRAIN_AI, Preference

#: vocab-07 Table 1; the labels are ours already.
AIPREF_LABELS: Mapping[str, str] = MappingProxyType({"search": SEARCH, "train-ai": TRAIN_AI})
#: Content Signals label -> our purpose.
CONTENT_SIGNAL_LABELS: Mapping[str, str] = MappingProxyType(
    {"search": SEARCH, "ai-train": TRAIN_AI, "ai-input": AI_INPUT}
)
_AIPREF_VALUES: Mapping[str, Preference] = MappingProxyType({"y": Preference.ALLOWED, "n": Preference.RESERVED})
_SIGNAL_VALUES: Mapping[str, Preference] = MappingProxyType({"yes": Preference.ALLOWED, "no": Preference.RESERVED})
#: A statement longer than this says nothing: parsing it would cost more than it can mean.
MAX_VALUE_BYTES = 8192


def _as_bytes(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")


def parse_aipref(value: str | bytes) -> dict[str, Preference]:
    """The explicit answers of one aipref statement (vocab-07 §6.5); ``{}`` if it does not parse."""
    data = _as_bytes(value).strip(b" \t")
    if not data or len(data) > MAX_VALUE_BYTES:
        return {}
    try:
        parsed: Any = http_sf.parse(data, tltype="dictionary")
    except ValueError:  # http_sf.StructuredFieldError
        return {}
    answers: dict[str, Preference] = {}
    for label, purpose in AIPREF_LABELS.items():
        answer = parsed.get(label, (None, {}))[0]  # an inner list's value is a list: ignored
        if isinstance(answer, http_sf.Token) and str(answer) in _AIPREF_VALUES:
            answers[purpose] = _AIPREF_VALUES[str(answer)]
    return answers


def parse_content_signal(value: str | bytes) -> dict[str, Preference]:
    """The explicit answers of one ``Content-Signal`` value; unknown keys and values ignored."""
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    if len(text) > MAX_VALUE_BYTES:
        return {}
    answers: dict[str, Preference] = {}
    for part in text.split(","):
        key, equals, raw = part.partition("=")
        purpose = CONTENT_SIGNAL_LABELS.get(key.strip().lower())
        said = _SIGNAL_VALUES.get(raw.strip().lower())
        if not equals or purpose is None or said is None:
            continue
        if answers.get(purpose) is not Preference.RESERVED:
            answers[purpose] = said
    return answers
