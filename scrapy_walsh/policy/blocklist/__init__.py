"""The operator blocklist, walsh-research-blocklist/v1 (the contract (§5.2), R3). Pure.

No Scrapy, no network, no I/O except reading the bundled schema from the package: the
middleware fetches, persists and times; this package decides whether a document may be
adopted and whether a host is covered by it, one module per concern (listed in
docs/requirements/r3-blocklist.md). Importing it does not import jsonschema; the first
validation does.
"""

from scrapy_walsh.policy.blocklist.dates import parse_duration
from scrapy_walsh.policy.blocklist.document import (
    CONTRACT,
    DEFAULT_REFRESH_SECONDS,
    EXTRA_REASON,
    MAX_REFRESH_SECONDS,
    MIN_REFRESH_SECONDS,
    Blocklist,
    BlocklistEntry,
)
from scrapy_walsh.policy.blocklist.errors import InvalidBlocklist, InvalidSchema
from scrapy_walsh.policy.blocklist.hosts import canonical_domain, normalise_host
from scrapy_walsh.policy.blocklist.jsontext import MAX_DOCUMENT_BYTES
from scrapy_walsh.policy.blocklist.schema import bundled_schema, load_schema
from scrapy_walsh.policy.blocklist.stored import (
    ADOPTED_SCHEMA,
    BUNDLED_SCHEMA,
    from_schema_record,
    from_stored,
    replaces,
    schema_digest,
    schema_record,
    stored_record,
)

__all__ = (
    "ADOPTED_SCHEMA",
    "BUNDLED_SCHEMA",
    "CONTRACT",
    "DEFAULT_REFRESH_SECONDS",
    "EXTRA_REASON",
    "MAX_DOCUMENT_BYTES",
    "MAX_REFRESH_SECONDS",
    "MIN_REFRESH_SECONDS",
    "Blocklist",
    "BlocklistEntry",
    "InvalidBlocklist",
    "InvalidSchema",
    "bundled_schema",
    "canonical_domain",
    "from_schema_record",
    "from_stored",
    "load_schema",
    "normalise_host",
    "parse_duration",
    "replaces",
    "schema_digest",
    "schema_record",
    "stored_record",
)
