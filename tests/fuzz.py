"""The one hypothesis profile of the property tests of parsers of remote input.

Derandomised, so CI runs the same examples every time and a failure reproduces; no example
database, so nothing is written next to the tests; enough examples to matter.
"""

from hypothesis import HealthCheck, settings

FUZZ = settings(
    derandomize=True,
    max_examples=500,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
