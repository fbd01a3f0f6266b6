"""A hostile robots.txt at the 4 MiB parse limit costs bounded time and memory.

Each shape of tests/robots_hostile.py is parsed and queried in a fresh interpreter: CPU time
and peak memory must stay under bounds far above what a 2-core machine under load takes
(``bench/robots_oracle.py --hostile`` prints the figures), so a regression to super-linear cost
(a rule compiled per URL, a regex that backtracks, a copy per line) fails.
"""

from __future__ import annotations

import pytest

from scrapy_walsh.policy.robots import MAX_BYTES
from tests.robots_hostile import SHAPES, measure

#: CPU seconds for parse + first verdict; a later verdict; peak RSS over the interpreter's start.
MAX_CPU = 40.0
MAX_VERDICT = 2.0
MAX_PEAK_MIB = 700


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_hostile_4_mib_file_costs_bounded_time_and_memory(shape):
    seen = measure(shape)
    print(shape, seen)
    assert seen["bytes"] > MAX_BYTES - 200
    assert seen["parse"] + seen["first_verdict"] < MAX_CPU, seen
    assert seen["verdict"] < MAX_VERDICT, seen
    assert seen["peak_mib"] - seen["body_mib"] < MAX_PEAK_MIB, seen
