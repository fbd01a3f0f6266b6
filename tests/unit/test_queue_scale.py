"""The politeness queue's cost per pop does not grow with the number of queued
hosts. Counted operations (store keys read, heap operations, hosts examined), never a
timing, so it cannot flake. A real crawler, a real sqlite store, the real queue and
ledger; each pop is followed by the reservation the pacing middleware would make."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scrapy import Request
from scrapy.utils.test import get_crawler

from scrapy_walsh import Addon
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.sending.pacer import SharedPacer
from scrapy_walsh.sending.queue import PolitenessAwarePriorityQueue, descending

POPS = 300


def _crawler(tmp_path, name: str):
    """A crawler with the add-on and a store of its own, and the engine the queue asks for."""
    crawler = get_crawler(
        settings_dict={
            "ADDONS": {Addon: 500},
            "WALSH_STATE_URI": f"sqlite:///{tmp_path}/{name}.sqlite3",
            # two measuring crawlers in this one process, each with its store: bots of their own
            "WALSH_SEPARATE_BOT": True,
        }
    )
    crawler.engine = type("Engine", (), {"downloader": None})()  # DownloaderInterface only keeps it
    return crawler


def _queue(tmp_path, hosts: int):
    from scrapy.squeues import FifoMemoryQueue

    crawler = _crawler(tmp_path, f"s{hosts}")
    queue = PolitenessAwarePriorityQueue(crawler, FifoMemoryQueue, "")
    for page in (1, 2):
        for h in range(hosts):
            queue.push(Request(f"http://h{h:05d}.example/page/{page}"))
    return queue, CrawlContext.of(crawler).get(SharedPacer)


def _cost(tmp_path, hosts: int) -> dict[str, float]:
    queue, politeness = _queue(tmp_path, hosts)
    store = politeness.store
    before_store = dict(store.counts)
    ops = getattr(queue, "ops", {})  # the old queue counted nothing
    before_ops = dict(ops)
    seen = set()
    for _ in range(POPS):
        request = queue.pop()
        assert request is not None
        host = request.url.split("/")[2]
        seen.add(host)
        politeness.reserve(host)  # what the pacing middleware does before the request leaves
    assert len(queue) == 2 * hosts - POPS
    assert len(seen) == POPS, "ready-first: every pop went to a host not yet asked"
    cost = {k: (store.counts[k] - before_store[k]) / POPS for k in ("keys_read", "reads")}
    cost.update({k: (ops[k] - before_ops[k]) / POPS for k in ("heap", "examined") if k in ops})
    return cost


def test_pop_cost_does_not_grow_with_the_number_of_queued_hosts(tmp_path):
    small, large = _cost(tmp_path, 400), _cost(tmp_path, 10_000)
    for name in small:
        assert large[name] <= small[name] * 1.5 + 1, (name, small, large)
    # bounded by a constant, not by H: at most a few keys and reads per request
    assert large["keys_read"] <= 10 and large["reads"] <= 3, large


def test_most_waiting_work_first_then_soonest(tmp_path):
    queue, politeness = _queue(tmp_path, 3)
    queue.push(Request("http://h00001.example/page/3"))  # h00001 now holds the most work
    first = queue.pop()
    assert first.url.startswith("http://h00001.example/")
    politeness.reserve("h00001.example")
    order = []
    for _ in range(2):
        request = queue.pop()
        host = request.url.split("/")[2]
        politeness.reserve(host)
        order.append(host)
    assert order == ["h00002.example", "h00000.example"]  # equal work: the larger name first, as before
    # every host taken: the one ready soonest comes next, and sooner_elsewhere sees the others
    nxt = queue.pop()
    assert nxt.url.split("/")[2] == "h00001.example"
    assert politeness.sooner_elsewhere("h00001.example") == pytest.approx(politeness.ready_at("h00002.example"))


@given(st.lists(st.text(min_size=0, max_size=12), min_size=2, max_size=30))
def test_the_tie_break_key_sorts_names_in_reverse(names):
    assert sorted(names, key=descending) == sorted(names, reverse=True)


def test_heap_steps_compare_builtin_values_only(tmp_path):
    """Equally loaded hosts are the usual case (every host 1 or 2 pages at the floor), so the heap
    compares their tie-break keys at each step: those are plain bytes, compared by ``bytes``,
    never a Python ``__lt__`` call per comparison. Counted by what the heap holds."""
    queue, politeness = _queue(tmp_path, 50)
    assert len(queue._ready) >= 50
    assert {type(entry[1]) for entry in queue._ready} == {bytes}
    first = queue.pop()
    assert first.url.startswith("http://h00049.example/"), "equal work: the larger name first"
    politeness.reserve("h00049.example")
    assert queue.pop().url.startswith("http://h00048.example/")


def _with_downloader(tmp_path):
    """A queue whose engine's downloader holds the ``active`` set Scrapy's ``Downloader`` keeps:
    the requests from its middlewares to their answers'."""
    queue, politeness = _queue(tmp_path, 0)
    active: set[Request] = set()
    queue._crawler.engine = type("Engine", (), {"downloader": type("Downloader", (), {"active": active})()})()
    return queue, politeness, active


