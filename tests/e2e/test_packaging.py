"""Packaging that tells the truth: the sdist and the wheel a release would publish.

``make dist`` (``python -m build``: the sdist first, then the wheel from the unpacked sdist, as a
release builds them) runs once for the module: a pure ``py3-none-any`` wheel. The sdist must carry
what its tests need (conftest, helpers, data, the Makefile, the example project, the demo site): a
quick subset of its tests runs from the unpacked tree, importing the package from there. The wheel
(no demo site in it) is installed, with its declared dependencies, into a fresh venv, where
``scrapy walsh check`` runs in a new project. ``WALSH_MYPYC=1`` builds the compiled accelerator.

Building and installing fetch setuptools and the dependencies from the package index; when the
index can't be reached, the tests skip and say so (any other failure fails).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from scrapy_walsh import __version__
from tests.helpers import REPO

#: What pip and build print when the index is out of reach (no network, no DNS, a proxy refusing).
NETWORK_ERRORS = re.compile(
    r"NewConnectionError|Temporary failure in name resolution|Name or service not known|"
    r"Network is unreachable|ConnectTimeout|ReadTimeout|ProxyError|No matching distribution found|"
    r"Could not find a version that satisfies the requirement"
)


def _run(args, timeout: float = 240, **kwargs) -> subprocess.CompletedProcess:
    return _check(subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kwargs))


def _check(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    if result.returncode != 0 and NETWORK_ERRORS.search(result.stdout + result.stderr):
        pytest.skip(f"the package index is unreachable: {' '.join(map(str, result.args[:4]))} failed")
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    return result


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """The sdist and the wheel; the wheel's install into a fresh venv starts at once, in the
    background (it is mostly downloads), while the sdist's tests run."""
    out = tmp_path_factory.mktemp("dist")
    # `make dist` runs `python -m build --no-isolation`: the test extra installs the backend
    # [build-system] names (setuptools>=77), which saves fetching it into two throw-away envs; the
    # sdist still comes first, then the wheel is built from the unpacked sdist, as a release builds it
    _run(["make", "-C", str(REPO), "dist", f"DIST={out}", f"BIN={Path(sys.executable).parent}", "STAMP="])
    sdist = out / f"scrapy_walsh-{__version__}.tar.gz"
    wheel = _the_wheel(out)
    assert sdist.exists(), sorted(p.name for p in out.iterdir())
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    # the test venv's pip installs into the fresh one (no ensurepip), the dependencies as declared
    # no PYTHONPATH: a checkout on it (with the build's scrapy_walsh.egg-info) reads as installed
    install = subprocess.Popen(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-compile", "-q"]
        + [str(wheel)],
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    yield sdist, wheel, venv, install
    if install.poll() is None:  # the wheel's test did not run
        install.kill()
        install.communicate()


def _the_wheel(out: Path) -> Path:
    """The one wheel built: pure Python, for every platform and Python (setup.py)."""
    wheels = list(out.glob(f"scrapy_walsh-{__version__}-*.whl"))
    assert len(wheels) == 1, sorted(p.name for p in out.iterdir())
    assert wheels[0].name == f"scrapy_walsh-{__version__}-py3-none-any.whl", wheels[0].name
    return wheels[0]


def test_the_sdist_runs_its_own_tests(dist, tmp_path):
    sdist = dist[0]
    with tarfile.open(sdist) as tar:
        tar.extractall(tmp_path, filter="data")
    root = tmp_path / f"scrapy_walsh-{__version__}"
    for needed in (
        "LICENSE",
        "Makefile",
        "tests/conftest.py",
        "tests/helpers.py",
        "tests/data/google-robotstxt-ctc.jsonl",
        "tests/data/quotesbot/scrapy.cfg",
        "example_project/scrapy.cfg",
        "demo_site/server.py",
        "walsh_build.py",
        "docs/conf.py",
    ):
        assert (root / needed).is_file(), f"the sdist lacks {needed}"
    assert not list(root.rglob("__pycache__")), "no bytecode in the sdist"
    env = dict(os.environ, PYTHONPATH=str(root))  # the package under test is the unpacked one
    env.pop("SCRAPY_SETTINGS_MODULE", None)
    where = _run([sys.executable, "-c", "import scrapy_walsh; print(scrapy_walsh.__file__)"], cwd=root, env=env)
    assert Path(where.stdout.strip()).is_relative_to(root)
    # pure tests that read the data and the docs, and one that drives real `scrapy` commands
    _run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/unit/test_robots.py",
            "tests/unit/test_reference.py",
            "tests/e2e/test_walsh_help.py::test_top_level_help_lists_one_subcommand_per_line",
        ],
        cwd=root,
        env=env,
    )


