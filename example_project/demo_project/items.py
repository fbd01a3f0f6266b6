from dataclasses import dataclass, field


@dataclass
class PageMetadata:
    """What the crawler keeps of a page: metadata to cite, never the content (R6)."""

    url: str
    status: int
    title: str | None = None
    links: list[str] = field(default_factory=list)
    #: each gate's verdict, e.g. {"blocklist": "not_blocked", "robots": "allowed_explicit"}
    verdicts: dict = field(default_factory=dict)
    #: seed 000's fetch recommendation for the robots verdict
    recommendation: str | None = None
