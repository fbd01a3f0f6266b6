"""The audit's rules, grouped by requirement; :data:`RULES` runs them in checklist order.

Each rule reads the effective settings and their parsed ``WALSH_*`` values
(:class:`~scrapy_walsh.conformance.engine.Subject`) and yields findings. The rules that
fail report what breaks; the ``*_holds`` rules report, for rows whose failure rules found
nothing, what holds, so a self-audit shows each row as pass, warn or fail with its reason.
"""

from __future__ import annotations

from scrapy_walsh.conformance.engine import Rule
from scrapy_walsh.conformance.rules.addresses import address_guard, private_addresses
from scrapy_walsh.conformance.rules.backoff import backoff, backoff_holds
from scrapy_walsh.conformance.rules.blocklist import (
    blocklist_first,
    blocklist_gate,
    blocklist_matching,
    blocklist_url,
    state_uri,
)
from scrapy_walsh.conformance.rules.checkpoint import bounds, checkpoint, download_timeout
from scrapy_walsh.conformance.rules.configuration import unknown_walsh_settings
from scrapy_walsh.conformance.rules.identity import identity, spec_identity, verifiable_identity
from scrapy_walsh.conformance.rules.numbers import finite_numbers
from scrapy_walsh.conformance.rules.outputs import output_paths
from scrapy_walsh.conformance.rules.pacing import autothrottle, delay_floor, pacing_gate, serial
from scrapy_walsh.conformance.rules.robots import named_group, robots_gate, scrapy_robots
from scrapy_walsh.conformance.rules.scope import (
    conditional_holds,
    dedup_reset,
    freshness,
    pipelines_see_the_feed,
    scope,
    scope_holds,
)
from scrapy_walsh.conformance.rules.usage import usage_preferences

#: The order findings are listed in, within a row.
RULES: tuple[Rule, ...] = (
    unknown_walsh_settings,
    finite_numbers,
    output_paths,
    identity,
    checkpoint,
    scrapy_robots,
    robots_gate,
    blocklist_url,
    blocklist_gate,
    state_uri,
    serial,
    delay_floor,
    download_timeout,
    bounds,
    pacing_gate,
    backoff,
    scope,
    pipelines_see_the_feed,
    freshness,
    private_addresses,
    address_guard,
    named_group,
    blocklist_first,
    blocklist_matching,
    autothrottle,
    spec_identity,
    verifiable_identity,
    backoff_holds,
    scope_holds,
    conditional_holds,
    dedup_reset,
    usage_preferences,
)