def test_a_host_with_a_request_in_the_downloader_is_passed_over_even_once_its_queue_emptied(tmp_path):
    queue, politeness, active = _with_downloader(tmp_path)
    queue.push(Request("http://a.example/first"))
    first = queue.pop()
    active.add(first)  # the engine hands it to the downloader: its gates, the checkpoint's lock
    queue.push(Request("http://a.example/second"))  # a.example's queue had emptied meanwhile
    assert queue.pop() is None, "the second would overtake the first at the pacing gate"
    queue.push(Request("http://b.example/other"))
    assert queue.pop().url == "http://b.example/other"
    active.discard(first)  # answered, or refused by a gate
    assert queue.pop().url == "http://a.example/second"


def test_the_hand_outs_kept_stay_as_few_as_the_downloader_holds(tmp_path):
    queue, politeness, active = _with_downloader(tmp_path)
    for h in range(500):
        queue.push(Request(f"http://h{h:05d}.example/page/1"))
    kept = []
    for _ in range(500):
        request = queue.pop()
        active.add(request)
        if len(active) > 2:  # the downloader lets go of its oldest
            active.discard(kept.pop(0))
        kept.append(request)
        assert len(queue._out) <= 3, "one entry per host ever handed out would grow with the hosts"


def _counted():
    """Scrapy's memory FIFO, counting how often a per-priority queue is asked its length."""
    from scrapy.squeues import FifoMemoryQueue

    class Counted(FifoMemoryQueue):
        asked = 0

        def __len__(self) -> int:
            Counted.asked += 1
            return super().__len__()

    return Counted


def _per_request_lengths(tmp_path, requests: int) -> float:
    counted = _counted()
    queue = PolitenessAwarePriorityQueue(_crawler(tmp_path, f"p{requests}"), counted, "")
    for index in range(requests):  # each its own priority: a spider that ranks its targets
        queue.push(Request(f"http://one.example/page/{index}", priority=-index))
    popped = [queue.pop() for _ in range(requests)]
    assert [r.url for r in popped if r is not None] == [f"http://one.example/page/{i}" for i in range(requests)]
    assert len(queue) == 0
    return counted.asked / requests


def test_a_hosts_queue_costs_the_same_per_request_however_many_priorities_it_holds(tmp_path):
    small, large = _per_request_lengths(tmp_path, 200), _per_request_lengths(tmp_path, 4000)
    # a priority's queue is asked its length a few times per request, not once per queued request
    assert large <= small * 1.5 + 1 and large <= 10, (small, large)


@given(
    st.lists(
        st.one_of(st.tuples(st.integers(-3, 3), st.booleans()), st.none()),  # a push (priority, start?) or a pop
        max_size=60,
    )
)
def test_a_hosts_queue_hands_out_what_scrapys_own_would(steps):
    from scrapy.pqueues import ScrapyPriorityQueue
    from scrapy.squeues import FifoMemoryQueue, LifoMemoryQueue

    from scrapy_walsh.sending.queue import HostQueue

    crawler = get_crawler()
    ours, scrapys = (
        cls(crawler, LifoMemoryQueue, "", start_queue_cls=FifoMemoryQueue) for cls in (HostQueue, ScrapyPriorityQueue)
    )
    for index, step in enumerate(steps):
        if step is None:
            got, want = ours.pop(), scrapys.pop()
            assert (got and got.url) == (want and want.url)
        else:
            priority, start = step
            for queue in (ours, scrapys):
                queue.push(Request(f"http://one.example/{index}", priority=priority, meta={"is_start_request": start}))
        assert len(ours) == len(scrapys)
