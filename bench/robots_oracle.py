"""Google's robots.txt parser as the reference, and Protego, in one run.

Run (each part is optional)::

    .venv/bin/python bench/robots_oracle.py                       # the vendored sample (300 files)
    .venv/bin/python bench/robots_oracle.py --corpus DIR          # plus a corpus: Protego's 4,231 files
    .venv/bin/python bench/robots_oracle.py --google-src DIR      # build google/robotstxt from DIR
    .venv/bin/python bench/robots_oracle.py --hostile             # time and memory of hostile 4 MiB files
    .venv/bin/python bench/robots_oracle.py --timing-only ...      # only the times per size bucket

The reference, first found wins:

1. ``--google-src DIR``: an export of https://github.com/google/robotstxt (``robots.cc`` and
   ``robots.h`` in DIR; checked at commit 22b355f). A small driver (:data:`DRIVER`) is built
   with upstream's ``robots.cc`` into a shared library in ``--build DIR`` (default
   ``bench/.google-robotstxt/``) and called through ctypes; each call is timed inside C++.
   The build is documented here, not run in CI. On Debian 12, as root::

       apt-get update && apt-get install -y g++ libabsl-dev pkg-config
       mkdir -p /tmp/google-robotstxt
       git -C robotstxt archive HEAD | tar -x -C /tmp/google-robotstxt   # or a GitHub tarball
       git -C robotstxt rev-parse HEAD > /tmp/google-robotstxt/.commit   # optional: printed
       .venv/bin/python bench/robots_oracle.py --google-src /tmp/google-robotstxt

   which runs :func:`build_command`: ``g++ -O2 -std=c++17 -shared -fPIC -I DIR
   oracle_driver.cc DIR/robots.cc -o liboracle_driver.so $(pkg-config --cflags --libs
   absl_strings)``.
2. ``fast-robotstxt`` (PyPI; ``pip install fast-robotstxt``): a wheel that ships a build of a
   fork of Google's parser (github.com/nzrsky/robotstxt, which adds Crawl-delay and
   Content-Signal). It is called through its C API with ctypes.
3. Neither: only Protego is compared.

It prints, for each corpus: agreement with the reference, overall and for files under the
parse limit (and each file over 512,000 bytes, the old limit); the disagreements by the
documented categories of docs/robots-matching.md ("Differences from Google's parser"), with
a few cases of any that no category explains; and the time per file of our parse and
checks, Protego's, and the reference's (Google's parser has no separate parse: each call
parses the file and checks one URL, so "C++ per call" is the cost of one parse plus one check).
A parse's time is the median of :data:`REPEATS` parses of the file, as the C++ figure is the
median of its calls (the figures before 2026-11-25's upstream run took the best of 2).
"Our parse" is the module as installed: ``pip install`` compiles ``policy/robots.py`` with mypyc
(setup.py), and the first line printed says which build ran; when it is the compiled one, the
same source run as pure Python is timed too, in the same run.

What a crawl pays per origin is one parse and a first verdict; Google's call is one parse and
one check. So the last figures, per size bucket of the files (:data:`BUCKETS`) and over the
whole corpus, are our parse plus first verdict against the C++ call, per file: the median of
the ratios, and the ratio of the sums. ``--timing-only`` prints those alone, from the first
case of each file (both sides the median of :data:`REPEATS` calls), in a fraction of the time.

Aims: every disagreement under the limit in a documented category; our parse plus first
verdict at most 3x the C++ call per file, in every bucket and summed. Figures are printed,
never asserted (bench/README.md).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import re
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from protego import Protego

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scrapy_walsh.policy.robots import _KEYS, MAX_BYTES, RobotsTxt  # noqa: E402
from tests.robots_builds import imported, is_compiled, pure_python  # noqa: E402
from tests.robots_differences import CORPUS, Comparison, corpus  # noqa: E402

OLD_LIMIT = 512_000
BUILD = Path(__file__).resolve().parent / ".google-robotstxt"

#: The C++ driver, built as a shared library and called through ctypes: one call parses a
#: file and checks one URL with upstream's ``OneAgentAllowedByRobots`` (a fresh matcher per
#: call), and reports the nanoseconds of that call, timed inside C++ (no ctypes overhead).
DRIVER = r"""
#include <chrono>
#include <cstddef>
#include <string>
#include "robots.h"

