"""R3 blocklist: match time per host, and the time to validate and adopt a long list.

    .venv/bin/python bench/blocklist_bench.py [--quick]

Prints, for lists of 10, 1,000 and 100,000 domains, the median time of one
``Blocklist.match`` over a mix of exact hits, subdomain hits and misses (raw hosts,
so normalisation is included), next to a naive linear scan measured in the same run
on the same (already lowercase) hosts:

    any(host == d or host.endswith("." + d) for d in domains)

``match`` walks the host's suffixes (one dict probe per label), so its time should
stay flat as the list grows while the scan grows linearly. Then the time to validate
(full schema, format checks on) and adopt a 100,000-entry document from bytes, next
to jsonschema alone validating the same parsed document. Figures, not a test: nothing
here fails on a slow machine (see bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jsonschema import Draft202012Validator  # noqa: E402

from scrapy_walsh.policy.blocklist import CONTRACT, MAX_DOCUMENT_BYTES, Blocklist, bundled_schema, normalise_host  # noqa: E402

SIZES = (10, 1_000, 100_000)
TLDS = ("com", "org", "net", "de", "io", "example", "co.uk")
WORDS = ("news", "shop", "blog", "data", "wiki", "forum", "mail", "cdn", "docs", "app")


def domains(n: int, rng: random.Random) -> list[str]:
    """``n`` distinct registrable-looking names, a few of them IDN."""
    out = []
    for i in range(n):
        word = rng.choice(WORDS)
        name = f"{word}{i}.{rng.choice(TLDS)}"
        out.append(name.replace(word, "bücher", 1) if i % 97 == 0 else name)
    return out


def document(names: list[str]) -> dict:
    return {
        "contract": CONTRACT,
        "updated": "2026-05-23T00:00:00Z",
        "operator": "Jason Walsh",
        "contact": "j@wal.sh",
        "policy": "https://wal.sh/bot/",
        "refresh": "PT6H",
        "blocked": [{"domain": d, "added": "2026-05-23", "reason": "email opt-out"} for d in names],
    }


def host_mix(names: list[str], count: int, rng: random.Random) -> list[tuple[str, str]]:
    """(raw host as a request would carry it, the lowercase ASCII host for the scan):
    a third exact hits, a third subdomain hits, a third misses (some of them "suffix
    without a dot" traps). IDN names are given in their ASCII form to the scan."""
    mix = []
    for i in range(count):
        name = rng.choice(names)
        kind = i % 3
        if kind == 0:
            raw = name.upper() if i % 2 else name
        elif kind == 1:
            raw = f"www.static.{name}" if i % 2 else f"https://m.{name}:8443/path"
        else:
            raw = f"not{name}" if i % 2 else f"miss{i}.unlisted.test"
        mix.append((raw, normalise_host(raw)))
    return mix


def per_call_us(fn, items: list, rounds: int) -> float:
    """Median over ``rounds`` of (time to call ``fn`` on every item) / len(items), in µs."""
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for item in items:
            fn(item)
        samples.append((time.perf_counter() - start) / len(items) * 1e6)
    return statistics.median(samples)


def bench_match(quick: bool) -> None:
    rng = random.Random(1)
    print("match time per host (median; hits, subdomain hits and misses in equal parts)")
    print(f"{'domains':>9} {'match() us':>11} {'naive scan us':>14} {'scan / match':>13}")
    flat = []
    for size in SIZES:
        names = domains(size, rng)
        bl = Blocklist.from_document(document(names))
        assert len(bl) == size
        mix = host_mix(names, 300, rng)
        raw_hosts = [raw for raw, _ in mix]
        ascii_names = [e.domain for e in bl]  # what a naive scan would hold

        def naive(host: str, ascii_names: list[str] = ascii_names) -> bool:
            return any(host == d or host.endswith("." + d) for d in ascii_names)

        # same verdicts, or the comparison means nothing
        assert all((bl.match(raw) is not None) == naive(host) for raw, host in mix)
        per_call_us(bl.match, raw_hosts, rounds=2)  # warm-up
        ours = per_call_us(bl.match, raw_hosts, rounds=5 if quick else 31)
        scan_hosts = [host for _, host in mix][: 30 if size >= 100_000 else 300]
        scan = per_call_us(naive, scan_hosts, rounds=3 if size >= 100_000 or quick else 11)
        flat.append(ours)
        print(f"{size:>9,} {ours:>11.2f} {scan:>14.2f} {scan / ours:>12.1f}x")
    print(f"match() at {SIZES[-1]:,} vs {SIZES[0]:,} domains: {flat[-1] / flat[0]:.2f}x (flat = ~1)")


def bench_adopt(quick: bool) -> None:
    rng = random.Random(2)
    size = SIZES[-1]
    raw = json.dumps(document(domains(size, rng)), separators=(",", ":"), ensure_ascii=False).encode()
    print()
    print(f"validate + adopt {size:,} entries from bytes ({len(raw):,} bytes; cap {MAX_DOCUMENT_BYTES:,})")
    rounds = 1 if quick else 3

    def timed(fn) -> float:
        samples = []
        for _ in range(rounds):
            start = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - start)
        return statistics.median(samples)

    Blocklist.from_document(raw)  # warm: builds and caches the schema plan once
    adopt = timed(lambda: Blocklist.from_document(raw))
    parsed = json.loads(raw)
    parse = timed(lambda: json.loads(raw))
    reference = Draft202012Validator(bundled_schema(), format_checker=Draft202012Validator.FORMAT_CHECKER)
    assert reference.is_valid(parsed)
    jsonschema_alone = timed(lambda: reference.is_valid(parsed))
    print(f"  Blocklist.from_document(bytes)          {adopt:6.2f} s   (JSON parse alone {parse:.2f} s)")
    print(f"  jsonschema alone, same schema + formats {jsonschema_alone:6.2f} s   (validation only, no adopt)")
    print(f"  ratio jsonschema-alone / full adopt     {jsonschema_alone / adopt:6.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}")
    bench_match(args.quick)
    bench_adopt(args.quick)


if __name__ == "__main__":
    main()
