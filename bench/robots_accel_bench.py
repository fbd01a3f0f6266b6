"""What the optional accelerator buys: robots.txt parse and match, compiled by mypyc vs pure Python.

The wheel ``make dist`` builds is pure Python; ``WALSH_MYPYC=1`` at build time compiles
``policy/robots.py`` (setup.py). This runs the same inputs through both builds in one process,
the installed module and its source loaded as plain Python (``tests/robots_builds.py``), and
prints operations per CPU second (``time.process_time``: the machine's other load counts less
than on a wall clock). It needs the compiled build installed (``make install`` makes one).

Run: ``.venv/bin/python bench/robots_accel_bench.py [--quick]``
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from robots_bench import TOKEN, generated, small, urls  # noqa: E402

from scrapy_walsh.policy.robots import MAX_BYTES  # noqa: E402
from tests.robots_builds import imported, is_compiled, pure_python  # noqa: E402


def per_cpu_second(work: Callable[[], int], budget: float) -> float:
    """Operations per CPU second: ``work`` (returning how many it did) repeated for ``budget`` s."""
    done, start = 0, time.process_time()
    while (spent := time.process_time() - start) < budget:
        done += work()
    return done / spent


def figures(module, body: bytes, url_list: list[str], budget: float) -> tuple[float, float]:
    """(parses plus first verdict per s, warm verdicts per s) for one build."""

    def parse() -> int:
        module.RobotsTxt.parse(body).verdict(url_list[0], TOKEN)
        return 1

    warm = module.RobotsTxt.parse(body)

    def verdicts() -> int:
        for url in url_list:
            warm.verdict(url, TOKEN)
        return len(url_list)

    return per_cpu_second(parse, budget), per_cpu_second(verdicts, budget)


def main() -> int:
    if not is_compiled():
        print("robots.py is not compiled here: build it with WALSH_MYPYC=1 (make install) to compare", file=sys.stderr)
        return 2
    budget = 0.5 if "--quick" in sys.argv else 3.0
    files = {
        "small": small(),
        "news-site": generated(seed=1, target=30_000, star_rules=120, per_bot=(1, 4)),
        "parse-limit": generated(seed=2, target=MAX_BYTES, star_rules=4_000, per_bot=(2, 10)),
    }
    print("file          | size    | parse+1st/s compiled | pure    | x    | verdicts/s compiled | pure      | x")
    for i, (name, text) in enumerate(files.items()):
        body, url_list = text.encode(), urls(text, 300, seed=10 + i)
        fast = figures(imported, body, url_list, budget)
        slow = figures(pure_python(), body, url_list, budget)
        print(
            f"{name:13} | {len(body):7,} | {fast[0]:20,.0f} | {slow[0]:7,.0f} | {fast[0] / slow[0]:4.2f} "
            f"| {fast[1]:19,.0f} | {slow[1]:9,.0f} | {fast[1] / slow[1]:4.2f}"
        )
    print(f"\nCPU time, {budget:g} s per figure; token {TOKEN!r}, 300 URLs per file; x: compiled / pure.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