extern "C" int oracle_allowed(const char* body, size_t body_len, const char* agent, size_t agent_len,
                              const char* url, size_t url_len, long long* ns) {
  const std::string user_agent(agent, agent_len), target(url, url_len);
  googlebot::RobotsMatcher matcher;
  const auto start = std::chrono::steady_clock::now();
  const bool allowed = matcher.OneAgentAllowedByRobots(absl::string_view(body, body_len), user_agent, target);
  *ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  return allowed ? 1 : 0;
}
"""

#: Categories of docs/robots-matching.md's table of differences from Google's parser.
GOOGLE_CATEGORIES = {
    "robots-txt-implicit": "/robots.txt is implicitly allowed",
    "url-non-ascii": "raw non-ASCII in the URL is percent-encoded",
    "unreserved-escape": "%XX of an unreserved character is decoded",
    "lowercase-escape": "lowercase %xx in the URL is uppercased",
    "uri-forbidden-chars": "a character a URI cannot hold is percent-encoded",
    "url-special-chars": "* and $ written raw in the URL compare as %2A and %24",
    "parse-limit": "a file longer than the parse limit",
    "long-line": "a line longer than 16,664 octets is read whole",
    "record-name-prefix": "a name that only starts like a record is not one",
    "index-htm": "Allow: /dir/index.htm does not allow /dir/",
    "nul-octet": "a NUL octet stays in the path",
    "authority-semicolon": "the authority ends at / ? #, not ;",
    "specificity": "specificity counts the normalised octets",
    # the fast-robotstxt fork only (ada's URL parsing), not upstream google/robotstxt:
    "fork-empty-query": "fork only: an empty query (a final ?) is dropped from the URL",
    "fork-reserved-escape": "fork only: a reserved character and its %XX compare equal",
    "fork-dot-segment": "fork only: dot segments (/./, a final /.) are removed from the URL's path",
}


# ---------------------------------------------------------------------- the references


class Reference:
    name = ""
    #: The fast-robotstxt fork parses URLs with ada, which upstream does not (the ``fork-*`` categories).
    fork = False

    def decide(self, body: bytes, cases: list[tuple[str, str]]) -> tuple[list[bool], list[float]]:
        """Each case's decision, and the seconds of each call."""
        raise NotImplementedError


class FastRobotstxt(Reference):
    name = "fast-robotstxt (a build of a fork of google/robotstxt)"
    fork = True

    def __init__(self) -> None:
        from robotstxt import robots  # type: ignore[import-not-found]

        self._lib = robots._lib
        self._matcher = self._lib.robots_matcher_create()

    def decide(self, body: bytes, cases: list[tuple[str, str]]) -> tuple[list[bool], list[float]]:
        call, matcher, size = self._lib.robots_allowed_by_robots, self._matcher, len(body)
        decisions, times = [], []
        for agent, url in cases:
            a, u = agent.encode(), url.encode()
            start = time.perf_counter()
            allowed = call(matcher, body, size, a, len(a), u, len(u))
            times.append(time.perf_counter() - start)
            decisions.append(bool(allowed))
        return decisions, times


class GoogleBuild(Reference):
    name = "google/robotstxt built from source"

    def __init__(self, source: Path, build: Path) -> None:
        build.mkdir(parents=True, exist_ok=True)
        driver = build / "oracle_driver.cc"
        driver.write_text(DRIVER)
        library = build / "liboracle_driver.so"
        subprocess.run(build_command(source, driver, library), check=True)
        self._call = ctypes.CDLL(str(library)).oracle_allowed
        size, text = ctypes.c_size_t, ctypes.c_char_p
        self._call.argtypes = [text, size, text, size, text, size, ctypes.POINTER(ctypes.c_longlong)]
        self._call.restype = ctypes.c_int
        commit = source / ".commit"  # written by the export command of the docstring, if any
        if commit.exists():
            self.name += f" (commit {commit.read_text().strip()[:7]})"

    def decide(self, body: bytes, cases: list[tuple[str, str]]) -> tuple[list[bool], list[float]]:
        call, size, ns = self._call, len(body), ctypes.c_longlong()
        decisions, times = [], []
        for agent, url in cases:
            a, u = agent.encode(), url.encode("utf-8", "surrogateescape")
            decisions.append(bool(call(body, size, a, len(a), u, len(u), ctypes.byref(ns))))
            times.append(ns.value / 1e9)
        return decisions, times


