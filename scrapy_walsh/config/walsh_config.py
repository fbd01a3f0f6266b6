"""``WalshConfig``: the ``WALSH_*`` settings of one crawl, parsed once, typed and frozen."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from scrapy_walsh.policy.addresses import PrivateAddressAllowance
from scrapy_walsh.settings import MAX_BODY_BYTES, RECHECK_INTERVAL

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings
from scrapy_walsh.config.locations import StateLocation, default_state, journal_path
from scrapy_walsh.config.reading import Readings, attribute


@dataclass(frozen=True)
class WalshConfig:
    """The ``WALSH_*`` settings of one crawl, typed; see :data:`scrapy_walsh.settings.WALSH_SETTINGS`."""

    user_agent: str
    robots_token: str
    blocklist_url: str
    blocklist_schema_url: str | None
    blocklist_extra: tuple[str, ...]
    blocklist_operator: str | None
    blocklist_contact: str | None
    blocklist_policy: str | None
    blocklist_refresh: str | None
    robots_mode: str
    robots_cache_seconds: float
    min_interval: float
    max_crawl_delay: float
    backoff_http_codes: tuple[int, ...]
    backoff_base: float
    backoff_max_delay: float
    backoff_max_retries: int
    max_field_chars: int
    refetch_interval: float
    dedup_reset: bool
    #: R7: the item field (or a callable's import path) items are deduplicated by.
    dedup_key: str
    allow_private_addresses: PrivateAddressAllowance
    #: Web Bot Auth: the key's path and the key directory's URL, or None.
    signing_key: str | None
    signature_agent: str | None
    #: None: the default location, resolved by :meth:`state_location`.
    state_uri: StateLocation | None
    #: This project is a bot of its own: its store may differ from another crawl's of the identity here.
    separate_bot: bool
    #: "host" or "ip": what one pacing interval covers (R4).
    pace_by: str
    #: The declared aipref purposes and what a reservation does.
    purposes: tuple[str, ...]
    usage_mode: str
    #: R6: characters of all an item's strings together.
    max_item_chars: int = 40000
    #: The download handler the checkpoint wraps (import path).
    download_handler: str = "scrapy.core.downloader.handlers.http11.HTTP11DownloadHandler"
    #: How Signature-Agent is sent and covered: "string" (verified by the deployed libraries) or "dictionary".
    signature_agent_form: str = "string"
    #: Decoded bytes of a page, at most.
    max_body_bytes: int = MAX_BODY_BYTES
    #: An unreachable robots.txt is asked again, and a host that timed out rests, this long.
    recheck_interval: float = RECHECK_INTERVAL
    #: The request journal: on (off only to measure its cost), where, how long it is kept, how
    #: often its head is signed.
    journal: bool = True
    journal_dir: str | None = None
    journal_retention_days: int = 90
    journal_sign_every: int = 1000
    #: The bot's public face: the networks it sends from, and where its page is published.
    ip_ranges: tuple[str, ...] = ()
    published: str | None = None
    #: Seconds between two progress lines (0: none).
    progress_interval: float = 60.0
    #: R6: the manifest kinds read for declared targets (None: the spider's rules or routes decide),
    #: and the routes that name them.
    discovery: tuple[str, ...] | None = None
    discovery_routes: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> WalshConfig:
        """The config of settings the audit passed (``ValueError`` for a value a parser refuses;
        the audit names every one: :func:`scrapy_walsh.conformance.enforce`)."""
        readings = Readings(settings)
        return cls(**{attribute(name): readings.value(name) for name in readings.raw})

    def state_location(self) -> StateLocation:
        return self.state_uri or default_state(self.robots_token)

    def journal_location(self) -> Path:
        return journal_path(self.journal_dir, self.state_location(), self.robots_token)

    def state_shared(self) -> bool:
        """True for the default store, which every process of the identity on this machine shares."""
        return self.state_uri is None
