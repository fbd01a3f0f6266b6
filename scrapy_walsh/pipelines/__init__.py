"""Item pipelines the add-on places: metadata only (R6), first-seen items only (R7)."""

from .dedup import DedupPipeline
from .metadata import MetadataOnlyPipeline

__all__ = ("DedupPipeline", "MetadataOnlyPipeline")