def build_command(source: Path, driver: Path, library: Path) -> list[str]:
    """The g++ command that builds the driver with upstream's robots.cc against Debian's libabsl-dev."""
    flags = subprocess.run(
        ["pkg-config", "--cflags", "--libs", "absl_strings"], capture_output=True, text=True, check=True
    ).stdout.split()
    sources = [str(driver), str(source / "robots.cc")]
    return ["g++", "-O2", "-std=c++17", "-shared", "-fPIC", "-I", str(source), *sources, "-o", str(library), *flags]


def reference(args: argparse.Namespace) -> Reference | None:
    if args.google_src:
        return GoogleBuild(Path(args.google_src), Path(args.build))
    try:
        return FastRobotstxt()
    except (ImportError, OSError):
        return None


# ---------------------------------------------------------------------- the classifier


def classify_google(comparison: Comparison, token: str, url: str, ref: Reference) -> str | None:
    """The documented difference from Google's parser that explains one disagreement."""
    path = url.split("example.com", 1)[1]
    if path.split("?")[0] == "/robots.txt":
        return "robots-txt-implicit"
    if len(comparison.body) > MAX_BYTES:
        return "parse-limit"
    rules = [(allow, pattern) for g in comparison.ours._select(token) for allow, pattern, _ in g.rules]
    differing = []
    for _allow, pattern in rules:
        body = f"User-agent: *\nDisallow: {pattern}\n".encode("utf-8", "surrogateescape")
        ours = RobotsTxt.parse(body).allowed(url, "x")
        if ours != ref.decide(body, [("x", url)])[0][0]:
            differing.append(pattern)
    for pattern in differing:
        category = _pattern_category(pattern, path, ref.fork)
        if category:
            return category
    text = comparison.text
    if "\x00" in text:
        return "nul-octet"
    if any(len(line.encode()) > 16_664 for line in text.splitlines()):
        return "long-line"
    names = {m.group(1).strip().lower() for m in re.finditer(r"^[ \t]*([A-Za-z-]+)[ \t]*:", text, re.M)}
    if any(n not in _KEYS and n.startswith(("allow", "disallow", "user-agent", "useragent")) for n in names):
        return "record-name-prefix"
    if re.search(r"^[ \t]*allow[ \t]*:[ \t]*\S*/index\.htm[^/\s]*[ \t\r]*$", text, re.I | re.M):
        return "index-htm"
    if not differing:
        return "specificity"
    return None


def _pattern_category(pattern: str, path: str, fork: bool) -> str | None:
    both = pattern + path
    if fork and path.endswith("?"):
        return "fork-empty-query"
    if fork and re.search(r"/\.\.?(?:/|$|\?)", path.split("?")[0] + "?"):
        return "fork-dot-segment"
    reserved = ":/?#[]@!$&'()*+,;="
    if fork and any(chr(int(h, 16)) in reserved for h in re.findall(r"%([0-9A-Fa-f]{2})", both)):
        return "fork-reserved-escape"
    if not path.isascii():
        return "url-non-ascii"
    if "$" in path or "*" in path:
        return "url-special-chars"
    escapes = re.findall(r"%([0-9A-Fa-f]{2})", both)
    if any(re.fullmatch(r"[A-Za-z0-9\-._~]", chr(int(h, 16))) for h in escapes):
        return "unreserved-escape"
    if any(h != h.upper() for h in escapes):
        return "lowercase-escape"
    if re.search(r"[ \"<>\\^`{|}\x00-\x1f\x7f]", both) or not pattern.isascii():
        return "uri-forbidden-chars"
    if pattern.endswith("/index.htm"):
        return "index-htm"
    if ";" in path.split("/")[0]:
        return "authority-semicolon"
    return None


# ---------------------------------------------------------------------- the run


def _clock(fn: Callable[..., object], *args: object) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


#: Parses timed per file; the median is kept, as the C++ figure is the median of its calls.
REPEATS = 5
#: File sizes (upper bounds in bytes, inclusive) the times are reported by.
BUCKETS = ((10_000, "<= 10 KB"), (100_000, "10-100 KB"), (None, "100 KB-4 MiB"))


def _median_clock(fn: Callable[..., object], *args: object) -> float:
    return statistics.median(_clock(fn, *args) for _ in range(REPEATS))


def _parse_and_check(body: bytes, token: str, url: str) -> bool:
    """What one C++ call does: parse, then one check (the first check compiles the token's rules)."""
    return RobotsTxt.parse(body).allowed(url, token)


def _ours_checks(robots: RobotsTxt, cases: list[tuple[str, str, bool, bool]]) -> list[bool]:
    return [robots.allowed(url, token) for token, url, _, _ in cases]


