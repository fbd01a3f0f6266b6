"""Item pipelines the add-on places: metadata only (R6), first-seen items only (R7)."""

from scrapy_walsh.pipelines.dedup import DedupPipeline
from scrapy_walsh.pipelines.metadata import MetadataOnlyPipeline

__all__ = ("DedupPipeline", "MetadataOnlyPipeline")
