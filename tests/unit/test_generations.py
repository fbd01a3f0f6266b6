"""The generation counters a decision made ahead of its send is checked against at the checkpoint."""

from __future__ import annotations

from scrapy import Request

from scrapy_walsh.sending.decision_inputs import BLOCKLIST, PACE, ROBOTS, Generations


def test_a_decision_is_stale_once_an_input_it_read_moves_and_only_then():
    generations = Generations()
    request = Request("http://a.example/page")
    generations.note(request, ROBOTS, "http://a.example")
    generations.note(request, BLOCKLIST)
    generations.note(request, PACE, "a.example")
    assert generations.moved(request) is None
    # another origin's robots.txt, another host's pause: not this request's inputs
    generations.bump(ROBOTS, "http://b.example")
    generations.bump(PACE, "b.example")
    assert generations.moved(request) is None
    generations.bump(PACE, "a.example")
    assert generations.moved(request) == PACE
    # the gates decide again: noted anew, the decision is current
    generations.note(request, PACE, "a.example")
    assert generations.moved(request) is None
    generations.bump(BLOCKLIST)
    assert generations.moved(request) == BLOCKLIST


def test_a_request_no_gate_noted_has_nothing_stale():
    generations = Generations()
    generations.bump(BLOCKLIST)
    assert generations.moved(Request("http://a.example/")) is None


def test_the_notes_are_on_the_object_not_in_meta():
    """A copy (a requeue, a spider's ``replace()``) carries no decision: it meets the gates again."""
    generations = Generations()
    request = Request("http://a.example/")
    generations.note(request, BLOCKLIST)
    generations.bump(BLOCKLIST)
    copy = request.replace()
    assert generations.moved(request) == BLOCKLIST
    assert generations.moved(copy) is None