def _protego_checks(robots: Protego, cases: list[tuple[str, str, bool, bool]]) -> list[bool]:
    return [robots.can_fetch(url, token) for token, url, _, _ in cases]


def run_corpus(label: str, files: list[tuple[str, bytes]], ref: Reference | None, examples: int) -> None:
    gc.collect()
    totals: Counter[str] = Counter()
    categories: Counter[str] = Counter()
    we_allow: Counter[str] = Counter()  # of those, the cases we allow and the reference disallows
    big: dict[str, tuple[int, int]] = {}
    unexplained: list[str] = []
    ours_parse, ours_first, ours_check, protego_parse, protego_check, ref_call = [], [], [], [], [], []
    source_parse: list[float] = []  # the pure Python build, when the imported one is compiled
    source = pure_python().RobotsTxt.parse if is_compiled() else None
    for name, body in files:
        comparison = Comparison(name, body)
        cases = list(comparison.cases())
        ours_parse.append(_median_clock(RobotsTxt.parse, body))
        if source is not None:
            source_parse.append(_median_clock(source, body))
        ours_first.append(_median_clock(_parse_and_check, body, *cases[0][:2]))
        ours_check.append(_clock(_ours_checks, RobotsTxt.parse(body), cases) / max(1, len(cases)))
        protego_parse.append(_median_clock(Protego.parse, comparison.text))
        protego_check.append(_clock(_protego_checks, Protego.parse(comparison.text), cases) / max(1, len(cases)))
        totals["cases"] += len(cases)
        totals["protego_disagree"] += sum(o != p for _, _, o, p in cases)
        if ref is None:
            continue
        decisions, times = ref.decide(body, [(t, u) for t, u, _, _ in cases])
        ref_call.append(statistics.median(times) if times else 0.0)
        disagree = 0
        for (token, url, ours, _), google in zip(cases, decisions):
            if ours == google:
                continue
            disagree += 1
            category = classify_google(comparison, token, url, ref)
            categories[category or "UNEXPLAINED"] += 1
            if ours:  # the direction that could open an opt-out: each such category has its RFC clause
                we_allow[category or "UNEXPLAINED"] += 1
            if category is None and len(unexplained) < examples:
                unexplained.append(f"{name}: {token} {url} ours={ours} google={google}")
        totals["google_disagree"] += disagree
        if len(body) <= MAX_BYTES:
            totals["under_cases"] += len(cases)
            totals["under_disagree"] += disagree
        if len(body) > OLD_LIMIT:
            big[name] = (len(cases), disagree)
    print(f"\n== {label}: {len(files)} files, {totals['cases']:,} cases")
    agree = 1 - totals["protego_disagree"] / max(1, totals["cases"])
    print(f"Protego agreement with us: {agree:.2%} ({totals['protego_disagree']:,} differ)")
    if ref is not None:
        overall = 1 - totals["google_disagree"] / max(1, totals["cases"])
        under = 1 - totals["under_disagree"] / max(1, totals["under_cases"])
        print(f"reference: {ref.name}")
        print(f"agreement with the reference: {overall:.2%} overall ({totals['google_disagree']:,} differ), ", end="")
        print(f"{under:.2%} on files under the {MAX_BYTES:,}-byte parse limit")
        for name, (count, disagree) in sorted(big.items()):
            print(f"  over {OLD_LIMIT:,} bytes: {name}: {count:,} cases, {disagree:,} differ")
        print("disagreements by documented category (of which we allow and the reference disallows):")
        for category, count in categories.most_common():
            described = GOOGLE_CATEGORIES.get(category, "(no documented category)")
            print(f"  {category:<22} {count:>8,} ({we_allow[category]:>6,})  {described}")
        for line in unexplained:
            print(f"  unexplained: {line}")
    median = statistics.median
    print("time per file, median (µs): ", end="")
    print(f"our parse {median(ours_parse) * 1e6:.1f}", end="")
    if source_parse:
        print(f" (pure Python {median(source_parse) * 1e6:.1f})", end="")
    print(f", Protego parse {median(protego_parse) * 1e6:.1f}", end="")
    if ref_call:
        print(f", C++ per call (parse + one check) {median(ref_call) * 1e6:.2f}", end="")
    print(f"; per check: ours {median(ours_check) * 1e6:.1f}, Protego {median(protego_check) * 1e6:.1f}")
    ratios = [o / p for o, p in zip(ours_parse, protego_parse) if p]
    print(f"our parse / Protego parse, median over files: {median(ratios):.2f}")
    if ref_call:
        ratios = [o / c for o, c in zip(ours_parse, ref_call) if c]
        print(f"our parse / C++ call, median over files: {median(ratios):.2f} (aim <= 3)")
        if source_parse:
            ratios = [o / c for o, c in zip(source_parse, ref_call) if c]
            print(f"  the same, pure Python (robots.py not compiled): {median(ratios):.2f}")
        print_buckets([len(body) for _, body in files], ours_first, ref_call)


