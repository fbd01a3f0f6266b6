from dataclasses import dataclass, field


@dataclass
class PageMetadata:
    """What the crawler keeps of a page: metadata to cite, never the content (R6)."""

    url: str
    status: int
    title: str | None = None
    links: list[str] = field(default_factory=list)
    verdicts: dict = field(default_factory=dict)
