"""Hostile robots.txt files at the parse limit (4 MiB), and what one costs.

Shared by ``tests/unit/test_robots_limit.py`` (bounds) and ``bench/robots_oracle.py
--hostile`` (figures). :func:`measure` runs in a fresh interpreter, so its peak RSS is the
file's alone.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from scrapy_walsh.policy.robots import MAX_BYTES

REPO = Path(__file__).resolve().parent.parent


def fill(head: bytes, make: Callable[[int], bytes], limit: int = MAX_BYTES) -> bytes:
    """``head`` then ``make(0)``, ``make(1)``... up to ``limit`` bytes."""
    out, size, i = [head], len(head), 0
    while True:
        line = make(i)
        if size + len(line) > limit:
            return b"".join(out)
        out.append(line)
        size += len(line)
        i += 1


#: name -> the file. Distinct rules (a rule written twice is compiled once).
SHAPES: dict[str, Callable[[], bytes]] = {
    "wildcard-rules": lambda: fill(b"User-agent: *\n", lambda i: b"Disallow: /*a%d*b*c$\n" % i),
    "prefix-rules": lambda: fill(b"User-agent: *\n", lambda i: b"Disallow: /private/%d\n" % i),
    "one-line": lambda: b"User-agent: *\nDisallow: /" + b"*a" * (MAX_BYTES // 2 - 20) + b"\n",
    "agents-only": lambda: fill(b"", lambda i: b"User-agent: bot%d\n" % i),
    "many-groups": lambda: fill(b"", lambda i: b"User-agent: walsh\nDisallow: /x%d\n" % i),
    "not-utf8": lambda: fill(b"User-agent: *\n", lambda i: b"Disallow: /\xff\xfe%d\x80\n" % i),
}

# Peak RSS is the process's own VmHWM (/proc/self/status): ru_maxrss also counts the memory of
# the process it was forked from, up to its exec (a pytest worker grown to 340 MB would hide it).
_PROBE = """
import json, sys, time
def hwm_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
sys.path.insert(0, {repo!r})
from tests.robots_hostile import SHAPES
from scrapy_walsh.policy.robots import RobotsTxt
body = SHAPES[{shape!r}]()
base = hwm_kib()
start = time.process_time()
robots = RobotsTxt.parse(body)
parsed = time.process_time()
robots.verdict("https://example.com/" + "a" * 2000 + "?q=zz", "walsh")
first = time.process_time()
for i in range(10):
    robots.verdict(f"https://example.com/p{{i}}/" + "ab" * 50, "walsh")
done = time.process_time()
print(json.dumps({{"bytes": len(body), "parse": parsed - start, "first_verdict": first - parsed,
                  "verdict": (done - first) / 10,
                  "peak_mib": hwm_kib() / 1024,
                  "body_mib": base / 1024}}))
"""


def measure(shape: str) -> dict[str, float]:
    """CPU seconds of parse, first verdict (compiles the group) and a later verdict, and the
    interpreter's peak RSS in MiB (``body_mib``: before parsing, the file built)."""
    result = subprocess.run(
        [sys.executable, "-c", _PROBE.format(repo=str(REPO), shape=shape)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(result.stdout)
