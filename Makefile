# Every target creates the virtual environment in .venv on first use, so a fresh
# clone needs nothing but Python 3.11+ and these commands.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint format bench clean mutate mutation-scores named-mutations

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The default report set (knock sweeps, undercut risk, rule variants, schedule search,
# tournament) into reports/, which holds only generated output: a few minutes on two cores.
run: $(STAMP)
	rm -rf reports
	$(BIN)/gin-sim report default --out reports

test: $(STAMP)
	$(BIN)/pytest -q -n auto --maxprocesses 4 --durations=15

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Mutation testing of the modules whose output people read as numbers, each against the
# test files that cover it ([tool.gin-sim-mutate] in pyproject.toml; docs/testing.md): a
# first run takes hours on two shared cores, later ones only the functions that changed.
# Not part of make test; mutmut runs under nice -n 10. MODULES picks modules by part of
# their path (MODULES=holdout); MUTANTS names mutants (or patterns) to try again.
MODULES ?=
MUTANTS ?=
mutate: $(STAMP)
	$(BIN)/python tools/mutate.py $(MODULES) -- $(MUTANTS)
	$(BIN)/python tools/mutation_scores.py

# The score per module of the last mutate run, and the surviving mutants' names.
mutation-scores: $(STAMP)
	$(BIN)/python tools/mutation_scores.py

# The wrong changes named in issue 27, each applied to a copy and caught by a test.
named-mutations: $(STAMP)
	nice -n 10 $(BIN)/python tools/named_mutations.py

bench: $(STAMP)
	$(BIN)/python bench/bench.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache mutants
