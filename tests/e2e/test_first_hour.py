"""An existing Scrapy project's first hour with the add-on.

A ``scrapy startproject`` project with the paginated spider Scrapy users write (three items
per page, the page URL in ``url``, the "next" link followed) against a real shop on loopback
(:mod:`tests.shop_site`): what ``scrapy walsh check`` announces before the first crawl, what
the crawl then does, R7's dedup key, and ``state forget --spider`` in the edit-and-run loop.
"""

from __future__ import annotations

import json

from tests.helpers import CLOCK_TOLERANCE, run_scrapy, write_spider
from tests.shop_site import PER_PAGE, allow_loopback, crawl, declare_pages


def test_check_announces_each_change_with_file_and_line(shop_project, shop):
    result = run_scrapy(["walsh", "check", "--json"], cwd=shop_project)
    report = json.loads(result.stdout)
    changes = {c["requirement"]: c for c in report["changes"]}
    assert changes["R6 scope"]["where"] == "shop.py:18", "the follow, with its line"
    assert "response.follow" in changes["R6 scope"]["change"]
    assert "sitemap" in changes["R6 scope"]["todo"]
    assert changes["R7 dedup"]["where"] == "shop.py:11", "the item yielded in a loop with the page URL"
    assert "WALSH_DEDUP_KEY" in changes["R7 dedup"]["todo"]
    assert changes["private addresses"]["where"] == "spider shop.start_urls"
    assert "WALSH_ALLOW_PRIVATE_ADDRESSES" in changes["private addresses"]["todo"]
    assert "`walsh` key" in changes["usage"]["change"] and changes["usage"]["where"] == "shop.py:11"
    assert changes["R9 structured formats"]["where"] == "shop.py:10"
    row7 = next(r for r in report["rows"] if r["row"] == "7")
    assert row7["status"] == "warn" and any(f["setting"] == "WALSH_DEDUP_KEY" for f in row7["findings"])
    text = run_scrapy(["walsh", "check"], cwd=shop_project).stdout
    assert "what the add-on will change" in text and "shop.py:18  [R6 scope]" in text

    # the compliant spider: nothing left to announce but the walsh key and the selectors
    allow_loopback(shop_project, 'WALSH_DEDUP_KEY = "sku"')
    declare_pages(shop_project, shop.base)
    report = json.loads(run_scrapy(["walsh", "check", "--json"], cwd=shop_project).stdout)
    assert sorted(c["requirement"] for c in report["changes"]) == ["R9 structured formats", "usage"]
    assert report["result"] == "warn"


def test_check_warns_about_a_field_that_may_pass_the_size_bound(shop_project):
    write_spider(
        shop_project,
        "bodies",
        'import scrapy\n\nclass B(scrapy.Spider):\n    name = "bodies"\n    start_urls = ["https://example.com/"]\n\n'
        "    def parse(self, response):\n"
        '        yield {"url": response.url, "text": " ".join(response.css("p::text").getall())}\n',
    )
    report = json.loads(run_scrapy(["walsh", "check", "bodies", "--json"], cwd=shop_project).stdout)
    bound = [c for c in report["changes"] if c["requirement"] == "R6 item bound"]
    assert [c["where"] for c in bound] == ["bodies.py:8"]
    assert "'text'" in bound[0]["change"] and "WALSH_MAX_FIELD_CHARS" in bound[0]["change"]


