# A fleet: many processes, one identity, one Redis. What makes it a fleet is
# WALSH_STATE_URI below; everything under "Demo only" exists because the demo site runs
# on loopback (the same lines as example_project/demo_project/settings.py).
import os

from scrapy.settings import default_settings

from demo_site import hosts as demo_hosts
from demo_site.hosts import BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH, DEFAULT_PORT

BOT_NAME = "fleet_project"
SPIDER_MODULES = ["fleet_project.spiders"]
NEWSPIDER_MODULE = "fleet_project.spiders"

ADDONS = {"scrapy_walsh.Addon": 500}

# Every worker, on any machine, points at the same Redis: pacing, pauses, robots.txt,
# the blocklist, validators, fetch times and emitted URLs are shared.
WALSH_STATE_URI = os.environ.get("WALSH_STATE_URI", "redis://127.0.0.1:6379/0")

# Only for the shared-queue spider (fleet_queue): scrapy-redis's scheduler and
# dupefilter keep the request queue in the same Redis. Set per spider (custom_settings)
# so the independent-lists spider keeps the add-on's politeness-aware queue.
REDIS_URL = WALSH_STATE_URI

LOG_LEVEL = "INFO"
FEED_EXPORT_ENCODING = "utf-8"

# --- Demo only ---------------------------------------------------------------------
DEMO_PORT = int(os.environ.get("WALSH_DEMO_PORT", DEFAULT_PORT))
if hasattr(default_settings, "TWISTED_DNS_RESOLVER"):
    TWISTED_DNS_RESOLVER = "demo_site.resolver.DemoResolver"
else:
    DNS_RESOLVER = "demo_site.resolver.DemoResolver"
WALSH_ALLOW_PRIVATE_ADDRESSES = [f"{host.ip}/32" for host in demo_hosts.HOSTS.values()]
WALSH_BLOCKLIST_URL = f"http://ops.walsh-demo.test:{DEMO_PORT}{BLOCKLIST_PATH}"
WALSH_BLOCKLIST_SCHEMA_URL = f"http://ops.walsh-demo.test:{DEMO_PORT}{BLOCKLIST_SCHEMA_PATH}"
# Which worker sent a request, so run_fleet.py can show the split (demo only).
DEFAULT_REQUEST_HEADERS = {"Accept": "text/html", "X-Fleet-Worker": os.environ.get("FLEET_WORKER", "")}
# fleet_queue needs scrapy-redis; without it, fleet_targets still runs (with a warning).
SPIDER_LOADER_WARN_ONLY = True
