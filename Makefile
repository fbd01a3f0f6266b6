# Two commands on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

DIST ?= dist

.PHONY: install demo lint types docs test test-fast test-suite test-wheels bench clean redis-server debian-packages dist

# The dev venv compiles robots.py with mypyc (WALSH_MYPYC=1, setup.py), so the suite tests the
# accelerator against the pure module (tests/unit/test_robots_compiled.py), and the wheels test
# (test-wheels) the pure build: a change to robots.py builds it again.
$(STAMP): pyproject.toml setup.cfg setup.py scrapy_walsh/policy/robots.py
	$(PYTHON) -m venv $(VENV)
	WALSH_MYPYC=1 $(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

## Start the local demo site, crawl it with example_project/, print the compliance summary.
demo: $(STAMP)
	$(BIN)/python example_project/run_demo.py

## ruff: the linter and the formatter (one line length, in pyproject.toml).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

## mypy over the whole package, as Python 3.10 (the oldest supported) reads it.
types: $(STAMP)
	$(BIN)/mypy scrapy_walsh

## The Sphinx site (MyST Markdown in docs/), warnings as errors: a broken link or an orphan page fails.
docs: $(STAMP)
	$(BIN)/sphinx-build -W --keep-going -b html docs docs/_build/html

## The wheel and the sdist a release would publish, in $(DIST)/ (the sdist first, the wheel from it),
## checked by twine as PyPI would. The wheel is pure Python (py3-none-any): every CPython 3.10+,
## every platform. Install it into your project's environment: pip install dist/scrapy_walsh-*.whl.
## The compiled robots.txt parser is opt-in at build time (WALSH_MYPYC=1, docs/setup.md).
dist: $(STAMP)
	rm -rf $(DIST)
	$(BIN)/python -m build --no-isolation --outdir $(DIST) .
	$(BIN)/twine check --strict $(DIST)/*

## The wheel from `make dist`, installed (not the checkout) into a fresh venv for each CPython 3.10-3.13
## (pyenv's, else python3.X on PATH): the unit suite and one real crawl (the demo) against each.
## .ci/test_wheels.py says how; venvs and logs in build/test-wheels.
test-wheels: dist
	$(BIN)/python .ci/test_wheels.py $(DIST)

## The pure tests only (tests/unit: no crawl, no server): seconds, not minutes.
test-fast: $(STAMP)
	$(BIN)/python -m pytest tests/unit -q -n 2

## The whole test suite (fleet tests start their own redis-server, so it must be installed).
# Four workers, one test file each at a time (module fixtures run once). Most of the suite's time
# is waiting (real 1 s-per-host pacing, timeouts, rests), not CPU: with two workers the load on
# 2 cores stayed under 1.2 and the suite took 25 min; with four, measured on a fresh clone of
# 2026-11-29 (main at b98d0d3): 3,282 tests in 15 min 20 s; 14 min 28 s for 3,172 on an idle machine
# at 02db8e2, 22 min 26 s beside a second suite; make test-wheels before it, 4 min 3 s.
test-suite: $(STAMP) redis-server debian-packages
	$(BIN)/python -m pytest -n 4 --dist loadfile --durations=25

## What CI runs: lint, types, the docs, the wheel on every supported Python, then every test.
test: lint types docs test-wheels test-suite

## The Debian redis-server package, installed when missing (CI runs as root; else sudo).
redis-server:
	@command -v redis-server >/dev/null 2>&1 || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update && $$SUDO apt-get install -y --no-install-recommends redis-server; }

## nginx (journal match against a real access log) and chromium (the journal report rendered
## in a real browser), installed when missing; their tests skip cleanly without them.
debian-packages:
	@{ command -v nginx >/dev/null 2>&1 && command -v chromium >/dev/null 2>&1; } || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update && $$SUDO apt-get install -y --no-install-recommends nginx-light chromium; }

clean:
	rm -rf $(VENV) build dist *.egg-info scrapy_walsh/policy/*.so example_project/.scrapy example_project/output docs/_build
