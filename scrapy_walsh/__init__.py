"""scrapy-walsh: a Scrapy add-on that makes every request obey
walsh-research-compliance/v1 and RFC 9309.

Add one line to a project's ``settings.py``::

    ADDONS = {"scrapy_walsh.Addon": 500}
"""

from .addon import Addon
from .settings import SPEC_VERSION
from .spiders import StructuredSourceSpider

__version__ = "0.1.0"

__all__ = ["Addon", "SPEC_VERSION", "StructuredSourceSpider", "__version__"]
