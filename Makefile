# Every target creates the virtual environment in .venv on first use, so a fresh
# clone needs nothing but Python 3.11+ and these commands.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV := $(VENV)/.dev

.PHONY: run test test-all lint format bench clean mutate mutation-scores named-mutations

# What gin-sim needs to run (make run, make bench), then the dev extra on top (tests, lint,
# mutation runs), so make run installs no test tools. Byte-compiled ahead (BYTECODE), not
# by pip: pip compiles every file of every package one by one, the packages' own test
# suites included (about 35 CPU seconds); compileall skips those and uses both cores. And
# ahead it must be: where PYTHONDONTWRITEBYTECODE is set (as on these machines) Python
# never stores what it compiles at an import, so every process (each test's command, each
# test worker) would compile numba, pandas and gin_sim again, 2 to 3 seconds each.
BYTECODE = $(BIN)/python -m compileall -q -j 0 -x '/(tests?|testing)/'
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --no-compile -e .
	$(BYTECODE) $(VENV)/lib > /dev/null
	touch $(STAMP)

$(DEV): $(STAMP)
	$(BIN)/pip install --quiet --no-compile -e '.[dev]'
	$(BYTECODE) $(VENV)/lib > /dev/null
	touch $(DEV)

# The default report set (knock sweeps, undercut risk, rule variants, schedule search,
# tournament, advice, equity) into reports/, which holds only generated output. Budget:
# 6 minutes on two cores from a fresh clone (issue 28); each report's time is printed as
# it goes, and each report says what a longer run adds and the command that plays it.
run: $(STAMP)
	$(BYTECODE) gin_sim > /dev/null
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
	$(BYTECODE) gin_sim tests > /dev/null
	GIN_SIM_TEST_TIER=fast $(PYTEST)

test-all: $(DEV) $(OPENSPIEL)
	$(BYTECODE) gin_sim tests > /dev/null
	GIN_SIM_TEST_TIER=full $(PYTEST)

# The OpenSpiel extra (binary wheels; about 30 s on top of the venv). An install that fails
# or hangs does not stop test-all: tests/test_openspiel_bot.py then skips with its reason.
$(OPENSPIEL): $(DEV)
	if timeout 300 $(BIN)/pip install --quiet -e '.[openspiel]'; then touch $(OPENSPIEL); \
	else echo "warning: the openspiel extra did not install: tests/test_openspiel_bot.py skips"; fi

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

bench: $(STAMP)
	$(BIN)/python bench/bench.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache mutants
