"""``check`` names what removes the add-on: a spider's ``custom_settings`` or the command line.

Such a crawl loads none of the package's code, so no start-up log of ours can say so;
the audit must.
"""

from __future__ import annotations

from tests.helpers import add_addon_line, new_project, run_scrapy, write_spider

DROPPING_SPIDER = """
import scrapy


class DroppingSpider(scrapy.Spider):
    name = "dropping"
    custom_settings = {"ADDONS": {}}
    start_urls = ["http://open.walsh-demo.test/page/1"]
"""


def test_check_names_the_spider_and_the_command_line_that_remove_the_add_on(tmp_path):
    project = new_project(tmp_path)
    add_addon_line(project)
    write_spider(project, "dropping", DROPPING_SPIDER)

    whole = run_scrapy(["walsh", "check"], cwd=project)
    assert whole.returncode == 1, whole.stdout
    assert "scrapy_walsh.Addon is removed: the spider's custom_settings replace ADDONS (dropping)" in whole.stdout

    named = run_scrapy(["walsh", "check", "dropping"], cwd=project)
    assert named.returncode == 1
    assert "the spider's custom_settings replace ADDONS (dropping)" in named.stdout, named.stdout

    cli = run_scrapy(["walsh", "check", "-s", "ADDONS={}"], cwd=project)
    assert cli.returncode == 1
    assert "scrapy_walsh.Addon is removed: the command line (-s ADDONS=...) replaces ADDONS" in cli.stdout, cli.stdout