def print_buckets(sizes: list[int], ours: list[float], ref: list[float]) -> None:
    """Our parse plus first verdict against the C++ call, per file, by size bucket and summed."""
    print("our parse + first verdict / C++ call (parse + one check), per file:")
    everything = list(zip(sizes, ours, ref))
    bucket = [next(label for high, label in BUCKETS if high is None or size <= high) for size in sizes]
    rows = [(label, [f for f, b in zip(everything, bucket) if b == label]) for _, label in BUCKETS]
    for label, files in [*rows, ("all files", everything)]:
        if not files:
            continue
        median = statistics.median(o / c for _, o, c in files if c)
        ours_sum, ref_sum = sum(f[1] for f in files), sum(f[2] for f in files)
        print(
            f"  {label:<14} {len(files):>5} files: median {median:5.2f}x, sum {ours_sum / ref_sum:5.2f}x "
            f"(ours {ours_sum * 1e3:8.1f} ms, C++ {ref_sum * 1e3:6.1f} ms; "
            f"median per file {statistics.median(f[1] for f in files) * 1e6:.1f} against "
            f"{statistics.median(f[2] for f in files) * 1e6:.1f} µs)  (aim <= 3)"
        )


def run_timing(label: str, files: list[tuple[str, bytes]], ref: Reference) -> None:
    """Only the times of :func:`print_buckets`, from each file's first case."""
    gc.collect()
    ours, cpp = [], []
    for name, body in files:
        token, url = next(iter(Comparison(name, body).cases()))[:2]
        ours.append(_median_clock(_parse_and_check, body, token, url))
        cpp.append(statistics.median(ref.decide(body, [(token, url)] * REPEATS)[1]))
    print(f"\n== {label}: {len(files)} files, times only (the first case of each)")
    print_buckets([len(body) for _, body in files], ours, cpp)


def run_hostile() -> None:
    from tests.robots_hostile import SHAPES, measure

    print(f"\n== hostile files at the parse limit ({MAX_BYTES:,} bytes), each in a fresh interpreter (CPU s, MiB)")
    for shape in sorted(SHAPES):
        seen = measure(shape)
        print(
            f"  {shape:<15} parse {seen['parse']:.2f} s, first verdict {seen['first_verdict']:.2f} s, "
            f"later verdict {seen['verdict'] * 1000:.1f} ms, peak RSS {seen['peak_mib']:.0f} MiB "
            f"({seen['peak_mib'] - seen['body_mib']:.0f} over the file built)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", help="a directory of robots.txt files (Protego's tests/test_data)")
    parser.add_argument("--google-src", help="a google/robotstxt checkout to build the reference from")
    parser.add_argument("--build", default=str(BUILD), help="where to build it")
    parser.add_argument("--hostile", action="store_true", help="also time hostile 4 MiB files")
    parser.add_argument("--no-sample", action="store_true", help="skip the vendored sample")
    parser.add_argument("--examples", type=int, default=10, help="unexplained cases printed")
    parser.add_argument("--timing-only", action="store_true", help="only parse + first verdict against the C++")
    args = parser.parse_args(argv)
    ref = reference(args)
    if args.timing_only and ref is None:
        parser.error("--timing-only needs a reference parser")
    if ref is None:
        print("no reference parser: pass --google-src DIR, or pip install fast-robotstxt; Protego only")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    build = "compiled by mypyc (setup.py)" if is_compiled() else "pure Python (not compiled)"
    print(f"our parser: {build}, {Path(str(imported.__file__)).name}")
    corpora = [] if args.no_sample else [(f"vendored sample ({CORPUS})", corpus())]
    if args.corpus:
        corpora.append((f"corpus {args.corpus}", corpus(Path(args.corpus))))
    for label, files in corpora:
        if args.timing_only:
            assert ref is not None
            run_timing(label, files, ref)
        else:
            run_corpus(label, files, ref, args.examples)
    if args.hostile:
        run_hostile()
    return 0


if __name__ == "__main__":
    sys.exit(main())
