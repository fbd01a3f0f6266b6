"""``make test-wheels``: the release's wheel, installed, on every CPython the package supports.

For each Python (found with pyenv, else on PATH) a fresh venv gets the wheel from ``make dist``
and the test tools, never the checkout. The sdist, unpacked without its ``scrapy_walsh/``, is the
tree the tests run from: its tests/unit, and one real crawl, the example project's against the
local demo site (example_project/run_demo.py). The venvs are built in parallel (mostly the pip
cache and the network); the suites run one Python at a time, each on ``-n 2`` (``--jobs`` runs
several at once: each has its own state directory, temporary folders and free ports).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import tomllib

PYTHONS = ("3.10", "3.11", "3.12", "3.13")
#: The test extra without the tools the unit suite never imports (lint, types, MyST and the theme of
#: the docs, builds); Sphinx stays: the reference pages' generator is tested (test_reference.py).
#: (On 3.10, MyST would also hold markdown-it-py at 3, below the package's floor.)
TOOLS = {"ruff", "mypy", "myst-parser", "furo", "build", "setuptools", "twine"}


def interpreter(minor: str) -> Path:
    """The newest pyenv CPython ``minor`` (its shims answer only for the selected one), else PATH's."""
    try:
        versions = subprocess.run(["pyenv", "versions", "--bare"], capture_output=True, text=True).stdout.split()
    except FileNotFoundError:
        versions = []
    patches = [v for v in versions if re.fullmatch(rf"{re.escape(minor)}\.\d+", v)]
    if patches:
        newest = max(patches, key=lambda v: int(v.rsplit(".", 1)[1]))
        prefix = subprocess.run(["pyenv", "prefix", newest], capture_output=True, text=True, check=True).stdout
        return Path(prefix.strip()) / "bin" / "python"
    found = shutil.which(f"python{minor}")
    if found is None:
        raise SystemExit(f"test-wheels: no CPython {minor} (pyenv install {minor}, or put python{minor} on PATH)")
    return Path(found)


def test_requirements(tree: Path) -> list[str]:
    extra = tomllib.loads((tree / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    return [r for r in extra if re.split(r"[<>=~!\[; ]", r, maxsplit=1)[0].lower() not in TOOLS]


def unpack(sdist: Path, work: Path) -> Path:
    """The sdist's tree without the package: what is imported as ``scrapy_walsh`` is the wheel's."""
    with tarfile.open(sdist) as tar:
        tar.extractall(work, filter="data")
    (tree,) = [p for p in work.iterdir() if p.is_dir() and p.name.startswith("scrapy_walsh-")]
    shutil.rmtree(tree / "scrapy_walsh")
    return tree


def clean_env(home: Path) -> dict[str, str]:
    """No PYTHONPATH, no project settings, no CI (the wheel is the pure build: no compiled module
    to compare, tests/unit/test_robots_compiled.py skips), a state directory of its own."""
    drop = {"PYTHONPATH", "SCRAPY_SETTINGS_MODULE", "VIRTUAL_ENV", "CI", "PYTHONHOME"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["XDG_STATE_HOME"] = str(home)
    return env


def run(args: list[str], log: Path, **kwargs) -> None:
    with log.open("a") as out:
        out.write(f"$ {' '.join(map(str, args))}\n")
        out.flush()
        result = subprocess.run(args, stdout=out, stderr=subprocess.STDOUT, **kwargs)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args[:4]))} ... exited {result.returncode}; see {log}")


def make_venv(minor: str, wheel: Path, requirements: list[str], work: Path) -> tuple[Path, float]:
    start = time.monotonic()
    venv = work / f"venv-{minor}"
    log = work / f"{minor}.log"
    run([str(interpreter(minor)), "-m", "venv", str(venv)], log)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    run(pip + [str(wheel), *requirements], log, env=clean_env(work / f"state-{minor}"))
    return venv, time.monotonic() - start


def test_one(minor: str, venv: Path, tree: Path, work: Path, workers: str) -> float:
    start = time.monotonic()
    python = str(venv / "bin" / "python")
    log = work / f"{minor}.log"
    env = clean_env(work / f"state-{minor}")
    where = subprocess.run(
        [python, "-c", "import scrapy_walsh; print(scrapy_walsh.__file__)"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not Path(where).is_relative_to(venv):
        raise RuntimeError(f"{minor}: scrapy_walsh was imported from {where}, not from the wheel in {venv}")
    run([python, "-m", "pytest", "tests/unit", "-q", "-p", "no:cacheprovider", "-n", workers], log, cwd=tree, env=env)
    out = work / f"demo-{minor}"
    demo = dict(env, WALSH_DEMO_OUTPUT=str(out), WALSH_DEMO_PORT="0")
    run([python, "example_project/run_demo.py"], log, cwd=tree, env=demo)
    items = (out / "items.jsonl").read_text().splitlines()
    seen = (out / "server-requests.jsonl").read_text().splitlines()
    if not items or not seen:
        raise RuntimeError(f"{minor}: the demo crawl yielded {len(items)} items, the site saw {len(seen)} requests")
    with log.open("a") as out_log:
        out_log.write(f"{minor}: scrapy_walsh from {where}; demo crawl: {len(items)} items, {len(seen)} requests\n")
    return time.monotonic() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dist", type=Path, help="the folder make dist wrote (one wheel, one sdist)")
    parser.add_argument("--work", type=Path, default=Path("build/test-wheels"), help="venvs and logs (replaced)")
    parser.add_argument("--python", action="append", dest="pythons", help="a minor version (default: all four)")
    parser.add_argument("-n", dest="workers", default="2", help="pytest-xdist workers per suite")
    parser.add_argument("--jobs", type=int, default=1, help="Pythons tested at once (default 1)")
    args = parser.parse_args(argv)
    (wheel,) = args.dist.glob("scrapy_walsh-*-py3-none-any.whl")
    (sdist,) = args.dist.glob("scrapy_walsh-*.tar.gz")
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    work = args.work.resolve()
    tree = unpack(sdist, work)
    pythons = args.pythons or list(PYTHONS)
    requirements = test_requirements(tree)
    start = time.monotonic()
    with ThreadPoolExecutor(len(pythons)) as pool:
        venvs = dict(zip(pythons, pool.map(lambda m: make_venv(m, wheel.resolve(), requirements, work), pythons)))

    def one(minor: str) -> bool:
        venv, built = venvs[minor]
        try:
            took = test_one(minor, venv, tree, work, args.workers)
        except (RuntimeError, subprocess.CalledProcessError) as exc:
            print(f"test-wheels: CPython {minor}: FAILED: {exc}", file=sys.stderr, flush=True)
            return False
        print(
            f"test-wheels: CPython {minor}: venv {built:.0f} s, unit suite and demo crawl {took:.0f} s: ok", flush=True
        )
        return True

    with ThreadPoolExecutor(args.jobs) as pool:
        failed = [minor for minor, ok in zip(pythons, pool.map(one, pythons)) if not ok]
    print(f"test-wheels: {len(pythons)} Pythons in {time.monotonic() - start:.0f} s; logs in {work}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
