# Two commands set everything up on a fresh machine that has Python >= 3.11:
#   make train  -- create .venv, install the package, train Connect Four into runs/ (the
#                  `cpu` preset when JAX sees no accelerator); run it again to resume.
#   make test   -- create .venv, install the package with its test extra, lint and test.
#   make play   -- play Connect Four in the terminal against the shipped agent
#                  (PLAY_ARGS="--game=tic_tac_toe --human=second" for more).
#   make serve  -- play in a browser: http://127.0.0.1:8000/ (SERVE_ARGS="--host=0.0.0.0"
#                  for the whole network; see the README's warning).
#   make bench  -- also install the bench extra (pgx) and run the games' speed benchmark
# JAX 0.11 and newer need Python >= 3.12: the first interpreter that has it (on PATH, or
# installed by pyenv), else python3 (which gets JAX 0.10).
PYTHON ?= $(shell for p in python3.12 python3.13 python3.14 \
	$$(pyenv root 2>/dev/null)/versions/3.1[2-9]*/bin/python3; do \
	"$$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && \
	{ echo "$$p"; exit; }; done; echo python3)
VENV := .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?= -n 2
TRAIN_ARGS ?=
PLAY_ARGS ?=
SERVE_ARGS ?=

.PHONY: train play serve test lint browser bench clean

$(BIN)/python:
	@echo "Creating $(VENV) with $(PYTHON) ($$($(PYTHON) --version))"
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

play: $(VENV)/.installed-test
	$(BIN)/python -m experiments.play --game=connect_four $(PLAY_ARGS)

serve: $(VENV)/.installed-test
	$(BIN)/python -m experiments.serve $(SERVE_ARGS)

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The browser tests drive Debian's Chromium; as root with apt-get, make test installs it.
browser:
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing Debian's chromium and chromium-driver for the browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      --no-install-recommends chromium chromium-driver >/dev/null; \
	  else \
	    echo "No chromium/chromedriver (and not root with apt-get): browser tests will skip"; \
	  fi; \
	fi

test: lint browser
	$(BIN)/pytest $(PYTEST_ARGS)

bench: $(VENV)/.installed-bench
	$(BIN)/python -m experiments.benchmark games

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