def test_check_outside_a_project_says_so_in_one_line(tmp_path):
    result = run_scrapy(["walsh", "check"], cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "not in a Scrapy project" in lines[0], result.stderr


def test_shared_dedup_key_is_named_then_the_setting_brings_every_item_back(shop_project, shop):
    allow_loopback(shop_project)
    declare_pages(shop_project, shop.base, pages=2)
    first, items = crawl(shop_project)
    assert first.returncode == 0, first.stderr[-3000:]
    assert len(items) == 2, "one item per page: the others share the page URL"
    assert "several items of one page share it" in first.stderr
    assert "WALSH_DEDUP_KEY" in first.stderr
    assert "shared dedup key" in first.stderr, "the summary says it too"
    assert "[scrapy_walsh.outputs.summary] WARNING" in first.stderr, "something was refused: WARNING"

    second, items = crawl(shop_project, "-s", "WALSH_DEDUP_KEY=sku", "-s", "WALSH_REFETCH_INTERVAL=0")
    assert second.returncode == 0, second.stderr[-3000:]
    assert len(items) == 2 * PER_PAGE, "keyed by sku, every item of every page is emitted"


def test_forget_spider_fetches_again_while_pacing_holds(shop_project, shop):
    allow_loopback(shop_project, 'WALSH_DEDUP_KEY = "sku"')
    declare_pages(shop_project, shop.base, pages=2)
    first, items = crawl(shop_project)
    assert first.returncode == 0, first.stderr[-3000:]
    assert len(items) == 2 * PER_PAGE
    assert "[scrapy_walsh.outputs.summary] INFO" in first.stderr, "nothing refused: the summary is INFO"

    shown = run_scrapy(["walsh", "state", "show", f"{shop.base}/page-1.html", "--json"], cwd=shop_project)
    assert json.loads(shown.stdout)["targets"][f"{shop.base}/page-1.html"]["validators"], "validators stored"

    skipped, items = crawl(shop_project)
    assert items == [] and "recently fetched" in skipped.stderr, "R8: the edit-and-run loop is stopped"

    forgot = run_scrapy(["walsh", "state", "forget", "--spider", "shop", "--json"], cwd=shop_project)
    assert forgot.returncode == 0, forgot.stderr
    dropped = json.loads(forgot.stdout)["dropped"]
    assert len(dropped["seen:shop"]) == 2 * PER_PAGE
    assert len(dropped["fetched"]) == 2 and len(dropped["validators"]) == 2
    assert "pacing" not in dropped, "the pacing ledger is never forgotten"

    before = len(shop.log)
    again, items = crawl(shop_project)
    assert again.returncode == 0, again.stderr[-3000:]
    assert len(items) == 2 * PER_PAGE, "fetched and emitted again"
    pages = [p for _, p, _ in shop.log[before:] if p.startswith("/page-")]
    assert sorted(pages) == ["/page-1.html", "/page-2.html"]
    sent = [{k.lower() for k in h} for _, p, h in shop.log if p.startswith("/page-")]
    assert "if-modified-since" not in sent[0], "the first run had no validators"
    assert all("if-modified-since" not in h for h in sent[2:]), "validators forgotten: unconditional fetches"
    times = [t for t, _, _ in shop.log]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert min(gaps) >= 1.0 - CLOCK_TOLERANCE, f"R4 held across the three runs (server clock): {gaps}"


def test_a_slower_host_by_download_slots_is_paced_explained_and_summarised(shop_project, shop):
    allow_loopback(shop_project, 'WALSH_DEDUP_KEY = "sku"\nDOWNLOAD_SLOTS = {"127.0.0.1": {"delay": 2.5}}')
    declare_pages(shop_project, shop.base, pages=3)
    result, items = crawl(shop_project)
    assert result.returncode == 0, result.stderr[-3000:]
    assert len(items) == 3 * PER_PAGE
    times = [t for t, _, _ in shop.log]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert len(gaps) == 3 and min(gaps) >= 2.5 - CLOCK_TOLERANCE, f"the server saw 2.5 s gaps: {gaps}"
    assert "127.0.0.1 (every 2.5 s or more)" in result.stderr, "the summary shows the interval used"

    explained = run_scrapy(["walsh", "explain", f"{shop.base}/page-1.html", "--offline", "--json"], cwd=shop_project)
    pacing = json.loads(explained.stdout)["pacing"]
    assert pacing["interval"] == 2.5 and pacing["host_interval"] == 2.5
    text = run_scrapy(["walsh", "explain", f"{shop.base}/page-1.html", "--offline"], cwd=shop_project).stdout
    assert "2.5 s between requests to this host" in text and "DOWNLOAD_SLOTS delay 2.5 s" in text


def test_a_download_slots_delay_under_the_floor_is_refused(shop_project):
    allow_loopback(shop_project, 'DOWNLOAD_SLOTS = {"127.0.0.1": {"delay": 0.5}}')
    result, _ = crawl(shop_project)
    assert result.returncode != 0
    assert "DOWNLOAD_SLOTS" in result.stderr and "R4" in result.stderr
    assert "Traceback" not in result.stderr


def test_blocklist_schema_errors_are_in_words(tmp_path):
    path = tmp_path / "blocklist.json"
    made = run_scrapy(
        [
            "walsh",
            "blocklist",
            "add",
            "good.example",
            "--reason",
            "opted out",
            "--file",
            str(path),
            "--operator",
            "Ops",
            "--contact",
            "mailto:ops@example.com",
            "--policy",
            "https://example.com/policy",
        ],
        cwd=tmp_path,
    )
    assert made.returncode == 0, made.stderr
    document = json.loads(path.read_text())
    document["blocked"][0]["domain"] = "good.example "
    path.write_text(json.dumps(document))
    result = run_scrapy(["walsh", "blocklist", "validate", str(path)], cwd=tmp_path)
    assert result.returncode != 0
    said = result.stdout + result.stderr
    assert "holds white space: a domain is one word" in said, said
    assert "(?![" not in said, "no bare regular expression"


def test_each_loosening_setting_gets_the_same_warning_and_check_rates_it(shop_project):
    loosening = {
        "WALSH_ROBOTS_MODE": ("report_only", "R2 robots.txt"),
        "WALSH_REFETCH_INTERVAL": ("3600", "R8 frequency"),
        "WALSH_MAX_FIELD_CHARS": ("5000", "R6 scope"),
        "WALSH_MAX_ITEM_CHARS": ("80000", "R6 scope"),
        "WALSH_ALLOW_PRIVATE_ADDRESSES": ("127.0.0.1", "the address rule"),
        "WALSH_SEPARATE_BOT": ("True", "R4"),
        "WALSH_JOURNAL": ("False", "proof of conformance"),
    }
    for name, (value, requirement) in loosening.items():
        result = run_scrapy(["walsh", "check", "-s", f"{name}={value}", "--json"], cwd=shop_project)
        report = json.loads(result.stdout)
        rated = [f for r in report["rows"] for f in r["findings"] if f["setting"] == name and f["status"] == "warn"]
        assert rated and f"loosens {requirement}" in rated[0]["message"], (name, rated)
        crawl_log, _ = crawl(shop_project, "-s", f"{name}={value}", "-s", "CLOSESPIDER_TIMEOUT=1")
        assert f"loosens {requirement}" in crawl_log.stderr, (name, crawl_log.stderr[-2000:])
        assert f"[warn] {requirement}" in crawl_log.stderr, name


def test_check_follows_an_item_built_by_name_in_the_loop(shop_project):
    write_spider(
        shop_project,
        "named",
        "import scrapy\n\n\nclass N(scrapy.Spider):\n    name = 'named'\n    start_urls = ['https://example.com/']\n\n"
        "    def parse(self, response):\n"
        "        for row in response.css('tr'):\n"
        "            item = {}\n"
        "            item['url'] = response.url\n"
        "            item['body'] = response.text\n"
        "            yield item\n",
    )
    report = json.loads(run_scrapy(["walsh", "check", "named", "--json"], cwd=shop_project).stdout)
    changes = {c["requirement"]: c["where"] for c in report["changes"]}
    assert changes["R7 dedup"] == "named.py:13", "the yield of an item whose url is the page's"
    assert changes["R6 item bound"] == "named.py:12", "response.text in a field"

    write_spider(
        shop_project,
        "loaded",
        "import scrapy\nfrom itemloaders import ItemLoader\n\n\nclass L(scrapy.Spider):\n    name = 'loaded'\n"
        "    start_urls = ['https://example.com/']\n\n"
        "    def parse(self, response):\n"
        "        for row in response.css('tr'):\n"
        "            loader = ItemLoader(item={}, selector=row)\n"
        "            loader.add_value('url', response.url)\n"
        "            yield loader.load_item()\n",
    )
    report = json.loads(run_scrapy(["walsh", "check", "loaded", "--json"], cwd=shop_project).stdout)
    changes = {c["requirement"]: c["where"] for c in report["changes"]}
    assert changes["R7 dedup"] == "loaded.py:13", "an ItemLoader's add_value('url', response.url) in a loop"
