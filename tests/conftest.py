"""Shared fixtures: a real demo site on loopback and a real ``scrapy startproject`` project.

Each crawl runs in its own process (``python -m scrapy``), as a user would run it:
Twisted's reactor cannot be restarted inside one test process, and a subprocess also
proves the package works from an ordinary project directory.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from demo_site import DemoSite, environ
from tests.helpers import add_addon_line, new_project, run_scrapy, write_spider
from tests.robots_builds import stale_extension
from tests.shop_site import PAGINATED_SPIDER, Shop

# Hypothesis's default deadline (200 ms per example) is a timed test: on a loaded machine it fails
# examples that are right, only slow. The suite asserts what code does, never how fast.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


def pytest_configure(config):
    """The compiled robots module (setup.py) must be built from the source as it is now.

    The tests' crawls and commands run as subprocesses that import ``demo_site`` and ``tests``
    (a demo resolver, a test spider): the repository goes on their ``PYTHONPATH``. The package
    itself comes from wherever this process got it (the checkout, or a wheel in ``make test-wheels``,
    where the tree holds no ``scrapy_walsh``)."""
    os.environ["PYTHONPATH"] = environ()["PYTHONPATH"]
    if (extension := stale_extension()) is not None:
        pytest.exit(f"{extension.name} is older than robots.py, which changed since: run `make install`", 2)


#: The files that take minutes on their own (wheel builds, a list's real refresh, timeouts at the
#: 5 s floor and the rests after them): collected first, so that each worker starts one of them
#: and none is the last thing running while the other workers idle (``make test-suite``).
LONGEST_FIRST = ("test_blocklist_waits.py", "test_packaging.py", "test_hostile_timing.py", "test_fleet_leases.py")


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: item.path.name not in LONGEST_FIRST)  # stable: the rest keep their order


@pytest.fixture(autouse=True, scope="module")
def _module_state_home(tmp_path_factory):
    """Module-scoped fixtures crawl before any function-scoped fixture runs: they get a
    per-module ``XDG_STATE_HOME``, never the developer's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("xdg_state_module")))
        yield


@pytest.fixture(autouse=True)
def private_state_home(tmp_path_factory, monkeypatch):
    """Each test gets its own ``XDG_STATE_HOME`` (inherited by crawl subprocesses), so the
    default per-identity store is never the developer's real one, and a test
    relying on fresh state gets it."""
    home = tmp_path_factory.mktemp("xdg_state")
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home


@pytest.fixture
def demo_site():
    with DemoSite() as site:
        yield site


@pytest.fixture
def plain_project(tmp_path):
    """A project made by ``scrapy startproject``: the template's settings, untouched."""
    result = run_scrapy(["startproject", "plainproj", str(tmp_path / "plainproj")], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return tmp_path / "plainproj"


@pytest.fixture
def project(plain_project, demo_site):
    """The plain project plus the add-on line, kept on ``demo_site``."""
    add_addon_line(plain_project, site=demo_site)
    return plain_project


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    """A real redis-server on a free loopback port (tests/redis_server.py), per module."""
    from tests.redis_server import RedisServer

    with RedisServer(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.fixture
def shop():
    """The paginated shop of :mod:`tests.shop_site`, on a port of its own."""
    site = Shop().start()
    yield site
    site.shutdown()
    site.server_close()


@pytest.fixture
def shop_project(tmp_path, shop):
    """A ``scrapy startproject`` project with the add-on line and the paginated shop spider."""
    project = new_project(tmp_path)
    write_spider(project, "shop", PAGINATED_SPIDER.format(base=shop.base))
    add_addon_line(project)
    return project
