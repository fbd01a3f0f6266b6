# An ordinary Scrapy project. The one line that makes it conformant is ADDONS below;
# everything under "Demo only" exists because the demo site runs on loopback.
import os

from scrapy.settings import default_settings

from demo_site import hosts as demo_hosts
from demo_site.hosts import BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH, DEFAULT_PORT

BOT_NAME = "demo_project"

SPIDER_MODULES = ["demo_project.spiders"]
NEWSPIDER_MODULE = "demo_project.spiders"

ADDONS = {"scrapy_walsh.Addon": 500}

LOG_LEVEL = "INFO"
FEED_EXPORT_ENCODING = "utf-8"

# --- Demo only ---------------------------------------------------------------------
# The demo site's port (run_demo.py sets it; 8787 by default).
DEMO_PORT = int(os.environ.get("WALSH_DEMO_PORT", DEFAULT_PORT))
# *.walsh-demo.test names resolve to the demo's loopback addresses, and nowhere else.
# (Scrapy 2.19 renamed DNS_RESOLVER to TWISTED_DNS_RESOLVER.)
if hasattr(default_settings, "TWISTED_DNS_RESOLVER"):
    TWISTED_DNS_RESOLVER = "demo_site.resolver.DemoResolver"
else:
    DNS_RESOLVER = "demo_site.resolver.DemoResolver"
# The demo site's own addresses, and nothing else on loopback.
WALSH_ALLOW_PRIVATE_ADDRESSES = [f"{host.ip}/32" for host in demo_hosts.HOSTS.values()]
# The demo operator's blocklist instead of https://wal.sh/.
WALSH_BLOCKLIST_URL = f"http://ops.walsh-demo.test:{DEMO_PORT}{BLOCKLIST_PATH}"
WALSH_BLOCKLIST_SCHEMA_URL = f"http://ops.walsh-demo.test:{DEMO_PORT}{BLOCKLIST_SCHEMA_PATH}"
# Usage preferences: the uses made of what is collected (aipref labels); items carry each site's answer.
WALSH_PURPOSES = ["search"]
