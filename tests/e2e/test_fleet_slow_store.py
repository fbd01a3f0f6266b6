"""R4 as the server sees it: a worker whose store answers late.

The store stamps a request's start when it runs the call, and the request is written once the
answer is back. The same fleet as test_fleet_send_time.py (two workers reach the host directly,
a third through a door whose connect takes 1 s), and the third worker's link to Redis turns slow
near the end of that connect (tests/redis_server.RedisProxy holds every answer 0.3 s). Judged by
the demo server's clock: every two requests to the host at least 1 s apart, whoever sent them."""

from __future__ import annotations

import os

import pytest

from demo_site.hosts import HOSTS
from tests.e2e.test_fleet_send_time import DOOR_IP, HOST, fleet_with_a_slow_worker, spacing
from tests.helpers import stat
from tests.slow_connect import SlowConnect


@pytest.mark.skipif(os.geteuid() != 0, reason="the door watches SYNs with a packet socket (root)")
def test_a_request_written_after_a_late_store_answer_is_stamped_again_as_it_leaves(tmp_path):
    """The store stamps a start when it runs the call, but the request is written once the answer
    is back. The third worker's connect is slow, and meanwhile its link to Redis turns slow (every
    answer 0.3 s late: a far or busy server), so the stamp made as its request is written is 0.3 s
    older than the write. Its pages answer after 1.5 s, past the slot, so no answer's settle moves
    the start either. Before, the next worker's request reached the server 0.7 s after its own."""
    to_host, door, logs = fleet_with_a_slow_worker(
        tmp_path,
        "redis",
        lambda site: SlowConnect(DOOR_IP, site.port, (HOSTS[HOST].ip, site.port), wait=0.5),
        slow_link=0.3,
        slow_paths=["/page/1?latency=1.5", "/page/2?latency=1.5"],
        # its first page has come 33 s in, on a loaded machine: the others keep asking until it is done
        pages=120,
        keep_asking=True,
    )
    spacing(to_host, "redis, slow link", [round(accepted - syn, 3) for syn, accepted in door.connects])
    assert stat(logs[2], "walsh/pacing/stamped_after_write", 0) >= 1, "no request was stamped again"
    senders = [r["headers"].get("X-Fleet-Worker") for r in sorted(to_host, key=lambda r: r["mono"])]
    assert ("slow", "0") in zip(senders, senders[1:]) or ("slow", "1") in zip(senders, senders[1:]), (
        "no other worker's request came next after the slow worker's: nobody was waiting for the host"
    )
