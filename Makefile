# Quick start: `make demo` and `make test` each create .venv when it is missing.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test clean browser experiment dispatch

$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "need python3.11 on PATH (or make PYTHON=...)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m arcwise.demo

# A paper's table in one command from a fresh clone, e.g.
#   make experiment GRID=experiments/two-planar-2018.toml DATA=../shared/data/ud ARGS="-j 2"
experiment: $(STAMP)
	@test -n "$(GRID)" || { echo "usage: make experiment GRID=experiments/NAME.toml [DATA=DIR] [ARGS=...]"; exit 2; }
	$(PY) -m arcwise experiment $(GRID) $(if $(DATA),--data $(DATA)) $(ARGS)

# After adding a transition system (its module, its oracle module and an entry in
# arcwise.systems.REGISTRY): regenerate the compiled dispatch (ids.py, both dispatch.py).
dispatch: $(STAMP)
	$(PY) -m arcwise.systems.generate

# The report's browser test needs Debian's Chromium and ChromeDriver; without
# them (no apt-get, not root, offline) that test is skipped with its reason.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	{ command -v apt-get >/dev/null && apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; } || \
	echo "chromium/chromedriver unavailable: the report's browser test will be skipped"

# The suite runs twice, side by side on two cores: compiled, and with
# NUMBA_DISABLE_JIT=1, the pure-Python path researchers debug and measure
# coverage on (its report is printed after the compiled run's).  The second run
# skips the tests marked end_to_end (command line, service, files, bench
# scripts): the kernels they call are the unit tests' (tests/conftest.py).
test: $(STAMP) browser
	@rm -f .test-pure-python.log
	NUMBA_DISABLE_JIT=1 $(PY) -m pytest -p no:cacheprovider > .test-pure-python.log 2>&1 & \
	pure=$$!; \
	$(PY) -m pytest; compiled=$$?; \
	wait $$pure; pure_status=$$?; \
	echo "== the same suite with NUMBA_DISABLE_JIT=1 =="; cat .test-pure-python.log; \
	test $$compiled -eq 0 && test $$pure_status -eq 0

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .hypothesis .test-pure-python.log
	find src -name "*.nb[ic]" -delete
