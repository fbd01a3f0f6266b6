"""The fleet example with a shared scrapy-redis queue: scrapy-redis really works with our
Scrapy and this add-on, and the fleet keeps the guarantees (run_fleet.py checks them from
the demo server's log and exits non-zero if one breaks)."""

import re
import subprocess
import sys

from tests.helpers import REPO


def test_workers_sharing_a_scrapy_redis_queue_keep_the_fleet_guarantees():
    result = subprocess.run(
        [sys.executable, "example_project/fleet/run_fleet.py", "--mode", "queue", "--workers", "2"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "fleet guarantees (every gap >= 1 s less 20 ms, each target once): held" in result.stdout
    assert "targets fetched: 18/18" in result.stdout
    split = re.search(r"target requests per worker: \{'0': (\d+), '1': (\d+)\}", result.stdout)
    assert split and min(int(n) for n in split.groups()) > 0, result.stdout  # both workers took targets
