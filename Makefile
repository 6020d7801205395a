# Every target creates the virtual environment in .venv on first use, so a fresh
# clone needs nothing but Python 3.11+ and these commands.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV := $(VENV)/.dev

.PHONY: run test test-all docs lint format bench clean mutate mutation-scores named-mutations

# What gin-sim needs to run (make run, make bench), or that and the dev extra (tests, lint)
# in one install, so make run installs no test tools and make test resolves and builds the
# editable install once. The venv starts without pip and gets the newest pip, and uv, from
# the machine's own pip (22.3 and newer can install into another environment): Python
# 3.11's bundled pip 23.2 took 45 s for what pip 26 installs in 29 s, and creating a venv
# with it takes 6 s more (NEW_VENV falls back to that where the machine's pip is older).
# uv (PyPI's uv, a package installer) then installs the packages, downloading and
# unpacking them in parallel: the dev extra in 17 s against pip's 30 s on a fresh clone of
# 2 cores, no cache, the same versions (2026-12-03). Where uv did not install, pip does
# it (INSTALL); pip stays in the venv for users' own installs. Neither byte-compiles (pip:
# --no-compile; it would compile every file of every package, the packages' own test
# suites included, about 35 CPU seconds); Python writes each module's bytecode at its
# first import instead. That needs PYTHONDONTWRITEBYTECODE unset for the commands make
# runs: where it is set (as on these machines) Python never stores what it compiles, and
# every process (each test's command, each test worker) would compile numba, pandas and
# gin_sim again, 2 to 3 s each, and pytest would rewrite every test module's asserts
# again in each worker.
unexport PYTHONDONTWRITEBYTECODE
NEW_VENV = ($(PYTHON) -m venv --without-pip $(VENV) \
	&& $(PYTHON) -m pip --python $(BIN)/python install --quiet --upgrade pip \
	&& ($(PYTHON) -m pip --python $(BIN)/python install --quiet uv || true)) \
	|| ($(PYTHON) -m venv --clear $(VENV) && $(BIN)/pip install --quiet --upgrade pip)
INSTALL = $$(test -x $(BIN)/uv && echo $(BIN)/uv pip install --python $(BIN)/python \
	|| echo $(BIN)/pip install --no-compile) --quiet
$(STAMP): pyproject.toml
	$(NEW_VENV)
	$(INSTALL) -e .
	touch $(STAMP)

$(DEV): pyproject.toml
	test -x $(BIN)/pip || $(NEW_VENV)
	$(INSTALL) -e '.[dev]'
	touch $(STAMP) $(DEV)

# The default report set (knock sweeps, undercut risk, rule variants, schedule search,
# tournament, advice, equity) into reports/, which holds only generated output. Budget:
# 6 minutes on two cores from a fresh clone (issue 28); each report's time is printed as
# it goes, and each report says what a longer run adds and the command that plays it.
run: $(STAMP)
	rm -rf reports
	$(BIN)/gin-sim report default --out reports

# Two tiers (tests/tiers.py). make test: the fast tier, within 6 minutes on two cores from a
# fresh clone (no test over 30 s; the oracles on smaller samples). make test-all: every test
# at full size and the OpenSpiel bot's tests (it installs the openspiel extra); CI runs it.
# --dist loadscope: a test module runs on one worker, so its module fixtures (the default
# report set, a tournament, a Dask cluster) are built once, not once per worker.
PYTEST := $(BIN)/pytest -q -n auto --maxprocesses 4 --dist loadscope --durations=15
OPENSPIEL := $(VENV)/.openspiel

test: $(DEV)
	GIN_SIM_TEST_TIER=fast $(PYTEST)

test-all: $(DEV) $(OPENSPIEL)
	GIN_SIM_TEST_TIER=full $(PYTEST)

# The OpenSpiel extra (binary wheels; about 30 s on top of the venv). An install that fails
# or hangs does not stop test-all: tests/test_openspiel_bot.py then skips with its reason.
$(OPENSPIEL): $(DEV)
	if timeout 300 $(INSTALL) -e '.[openspiel]'; then touch $(OPENSPIEL); \
	else echo "warning: the openspiel extra did not install: tests/test_openspiel_bot.py skips"; fi

# The documentation site (mkdocs.yml) into site/, which git ignores. --strict: a broken
# link, a page missing from the navigation or an API name without its docstring fails.
DOCS := $(VENV)/.docs
$(DOCS): pyproject.toml
	test -x $(BIN)/pip || $(NEW_VENV)
	$(INSTALL) -e '.[docs]'
	touch $(STAMP) $(DOCS)

docs: $(DOCS)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(DEV)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Mutation testing of the modules whose output people read as numbers, each against the
# test files that cover it ([tool.gin-sim-mutate] in pyproject.toml; docs/testing.md): a
# first run takes hours on two shared cores, later ones only the functions that changed.
# Not part of make test; mutmut runs under nice -n 10. MODULES picks modules by part of
# their path (MODULES=holdout); MUTANTS names mutants (or patterns) to try again.
MODULES ?=
MUTANTS ?=
mutate: $(DEV)
	$(BIN)/python tools/mutate.py $(MODULES) -- $(MUTANTS)
	$(BIN)/python tools/mutation_scores.py

# The score per module of the last mutate run, and the surviving mutants' names.
mutation-scores: $(DEV)
	$(BIN)/python tools/mutation_scores.py

# The wrong changes named in issue 27, each applied to a copy and caught by a test.
named-mutations: $(DEV)
	nice -n 10 $(BIN)/python tools/named_mutations.py

# BENCH passes options: make bench BENCH="--only search" (mc's time per decision through
# Decider on one core and mc games/s), make bench BENCH="--only strength --seed 46201"
# (bench/strength.py: mc against its named opponents, on seeds no choice ever used).
BENCH ?=
bench: $(STAMP)
	$(BIN)/python bench/bench.py $(BENCH)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache mutants site
