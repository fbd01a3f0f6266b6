"""Many names on one address: the address's ledger entry stays small, so a reservation costs the
same whatever the number of names behind the address (a CDN's address serves thousands).

Every reservation writes the host and each of its addresses, and takes a host lease on each. A
lease whose request went at once says no more than the start stamped with it; left in the store
until it lapsed, it made the shared address's entry carry one lease per request of the last
second, read and rewritten by every reservation."""

from __future__ import annotations

from scrapy_walsh.store import SqliteStore
from tests.e2e.test_crash_state import IP, crawl_once
from tests.helpers import CLOCK_TOLERANCE


def test_a_shared_address_entry_holds_one_lease_however_many_names_share_it(tmp_path):
    hosts = 40
    seen, _ = crawl_once(tmp_path, hosts, 1)
    pages = [r for r in seen if r["path"] != "/robots.txt"]
    assert len(pages) == hosts, "every name was crawled"
    by_host: dict[str, list[float]] = {}
    for record in seen:
        by_host.setdefault(record["host"], []).append(record["at"])
    gaps = [b - a for times in by_host.values() for a, b in zip(times, times[1:])]
    assert min(gaps) >= 1.0 - CLOCK_TOLERANCE, "each name keeps its own floor"
    # the crawl's last second had dozens of requests, each with a lease on this entry
    first, last = min(r["at"] for r in seen), max(r["at"] for r in seen)
    assert len(seen) / (last - first) > 10, "enough requests a second for the old store to hold many leases"
    store = SqliteStore(tmp_path / "state" / "scrapy-walsh" / "walsh-research.sqlite3", "Walsh-Research")
    try:
        entry = store.get("pacing", IP) or {}
    finally:
        store.close()
    assert entry.get("any_start"), f"the names' starts are stamped on their shared address: {entry}"
    leases = entry.get("sending") or {}
    assert len(leases) <= 1, f"{len(leases)} leases on the shared address at the crawl's end"
