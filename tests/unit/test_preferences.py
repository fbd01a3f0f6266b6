"""The usage-preference model: each signal from its specification's own examples, the
combination (most restrictive wins), and property tests that remote input never raises
anything but our documented error and that adding a reservation never loosens a decision."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scrapy_walsh.policy.path_match import normalise_pattern
from scrapy_walsh.policy.preferences import (
    Preference,
    RobotsPreferences,
    Signal,
    Statement,
    TdmRep,
    TdmRepError,
    combine,
    usage_decision,
)
from scrapy_walsh.policy.preferences.headers import header_statements
from scrapy_walsh.policy.preferences.paths import PathPattern, url_path
from scrapy_walsh.policy.preferences.syntax import parse_aipref, parse_content_signal
from tests.fuzz import FUZZ

ALLOWED, RESERVED, UNKNOWN = Preference.ALLOWED, Preference.RESERVED, Preference.UNKNOWN
ALL = ("search", "train-ai", "ai-input")


def answers(path="/", purposes=ALL, **kwargs):
    decision = usage_decision(path, purposes, **kwargs)
    return {d.purpose: d.preference for d in decision.decisions}


# --- aipref vocabulary (draft-ietf-aipref-vocab-07 §6) --------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("train-ai=y, search=n", {"train-ai": ALLOWED, "search": RESERVED}),  # §6
        ('train-ai=y, train-ai, search=n, search="n"', {}),  # §6.5.1: last values are not tokens
        ("train-ai;allow=n, train-ai=y", {"train-ai": ALLOWED}),  # §6.5.2: parameters ignored
        ('train-ai;has;parameters="?"', {}),  # a boolean, not a token
        ("train-ai=n, Search=y", {}),  # upper case: the dictionary does not parse at all
        ("train-ai=maybe, search=y, bots=n", {"search": ALLOWED}),  # other tokens and labels ignored
        ("", {}),
        (b"train-ai=n", {"train-ai": RESERVED}),
    ],
)
def test_aipref_statements_follow_the_vocabulary(value, expected):
    assert parse_aipref(value) == expected


# --- aipref attachment in robots.txt (draft-ietf-aipref-attach-05 §3) -------------------------

ATTACH_EXAMPLE = [  # §3.4, the "*" group, with its line numbers
    ("User-Agent", "*", 1),
    ("Allow", "/", 2),
    ("Disallow", "/never/", 3),
    ("Content-Usage", "train-ai=n", 4),
    ("Content-Usage", "/ai-ok/ train-ai=y", 5),
]


def test_attach_example_table_per_path():
    robots = RobotsPreferences.from_lines(ATTACH_EXAMPLE)
    assert answers("/test", ("train-ai",), robots=robots) == {"train-ai": RESERVED}
    assert answers("/ai-ok/test", ("train-ai",), robots=robots) == {"train-ai": ALLOWED}
    decision = usage_decision("/ai-ok/test", ("train-ai",), robots=robots)["train-ai"]
    assert decision.signal is Signal.CONTENT_USAGE_ROBOTS
    assert decision.source == "robots.txt line 5: Content-Usage: /ai-ok/ train-ai=y"


def test_example_bot_group_allows_everything():
    lines = [("User-Agent", "ExampleBot"), ("Allow", "/"), ("Content-Usage", "train-ai=y")]
    assert answers("/anything", ("train-ai",), robots=lines) == {"train-ai": ALLOWED}
    assert usage_decision("/", ("train-ai",), robots=lines)["train-ai"].source == (
        "robots.txt: Content-Usage: train-ai=y"
    )


def test_longest_path_wins_and_a_longer_rule_speaks_only_for_itself():
    lines = [("Content-Usage", "search=n, train-ai=n"), ("Content-Usage", "/open/ train-ai=y")]
    assert answers("/open/page", ("search", "train-ai"), robots=lines) == {"search": UNKNOWN, "train-ai": ALLOWED}
    assert answers("/closed", ("search", "train-ai"), robots=lines) == {"search": RESERVED, "train-ai": RESERVED}


def test_identical_paths_with_conflicting_preferences_combine_most_restrictive():
    lines = [("Content-Usage", "/a/ train-ai=y"), ("Content-Usage", "/a/\ttrain-ai=n")]
    assert answers("/a/x", ("train-ai",), robots=lines) == {"train-ai": RESERVED}


def test_comments_and_whitespace_around_the_rule():
    lines = [("  content-usage ", " /x/  train-ai=n   # no training here")]
    assert answers("/x/1", ("train-ai",), robots=lines) == {"train-ai": RESERVED}
    assert answers("/y", ("train-ai",), robots=lines) == {"train-ai": UNKNOWN}


@pytest.mark.parametrize(
    ("rule", "path", "applies"),
    [
        ("/a*/c", "/a/b/c", True),
        ("/a$", "/a", True),
        ("/a$", "/ab", False),
        ("/a~b", "/a%7Eb", True),  # an escaped unreserved character is that character
        ("/a%7eb", "/a~b", True),
        ("/price-%24", "/price-$", True),  # a literal "$" is written %24 (TDMRep, Google)
        ("/price-$", "/price-x", False),
        ("/caf%C3%A9", "/café", True),  # non-ASCII compared as its UTF-8 escapes
        ("/Case", "/case", False),  # case-sensitive
        ("/q?x=1", "/q?x=1&y=2", True),  # the query is part of the matched path
    ],
)
def test_paths_match_as_robots_txt_does(rule, path, applies):
    lines = [("Content-Usage", f"{rule} train-ai=n")]
    assert answers(path, ("train-ai",), robots=lines)["train-ai"] is (RESERVED if applies else UNKNOWN)


def test_a_pathless_rule_loses_to_any_matching_path():
    lines = [("Content-Usage", "/ train-ai=y"), ("Content-Usage", "train-ai=n")]
    assert answers("/x", ("train-ai",), robots=lines) == {"train-ai": ALLOWED}


# --- Content Signals (contentsignals.org) ---------------------------------------------------


def test_content_signal_policy_example():
    lines = [("User-Agent", "*"), ("Content-Signal", "ai-train=no, search=yes, ai-input=yes"), ("Allow", "/")]
    assert answers("/page", robots=lines) == {"search": ALLOWED, "train-ai": RESERVED, "ai-input": ALLOWED}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Search=Yes, AI-Train=No", {"search": ALLOWED, "train-ai": RESERVED}),
        ("search=yes, use=reference", {"search": ALLOWED}),  # "use" is a level, not a purpose
        ("ai-input=maybe, search", {}),
        ("search=yes, search=no", {"search": RESERVED}),
    ],
)
def test_content_signal_values_are_read_leniently(value, expected):
    assert parse_content_signal(value) == expected


def test_content_signal_header_counts_too():
    assert answers(headers=[("Content-Signal", "ai-train=no")])["train-ai"] is RESERVED


# --- RSL 1.0 --------------------------------------------------------------------------------


def test_rsl_license_is_kept_as_a_reference_and_decides_nothing():
    lines = [("License", "https://example.com/license.xml # RSL"), ("Content-Usage", "search=y")]
    decision = usage_decision("/", ALL, robots=lines)
    assert decision.references == ("https://example.com/license.xml",)
    assert answers(robots=lines) == {"search": ALLOWED, "train-ai": UNKNOWN, "ai-input": UNKNOWN}


# --- HTTP headers (attach-05 §2, TDMRep, X-Robots-Tag) --------------------------------------


def test_content_usage_header_example():
    assert answers(headers=[("Content-Usage", "train-ai=n")])["train-ai"] is RESERVED


def test_content_usage_field_lines_are_one_dictionary():
    headers = [(b"content-usage", b"train-ai=y"), (b"Content-Usage", b"train-ai=n, search=y")]
    assert answers(headers=headers) == {"search": ALLOWED, "train-ai": RESERVED, "ai-input": UNKNOWN}


def test_tdm_header_examples():
    assert answers(headers=[("tdm-reservation", "1")]) == {
        "search": UNKNOWN,
        "train-ai": RESERVED,
        "ai-input": RESERVED,
    }
    policy = "https://provider.com/policies/policy.json"
    decision = usage_decision("/", ALL, headers=[("tdm-reservation", "1"), ("tdm-policy", policy)])
    assert decision.references == (policy,)
    assert decision["train-ai"].signal is Signal.TDMREP_HEADER


def test_tdm_policy_is_not_processed_without_a_reservation():
    decision = usage_decision("/", ALL, headers=[("tdm-reservation", "0"), ("tdm-policy", "https://x/p")])
    assert decision.references == ()
    assert decision["train-ai"].preference is ALLOWED


@pytest.mark.parametrize("value", ["yes", "2", "", "true"])
def test_an_invalid_tdm_reservation_is_unset(value):
    assert answers(headers=[("tdm-reservation", value)]) == dict.fromkeys(ALL, UNKNOWN)


def test_x_robots_tag_noai_and_noindex_for_our_token_only():
    headers = [("X-Robots-Tag", "otherbot: noai"), ("X-Robots-Tag", "walsh-research: noindex")]
    assert answers(headers=headers, token="walsh-research") == {
        "search": RESERVED,
        "train-ai": UNKNOWN,
        "ai-input": UNKNOWN,
    }
    assert answers(headers=[("X-Robots-Tag", "noai")]) == {
        "search": UNKNOWN,
        "train-ai": RESERVED,
        "ai-input": RESERVED,
    }


def test_noimageai_applies_to_images_only():
    assert answers(headers=[("X-Robots-Tag", "noimageai"), ("Content-Type", "text/html")])["train-ai"] is UNKNOWN
    assert answers(headers=[("X-Robots-Tag", "noimageai"), ("Content-Type", "image/png")])["train-ai"] is RESERVED


# --- tdmrep.json (TDMRep final report) ------------------------------------------------------

TDMREP_EXAMPLE = json.dumps(
    [
        {"location": "/directory-a/", "tdm-reservation": 1},
        {
            "location": "/directory-b/html/",
            "tdm-reservation": 1,
            "tdm-policy": "https://provider.com/policies/policy.json",
        },
        {"location": "/directory-b/images/*.jpg", "tdm-reservation": 0},
    ]
)


@pytest.mark.parametrize(
    ("path", "expected", "reference"),
    [
        ("/directory-a/page", RESERVED, None),
        ("/directory-b/html/index.html", RESERVED, "https://provider.com/policies/policy.json"),
        ("/directory-b/images/cat.jpg", ALLOWED, None),
        ("/elsewhere", UNKNOWN, None),
    ],
)
def test_tdmrep_example(path, expected, reference):
    decision = usage_decision(path, ("train-ai",), tdmrep=TdmRep.parse(TDMREP_EXAMPLE))
    assert decision["train-ai"].preference is expected
    assert decision.references == ((reference,) if reference else ())


def test_tdmrep_first_matching_rule_in_sequence_wins():
    body = json.dumps([{"location": "/", "tdm-reservation": 0}, {"location": "/a/", "tdm-reservation": 1}])
    assert answers("/a/x", ("train-ai",), tdmrep=TdmRep.parse(body)) == {"train-ai": ALLOWED}


def test_tdmrep_skips_invalid_rules():
    body = json.dumps(
        [
            {"location": "/a/", "tdm-reservation": True},
            {"location": "/a/", "tdm-reservation": "1"},
            {"location": 5, "tdm-reservation": 1},
            "junk",
            {"location": "/a/", "tdm-reservation": 1},
        ]
    )
    rep = TdmRep.parse(body)
    assert len(rep.rules) == 1
    assert usage_decision("/a/b", ("train-ai",), tdmrep=rep)["train-ai"].source.startswith("tdmrep.json rule 4")


def test_tdm_header_supersedes_the_file_but_absence_does_not_reset_it():
    rep = TdmRep.parse(json.dumps([{"location": "/", "tdm-reservation": 1}]))
    assert answers("/x", ("train-ai",), tdmrep=rep, headers=[("tdm-reservation", "0")]) == {"train-ai": ALLOWED}
    assert answers("/x", ("train-ai",), tdmrep=rep, headers=[("tdm-reservation", "bogus")]) == {"train-ai": RESERVED}
    assert answers("/x", ("train-ai",), tdmrep=rep, headers=[]) == {"train-ai": RESERVED}


@pytest.mark.parametrize(
    "body", [b"", b"{}", b'{"location": "/"}', b"[", b"\xff\xfe\x00", "[" * 100_000, b"1" * 600_000]
)
def test_tdmrep_rejects_what_is_not_a_document_with_its_own_error(body):
    with pytest.raises(TdmRepError):
        TdmRep.parse(body)


# --- combination ----------------------------------------------------------------------------


def test_most_restrictive_signal_wins_and_is_named():
    decision = usage_decision(
        "/page",
        ("search", "train-ai"),
        robots=[("Content-Usage", "search=y, train-ai=y")],
        headers=[("Content-Usage", "train-ai=n")],
    )
    assert decision["search"].preference is ALLOWED
    assert decision["train-ai"].preference is RESERVED
    assert decision["train-ai"].source == "header Content-Usage: train-ai=n"
    assert decision.reserved == ("train-ai",)
    assert decision.as_dict()["reserved"] == ["train-ai"]


def test_robots_alone_decides_before_the_fetch():
    """What ``respect`` mode needs to skip a target before fetching it."""
    decision = usage_decision("/", ("search", "train-ai"), robots=[("Content-Signal", "ai-train=no")])
    assert decision.reserved == ("train-ai",)


def test_purposes_are_checked_and_kept_in_order():
    assert [d.purpose for d in usage_decision("/", ("train-ai", "search", "train-ai")).decisions] == [
        "train-ai",
        "search",
    ]
    with pytest.raises(ValueError, match="unknown purpose"):
        usage_decision("/", ("ai-train",))


# --- properties -----------------------------------------------------------------------------

_PATHS = st.sampled_from(["", "/", "/a", "/a/", "/a/b", "/a*", "/a$", "/b/c", "/%61", "/*/c"])
_LABELS = st.sampled_from(["search", "train-ai", "bots", "ai-train", "ai-input", "Search"])
_AIPREF_VALUES = st.sampled_from(["y", "n", '"n"', "?1", "maybe"])
_aipref = st.lists(st.tuples(_LABELS, _AIPREF_VALUES), max_size=4).map(
    lambda pairs: ", ".join(f"{k}={v}" for k, v in pairs)
)
_signal = st.lists(st.tuples(_LABELS, st.sampled_from(["yes", "no", "maybe"])), max_size=4).map(
    lambda pairs: ", ".join(f"{k}={v}" for k, v in pairs)
)
_robots_line = st.one_of(
    st.tuples(st.just("Content-Usage"), st.tuples(_PATHS, _aipref).map(lambda t: f"{t[0]} {t[1]}".strip())),
    st.tuples(st.just("Content-Signal"), _signal),
    st.tuples(st.sampled_from(["License", "Allow", "Sitemap"]), st.text(max_size=20)),
    st.tuples(st.text(max_size=15), st.text(max_size=40)),
)
_header = st.one_of(
    st.tuples(st.just("Content-Usage"), _aipref),
    st.tuples(st.just("Content-Signal"), _signal),
    st.tuples(st.just("tdm-reservation"), st.sampled_from(["0", "1", "x"])),
    st.tuples(st.just("X-Robots-Tag"), st.sampled_from(["noai", "noindex", "bot: noai", "all", "noimageai"])),
    st.tuples(st.just("Content-Type"), st.sampled_from(["image/png", "text/html"])),
    st.tuples(st.text(max_size=15), st.text(max_size=40)),
)
_tdm_rule = st.fixed_dictionaries(
    {"location": _PATHS, "tdm-reservation": st.sampled_from([0, 1, 2, True, "1"])},
    optional={"tdm-policy": st.text(max_size=10)},
)
_reservation = st.one_of(
    st.tuples(
        st.just("robots"),
        st.tuples(_PATHS, st.lists(st.sampled_from(["search", "train-ai"]), min_size=1, max_size=2, unique=True)).map(
            lambda t: ("Content-Usage", f"{t[0]} {', '.join(k + '=n' for k in t[1])}".strip())
        ),
    ),
    st.tuples(
        st.just("robots"),
        st.sampled_from(["search", "ai-train", "ai-input"]).map(lambda k: ("Content-Signal", f"{k}=no")),
    ),
    st.tuples(st.just("header"), st.sampled_from(["search", "train-ai"]).map(lambda k: ("Content-Usage", f"{k}=n"))),
    st.tuples(st.just("header"), st.sampled_from(["search", "ai-train"]).map(lambda k: ("Content-Signal", f"{k}=no"))),
    st.tuples(st.just("header"), st.just(("tdm-reservation", "1"))),
    st.tuples(st.just("header"), st.sampled_from([("X-Robots-Tag", "noai"), ("X-Robots-Tag", "noindex")])),
)


@FUZZ
@given(st.one_of(st.text(), st.binary()))
def test_value_parsers_never_raise(value):
    parse_aipref(value)
    parse_content_signal(value)


@FUZZ
@given(st.lists(st.one_of(_robots_line, st.tuples(st.text(), st.text(), st.integers()))), st.text())
def test_robots_lines_never_raise(lines, path):
    usage_decision(path, ALL, robots=lines)


@FUZZ
@given(st.lists(st.one_of(_header, st.tuples(st.binary(), st.binary()))), st.text(), st.text(max_size=10))
def test_headers_never_raise(headers, path, token):
    usage_decision(path, ALL, headers=headers, token=token)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)


@FUZZ
@given(st.one_of(st.text(), st.binary(), _json.map(json.dumps), st.lists(_tdm_rule).map(json.dumps)), st.text())
def test_tdmrep_raises_only_its_own_error(body, path):
    try:
        rep = TdmRep.parse(body)
    except TdmRepError:
        return
    usage_decision(path, ALL, tdmrep=rep)


@FUZZ
@given(
    st.lists(_robots_line, max_size=6),
    st.lists(_header, max_size=6),
    st.one_of(st.none(), st.lists(_tdm_rule, max_size=4)),
    _reservation,
    _PATHS.map(lambda p: p.replace("*", "x").replace("$", "") or "/"),
)
def test_adding_a_reservation_never_turns_reserved_into_allowed(robots, headers, rules, reservation, path):
    tdmrep = None if rules is None else TdmRep.parse(json.dumps(rules))
    before = usage_decision(path, ALL, robots=robots, headers=headers, tdmrep=tdmrep, token="walsh")
    where, line = reservation
    if where == "robots":
        robots = [*robots, line]
    else:
        headers = [*headers, line]
    after = usage_decision(path, ALL, robots=robots, headers=headers, tdmrep=tdmrep, token="walsh")
    for purpose in ALL:
        if before[purpose].preference is RESERVED:
            assert after[purpose].preference is RESERVED, (purpose, before[purpose], after[purpose])


@FUZZ
@given(st.lists(st.lists(_header, max_size=4), max_size=3))
def test_combination_is_monotone_in_statements(groups):
    """Across signals, more header lines can only add reservations (vocab-07 §5.1).

    ``Content-Usage`` is left out on purpose: its field lines form one dictionary, and a line
    that does not parse voids it all (vocab-07 §6.5); adding a valid reservation to it is
    covered by the test above."""
    seen: set[str] = set()
    headers: list = []
    for group in groups:
        headers = headers + group
        reserved = set(
            usage_decision("/", ALL, headers=[h for h in headers if h[0].lower() != "content-usage"]).reserved
        )
        assert seen <= reserved
        seen = reserved


_statements = st.lists(
    st.tuples(
        st.sampled_from(list(Signal)),
        st.dictionaries(st.sampled_from(ALL), st.sampled_from([ALLOWED, RESERVED]), max_size=3),
    ),
    max_size=6,
).map(lambda pairs: [Statement(signal, f"statement {i}", said) for i, (signal, said) in enumerate(pairs)])


@FUZZ
@given(_statements.flatmap(lambda s: st.tuples(st.just(s), st.permutations(s))))
def test_combine_is_most_restrictive_in_any_order(statements_and_shuffled):
    """vocab-07 §5.1: reserved if any statement reserves, else allowed if any allows."""
    statements, shuffled = statements_and_shuffled
    decision = combine(statements, ALL)
    for purpose in ALL:
        said = {s.preferences.get(purpose) for s in statements}
        expected = RESERVED if RESERVED in said else ALLOWED if ALLOWED in said else UNKNOWN
        assert decision[purpose].preference is expected
        assert combine(shuffled, ALL)[purpose].preference is expected
        if expected is not UNKNOWN:
            assert (
                statements[[s.source for s in statements].index(decision[purpose].source)].preferences[purpose]
                is expected
            )


def _reference_match(rule: str, path: str) -> bool:
    """robots.txt matching written as a regex, to check the wildcard walk against."""
    anchored = rule.endswith("$")
    body = rule[:-1] if anchored else rule
    regex = "".join(".*" if c == "*" else re.escape(c) for c in body) + ("\\Z" if anchored else "")
    return re.match(regex, path, re.DOTALL) is not None


@FUZZ
@given(st.text(alphabet="/ab*", max_size=8).map(lambda s: "/" + s), st.booleans(), st.text(alphabet="/ab", max_size=10))
def test_wildcard_walk_agrees_with_a_regex(rule, anchored, path):
    rule = rule + ("$" if anchored else "")
    pattern = PathPattern.parse(rule)
    assert pattern is not None
    assert pattern.matches(url_path("/" + path)) is _reference_match(normalise_pattern(rule), url_path("/" + path))


def test_a_hostile_pattern_is_cheap():
    pattern = PathPattern.parse("/" + "*a" * 500 + "$")
    assert pattern is not None
    assert not pattern.matches("/" + "a" * 5000 + "b")


def test_header_statements_name_each_signal():
    signals = [
        s.signal
        for s in header_statements(
            [
                ("Content-Usage", "search=n"),
                ("Content-Signal", "search=no"),
                ("tdm-reservation", "1"),
                ("X-Robots-Tag", "noai"),
            ]
        )
    ]
    assert signals == [
        Signal.CONTENT_USAGE_HEADER,
        Signal.CONTENT_SIGNAL_HEADER,
        Signal.TDMREP_HEADER,
        Signal.X_ROBOTS_TAG,
    ]
