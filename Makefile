# Two commands set everything up on a fresh machine that has Python >= 3.11:
#   make train  -- create .venv, install the package, train Connect Four into runs/ (the
#                  `cpu` preset when JAX sees no accelerator); run it again to resume.
#   make test   -- create .venv, install the package with its test extra, lint and test.
#   make bench  -- also install the bench extra (pgx) and run the benchmark scripts.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?= -n 2
TRAIN_ARGS ?=

.PHONY: train test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade --quiet pip

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test,bench]'
	touch $@

train: $(VENV)/.installed-test
	$(BIN)/python -m experiments.train --workdir=runs/connect_four \
		--config=experiments/configs/connect_four.py:auto $(TRAIN_ARGS)

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: lint
	$(BIN)/pytest $(PYTEST_ARGS)

bench: $(VENV)/.installed-bench
	$(BIN)/python -m experiments.benchmark games

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