def test_the_wheel_in_a_fresh_venv_checks_a_new_project(dist, tmp_path):
    _, wheel, venv, install = dist
    names = zipfile.ZipFile(wheel).namelist()
    assert "scrapy_walsh/py.typed" in names and "scrapy_walsh/templates/spiders/walsh.tmpl" in names
    assert not [n for n in names if n.endswith(".so")], "a pure wheel: the accelerator is opt-in (WALSH_MYPYC=1)"
    assert not any(n.startswith("tests/") for n in names), "tests stay in the sdist"
    assert not any("demo" in n.split("/")[0] or "/demo/" in n for n in names), "the demo site stays in the sdist"
    assert {n.split("/")[0] for n in names} == {"scrapy_walsh", f"scrapy_walsh-{__version__}.dist-info"}, names
    out, err = install.communicate(timeout=240)
    _check(subprocess.CompletedProcess(install.args, install.returncode, out, err))
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "SCRAPY_SETTINGS_MODULE", "VIRTUAL_ENV"}}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    where = _run([str(python), "-c", "import scrapy_walsh; print(scrapy_walsh.__file__)"], cwd=tmp_path, env=env)
    assert Path(where.stdout.strip()).is_relative_to(venv), "imported from the wheel, not the checkout"
    robots = "import scrapy_walsh.policy.robots as r; print(r.__file__, r.RobotsTxt.parse(b'Disallow: /').sitemaps)"
    where = _run([str(python), "-c", robots], cwd=tmp_path, env=env)
    assert where.stdout.split()[0].endswith("robots.py"), "the pure parser runs from the wheel, on its own"
    _run([str(venv / "bin" / "scrapy"), "startproject", "fresh"], cwd=tmp_path, env=env)
    project = tmp_path / "fresh"
    settings = project / "fresh" / "settings.py"
    settings.write_text(settings.read_text().replace("ADDONS = {}", 'ADDONS = {"scrapy_walsh.Addon": 500}'))
    check = subprocess.run(
        [str(venv / "bin" / "scrapy"), "walsh", "check", "--json"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(check.stdout)
    assert check.returncode == 0, check.stderr[-3000:]
    assert report["package_version"] == __version__ and report["project"] == "fresh"
    assert report["result"] in {"pass", "warn"}
    assert not [r["row"] for r in report["rows"] if r["status"] == "fail"]
    # the live check crawls the repository's demo site, which the wheel doesn't have: said, exit 2
    live = subprocess.run(
        [str(venv / "bin" / "scrapy"), "walsh", "check", "--live"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert live.returncode == 2 and "ships with the source, not the wheel" in live.stderr, live.stderr[-2000:]
    assert "Traceback" not in live.stderr


def test_make_dist_builds_the_wheel_and_the_sdist_with_project_urls(dist):
    """``make dist`` is the documented way to a wheel to install into a project (the module's build)."""
    sdist, wheel, _, _ = dist
    assert wheel.parent == sdist.parent, "both in make's DIST"
    metadata = zipfile.ZipFile(wheel).read(f"scrapy_walsh-{__version__}.dist-info/METADATA").decode()
    assert "Project-URL: Homepage, https://wal.sh/bot/" in metadata
    for name in ("Documentation", "Source", "Changelog"):
        assert f"Project-URL: {name}, https://" in metadata, name
    for version in ("3.10", "3.11", "3.12", "3.13"):
        assert f"Classifier: Programming Language :: Python :: {version}" in metadata
    assert "Requires-Python: >=3.10" in metadata and "Requires-Dist: scrapy<3,>=2.19" in metadata


def _wheel_built_with(sdist: Path, out: Path, **env: str) -> tuple[str, list[str], str]:
    """A wheel built with ``env`` set from the sdist, unpacked on its own (no build/ folder of an
    earlier build to reuse): its name, its files, what the build printed."""
    with tarfile.open(sdist) as tar:
        tar.extractall(out / "src", filter="data")
    (source,) = (out / "src").iterdir()
    command = [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(out), str(source)]
    built = _run(command, timeout=900, env={**os.environ, **env})  # mypyc: minutes on a busy machine
    (wheel,) = out.glob("*.whl")
    return wheel.name, zipfile.ZipFile(wheel).namelist(), built.stdout + built.stderr


@pytest.mark.timeout(1800)  # two mypyc builds: minutes each beside other work, over the suite's 300 s
def test_walsh_mypyc_1_builds_the_accelerator_and_without_a_c_compiler_the_pure_module(dist, tmp_path):
    """setup.py: the opt-in compiles ``robots.py`` for this Python; a build that can't compile it
    still succeeds, with the pure module."""
    name, names, _ = _wheel_built_with(dist[0], tmp_path / "on", WALSH_MYPYC="1")
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert name.startswith(f"scrapy_walsh-{__version__}-{tag}-{tag}-"), name
    assert [n for n in names if n.startswith("scrapy_walsh/policy/robots.") and n.endswith(".so")], names
    # every compile fails, as on a machine without gcc: the extensions are optional
    name, names, printed = _wheel_built_with(dist[0], tmp_path / "no-compiler", WALSH_MYPYC="1", CC="/bin/false")
    assert 'building extension "scrapy_walsh.policy.robots' in printed and "failed" in printed
    assert "scrapy_walsh/policy/robots.py" in names and not [n for n in names if n.endswith(".so")], name
