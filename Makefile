# Two commands on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test bench clean redis-server

$(STAMP): pyproject.toml setup.cfg
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

## Start the local demo site, crawl it with example_project/, print the compliance summary.
demo: $(STAMP)
	$(BIN)/python example_project/run_demo.py

## The whole test suite (fleet tests start their own redis-server, so it must be installed).
# Two workers, one test file each at a time (module fixtures run once): most of the suite's
# time is real 1 s-per-host pacing waits, so it halves the wall time on 2 cores.
test: $(STAMP) redis-server
	$(BIN)/python -m pytest -n 2 --dist loadfile

## The Debian redis-server package, installed when missing (CI runs as root; else sudo).
redis-server:
	@command -v redis-server >/dev/null 2>&1 || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update && $$SUDO apt-get install -y --no-install-recommends redis-server; }

clean:
	rm -rf $(VENV) build *.egg-info example_project/.scrapy example_project/output
