# Quick start: `make demo` and `make test` each create .venv when it is missing.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test clean browser experiment dispatch docs models stress

DEMO_STAMP := $(VENV)/.installed-demo
# this machine's CPU build of torch (a local file); the neural extra takes a range
TORCH := torch==2.13.0

$(VENV)/bin/python:
	@test -n "$(PYTHON)" || { echo "need python3.11 on PATH (or make PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# make demo: arcwise and the CoNLL 2018 scorer only
$(DEMO_STAMP): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e '.[eval]'
	touch $(DEMO_STAMP)

# make test: every extra the tests need, torch first as the CPU build (pip then keeps it)
$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet '$(TORCH)'
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP) $(DEMO_STAMP)

# Trains an English pipeline on the bundled EWT (models/en_ewt.model), packages it as the
# model package en_ewt with its card and installs it in .venv: afterwards
# `.venv/bin/arcwise parse -m en_ewt raw.txt` and `arcwise.load("en_ewt")` work.
demo: $(DEMO_STAMP)
	$(PY) -m arcwise.demo
	$(VENV)/bin/arcwise package models/en_ewt.model --name en_ewt --treebank data/en_ewt \
	  -o models --install
	printf 'The cat sat on the mat. It did not move, did it?\n' > models/sample.txt
	$(VENV)/bin/arcwise parse -m en_ewt models/sample.txt

# Model packages for every UD treebank folder under DATA (train.conllu[.gz], dev, test, its
# LICENSE/README), each with its card, into OUT (default models/):
#   make models DATA=../shared/data/ud [OUT=models] [ARGS="--system arc-eager --epochs 10"]
# A folder's package is named after it (English-EWT: english_ewt); NAMES="en_ewt ..." names
# them in the folders' order instead.
OUT ?= models
models: $(DEMO_STAMP)
	@test -n "$(DATA)" || { echo "usage: make models DATA=DIR [OUT=models] [ARGS=...]"; exit 2; }
	$(PY) -m arcwise.packaging.build $(DATA) -o $(OUT) $(if $(NAMES),--names "$(NAMES)") $(ARGS)

# A paper's table in one command from a fresh clone, e.g.
#   make experiment GRID=experiments/two-planar-2018.toml DATA=../shared/data/ud ARGS="-j 2"
experiment: $(STAMP)
	@test -n "$(GRID)" || { echo "usage: make experiment GRID=experiments/NAME.toml [DATA=DIR] [ARGS=...]"; exit 2; }
	$(PY) -m arcwise experiment $(GRID) $(if $(DATA),--data $(DATA)) $(ARGS)

# After adding a transition system (its module, its oracle module and an entry in
# arcwise.systems.REGISTRY): regenerate the compiled dispatch (ids.py, both dispatch.py).
dispatch: $(STAMP)
	$(PY) -m arcwise.dispatch.generate

# The documentation site into docs/_build/html, offline, warnings as errors (the docs extra,
# which `make test` installs too).
docs: $(STAMP)
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html

# The report's browser test needs Debian's Chromium and ChromeDriver; without
# them (no apt-get, not root, offline) that test is skipped with its reason.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	{ command -v apt-get >/dev/null && apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; } || \
	echo "chromium/chromedriver unavailable: the report's browser test will be skipped"

# The suite runs twice, on the two cores at once: compiled, and with
# NUMBA_DISABLE_JIT=1, the pure-Python path researchers debug and measure
# coverage on.  The second run takes the unit tests only: the tests marked
# end_to_end (command line, service, files, pipelines, bench scripts) call the
# same kernels (tests/conftest.py).  The end-to-end tests run compiled, shared
# between the cores: the first core runs the compiled unit tests, then the
# end-to-end tests that train torch models (marked neural), which then find
# most of their kernels in the numba cache, the documentation's (marked docs:
# the Sphinx build and the guides' code), the model packages' (marked packaging)
# and the short stress run (marked stress, about 60 s); the second core runs the
# unit tests without JIT, then the other end-to-end tests.  Measured from a cold numba cache on a 2-core machine at
# 1aa13a5 (other jobs running part of the time): compiled unit tests 668 s, then
# the neural, docs and packaging tests 213 s; unit tests without JIT 689 s, then
# the other end-to-end tests 321 s: 17.0 min in all (target: 15).  CI at 4c3be59: first
# core 576 + 179 s, second 614 + 278 s (16.1 min with the install), so the stress run moved
# to the first core.
# The second core's report is printed after the first's; each run lists its 15 slowest
# tests (--durations), what rebalancing the cores starts from.
test: $(STAMP) browser
	$(VENV)/bin/lint-imports --no-cache
	@rm -f .test-second-core.log
	{ NUMBA_DISABLE_JIT=1 $(PY) -m pytest -p no:cacheprovider --durations=15 -m "not end_to_end"; pure=$$?; \
	  echo "== the end-to-end tests but the neural ones, compiled =="; \
	  $(PY) -m pytest -p no:cacheprovider --durations=15 -m "end_to_end and not neural and not docs and not packaging and not stress"; e2e=$$?; \
	  test $$pure -eq 0 && test $$e2e -eq 0; } > .test-second-core.log 2>&1 & \
	second=$$!; \
	$(PY) -m pytest --durations=15 -m "not end_to_end"; compiled=$$?; \
	echo "== the neural end-to-end tests, the documentation's, the model packages' and the short stress run =="; \
	$(PY) -m pytest -p no:cacheprovider --durations=15 -m "end_to_end and (neural or docs or packaging or stress)"; neural=$$?; \
	wait $$second; second_status=$$?; \
	echo "== second core: the unit tests with NUMBA_DISABLE_JIT=1, then the other end-to-end tests compiled =="; \
	cat .test-second-core.log; \
	test $$compiled -eq 0 && test $$neural -eq 0 && test $$second_status -eq 0

# The stress suite's long run (tests/test_stress.py, issue #41): 50 SIGTERMs at random moments
# of a parse of all of EWT, ten signals in each other command that writes files; `make test`
# runs its short version (two signals a command).  ARCWISE_STRESS_SEED=N draws other moments.
stress: $(STAMP)
	ARCWISE_STRESS=long $(PY) -m pytest -p no:cacheprovider -m stress -rA tests/test_stress.py

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .hypothesis .test-second-core.log models
	find src -name "*.nb[ic]" -delete
