"""In a fleet, an answer's R8 record rides on the process's next round trip to Redis (the next
request's reservation or claim, milliseconds later) instead of making one of its own: a page
costs its reservation, its R8 claim and its item's R7 lease. Before, the record was a round trip
of its own, 0.75 per request of the fleet bench's 3.96.

A real crawl of 30 hosts x 2 pages against a loopback server, with a real ``redis-server``.
"""

from __future__ import annotations

import redis

from ..helpers import stat
from .test_crash_state import crawl_once


def test_an_answers_record_rides_on_the_next_round_trip(tmp_path, redis_server):
    client = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    seen, log = crawl_once(tmp_path, 30, 2, settings=f"\nWALSH_STATE_URI = {redis_server.url!r}\n")
    pages = [r for r in seen if r["path"] != "/robots.txt"]
    trips, sent = stat(log, "walsh/store/round_trips"), stat(log, "walsh/requests/sent")
    late = stat(log, "walsh/pacing/confirmed_late", 0)
    print(f"{trips} round trips for {sent} requests ({len(pages)} pages, {late} confirmed late): {trips / sent:.2f}")
    assert len(pages) == 60
    # per page 3 (reservation, R8 claim, R7 lease), per host 3 with robots.txt, and the crawl's
    # own start: about 3.3 per request; 3.9 when each record was a round trip of its own
    assert (trips - late) / sent <= 3.6
    # every answer is recorded, none lost on the way: the last ones by their deadline or the close
    assert len(client.keys("walsh:*:fetched:*")) == 60
