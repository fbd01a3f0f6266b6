"""Every way this project breaks the contract is on purpose (tests of `scrapy walsh check`).

It has no add-on line; each setting below breaks a §8 row the check must name.
"""

BOT_NAME = "broken_project"
SPIDER_MODULES = ["broken_project.spiders"]
NEWSPIDER_MODULE = "broken_project.spiders"

USER_AGENT = "BrokenBot/1.0 (+https://example.invalid/)"  # row 1: not the exact UA
ROBOTSTXT_OBEY = True  # row 2: Scrapy's RobotsTxtMiddleware (full-UA group matching)
CONCURRENT_REQUESTS = 8  # row 4: not serial
DOWNLOAD_DELAY = 0  # row 4: no spacing at all
RANDOMIZE_DOWNLOAD_DELAY = True  # row 4: jitter
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_MAX_DELAY = 0.5  # row 4: AutoThrottle capped under 1 s
HTTPCACHE_ENABLED = True  # row 6: page bodies on disk
ITEM_PIPELINES = {"scrapy.pipelines.files.FilesPipeline": 1}  # row 6: downloads files
FILES_STORE = "files"
WALSH_BLOCKLIST_URL = None  # row 3: no operator blocklist
WALSH_REFETCH_INTERVAL = 0  # row 8: refetch at will
LOG_LEVEL = "INFO"
