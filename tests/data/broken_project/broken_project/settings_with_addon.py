"""The broken settings plus the add-on line: the add-on must refuse this crawl at start."""

from broken_project.settings import *  # noqa: F403

ADDONS = {"scrapy_walsh.Addon": 500}
