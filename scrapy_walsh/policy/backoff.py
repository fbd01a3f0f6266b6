"""R5 arithmetic: how long to wait before retrying a 429/503, as a value object. Pure.

Like urllib3's ``Retry``: a :class:`Backoff` holds the policy (base, cap, retries) and
answers one question, :meth:`Backoff.decide`. A valid ``Retry-After`` wins, else full-jitter
exponential; never under the host's pacing interval, never infinite (:data:`MAX_SECONDS`).
docs/requirements/r5-backoff.md says why.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timezone
from email.utils import parsedate_to_datetime

DELTA_SECONDS = re.compile(r"[0-9]+")
NUMBER = re.compile(r"[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?")
#: The longest wait any Retry-After is read as (about 31.7 years): a finite "never, as far as
#: this crawl is concerned".
MAX_SECONDS = 1e9


@dataclass(frozen=True)
class RetryAfter:
    """A parsed ``Retry-After``: ``seconds`` from now, or why it was unusable.

    ``floor`` is the most a garbage value could have meant (``"1.5"``, or the largest of
    several different headers): the computed delay is never under it, so even a
    malformed instruction is never undercut.
    """

    seconds: float | None
    problem: str | None = None
    floor: float = 0.0


def _one(value: str, now: float) -> float | None:
    if DELTA_SECONDS.fullmatch(value):
        return min(float(value), MAX_SECONDS)  # float() of 400 digits is inf
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:  # asctime and "-0000" dates: HTTP dates are always GMT (RFC 9110 §5.6.7)
        when = when.replace(tzinfo=timezone.utc)
    return min(max(0.0, when.timestamp() - now), MAX_SECONDS)


def _readable(value: str) -> float:
    if NUMBER.fullmatch(value):
        number = float(value)
        return min(number, MAX_SECONDS) if number > 0 else 0.0  # NUMBER has no nan; 1e999 is inf
    return 0.0


def parse_retry_after(values: Sequence[str], now: float) -> RetryAfter:
    """RFC 9110 §10.2.3: ``delay-seconds`` (digits only) or an ``HTTP-date``."""
    values = [v.strip() for v in values if v is not None]
    if not values:
        return RetryAfter(None)
    parsed = [_one(v, now) for v in values]
    floor = max([p for p in parsed if p is not None] + [_readable(v) for v in values])
    if len(set(values)) > 1:
        return RetryAfter(None, f"{len(values)} different Retry-After headers {values!r}", floor)
    if parsed[0] is None:
        return RetryAfter(None, f"Retry-After {values[0]!r} is neither delta-seconds nor an HTTP-date", floor)
    return RetryAfter(parsed[0])


@dataclass(frozen=True)
class Decision:
    """What to do with a 429/503: ``retry`` after ``delay`` s, or give up and say why."""

    retry: bool
    delay: float
    reason: str
    retry_after: RetryAfter


@dataclass(frozen=True)
class Backoff:
    base: float = 1.0
    max_delay: float = 3600.0
    max_retries: int = 5

    def computed(self, attempt: int, rng: Callable[[float, float], float] = random.uniform) -> float:
        """Full jitter: ``uniform(0, min(max_delay, base * 2**attempt))``."""
        # 2**attempt overflows a float past 1023; the cap is reached long before
        return rng(0.0, min(self.max_delay, self.base * 2.0 ** min(attempt, 64)))

    def decide(
        self,
        attempt: int,
        retry_after: Sequence[str],
        now: float,
        interval: float,
        rng: Callable[[float, float], float] = random.uniform,
    ) -> Decision:
        """``attempt`` is 0 for the first answer; ``interval`` the host's pacing interval."""
        parsed = parse_retry_after(retry_after, now)
        told = parsed.seconds if parsed.seconds is not None else parsed.floor
        if told > self.max_delay:
            return Decision(
                False,
                told,
                f"Retry-After asks for {told:.0f} s, over WALSH_BACKOFF_MAX_DELAY "
                f"{self.max_delay:.0f} s: giving up rather than retrying early",
                parsed,
            )
        if parsed.seconds is not None:
            delay, why = parsed.seconds, "Retry-After"
        else:
            delay = max(self.computed(attempt, rng), parsed.floor)
            why = "exponential backoff with jitter"
        delay = max(delay, interval)
        if attempt >= self.max_retries:
            return Decision(False, delay, f"no retries left ({self.max_retries})", parsed)
        return Decision(True, delay, why, parsed)

    def after_timeout(
        self,
        attempt: int,
        interval: float,
        recheck: float,
        rng: Callable[[float, float], float] = random.uniform,
        streak: int = 1,
    ) -> Decision:
        """A request that got no answer within its time budget: a 503 without
        ``Retry-After`` whose pause is never under :func:`timeout_rest`.

        The crawl is serial, so a hanging server costs every host one budget per request sent
        to it; resting its host for the recheck interval, doubled for each timeout in a row
        (``streak``), bounds that to a number of budgets that grows with the log of the crawl's
        length, not with it. A rest beyond ``max_delay`` is not waited for (no retry).
        """
        computed = self.decide(attempt, [], 0.0, interval, rng)
        delay = max(computed.delay, timeout_rest(recheck, streak))
        reason = f"no answer within the time budget ({streak} in a row); the host rests {delay:.0f} s"
        if delay > self.max_delay:
            return Decision(False, delay, f"{reason}, over WALSH_BACKOFF_MAX_DELAY: not retried", computed.retry_after)
        if not computed.retry:
            return Decision(False, delay, f"{computed.reason}; {reason}", computed.retry_after)
        return Decision(True, delay, reason, computed.retry_after)


#: The longest rest a run of timeouts earns (a day: RFC 9309 §2.4's longest robots.txt cache).
LONGEST_TIMEOUT_REST = 86_400.0


def timeout_rest(recheck: float, streak: int) -> float:
    """The rest of a host after its ``streak``-th timeout in a row: ``WALSH_RECHECK_INTERVAL``,
    doubled for each earlier one, at most :data:`LONGEST_TIMEOUT_REST` (never under ``recheck``).

    A fixed rest would let each hanging host take one budget per interval for as long as its
    requests wait: at 1 % of 10,000 hosts, 100 hosts x 30 s every 600 s is five times the serial
    crawl's time. Doubling makes a host that keeps hanging cost ``log2(crawl / recheck)`` budgets.
    """
    doubled = recheck * 2.0 ** min(max(streak, 1) - 1, 32)
    return max(recheck, min(doubled, LONGEST_TIMEOUT_REST))
