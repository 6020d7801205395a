# Every target creates the virtual environment in .venv on first use, so a fresh
# clone needs nothing but Python 3.11+ and these commands.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint format bench clean

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

bench: $(STAMP)
	$(BIN)/python bench/bench.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
