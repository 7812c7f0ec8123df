# Set-up and the main jobs; each target creates .venv and installs what it needs first:
#   make install   -- create .venv and install the package (with the accelerator's JAX).
#   make train     -- train Connect Four into runs/ (the `cpu` preset when JAX sees no
#                     accelerator, `gpu` on a GPU or TPU); run it again to resume.
#   make test      -- install the test and docs extras, lint and run every test but the
#                     few marked long (the docs build is one of them).
#   make test-fast -- the same without the tests marked slow (development).
#   make test-long -- the checks of the whole system marked long: the installed wheel, the
#                     fault soak, two processes, two trainings of a minute or more (CI runs
#                     make test, then this).
#   make test-large -- pgx's chess, shogi and Go 19x19 checked and trained (half an hour of two
#                     cores; CI leaves them out).
#   make agent     -- train and export a shipped agent from its recipe (GAME=connect_four;
#                     RECIPE=long_gpu for the shipped Connect Four and Othello 8x8 agents,
#                     RECIPE=cpu for Othello 6x6 and Quoridor 5x5).
#   make play      -- play Connect Four in the terminal against the shipped agent
#                     (PLAY_ARGS="--game=tic_tac_toe --human=second" for more).
#   make serve     -- play in a browser: http://127.0.0.1:8000/ (SERVE_ARGS="--host=0.0.0.0"
#                     for the whole network; see the README's warning).
#   make bench     -- also install the bench extra (pgx) and run the games' speed benchmark.
#   make docs      -- build the docs site into docs/_build/html (warnings are errors),
#                     with the offline play page in docs/_build/html/play/ where npm is.
#   make page      -- only the offline play page: every shipped agent in the browser with
#                     no server (PAGE_DIR=docs/_build/html/play; serve it statically).
#   make reference -- write the committed pages generated from the package again
#                     (docs/reference/: every setting, each game's presets).
# The accelerator: `cuda` where `nvidia-smi` lists a GPU, `tpu` where a TPU shows as
# /dev/accel0 (Cloud TPU v2-v4 VMs; pass ACCEL=tpu on v5e and later, whose chips show as
# /dev/vfio devices), else none (the CPU build of JAX). ACCEL=cuda, tpu or none overrides.
# JAX 0.11 and newer need Python >= 3.12: the first interpreter that has it (on PATH, or
# installed by pyenv), else python3 (which gets JAX 0.10).
PYTHON ?= $(shell for p in python3.12 python3.13 python3.14 \
	$$(pyenv root 2>/dev/null)/versions/3.1[2-9]*/bin/python3; do \
	"$$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && \
	{ echo "$$p"; exit; }; done; echo python3)
VENV := .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?= -n 2
ACCEL ?= $(shell if nvidia-smi -L 2>/dev/null | grep -q GPU; then echo cuda; \
	elif [ -e /dev/accel0 ]; then echo tpu; else echo none; fi)
comma := ,
# The extras of each installation: e.g. '.[cuda]', '.[test,cuda]', '.' on a CPU.
extras = $(if $(filter-out none,$(ACCEL)),$(if $(1),.[$(1)$(comma)$(ACCEL)],.[$(ACCEL)]),$(if $(1),.[$(1)],.))
TRAIN_ARGS ?=
GAME ?= connect_four
RECIPE ?= agent
PLAY_ARGS ?=
SERVE_ARGS ?=
PAGE_DIR ?= docs/_build/html/play

.PHONY: install train agent play serve test test-fast test-long test-large lint browser npm page bench docs reference clean

$(BIN)/python:
	@echo "Creating $(VENV) with $(PYTHON) ($$($(PYTHON) --version))"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade --quiet pip

# One stamp per installation and accelerator, so that a changed ACCEL installs again.
$(VENV)/.installed-$(ACCEL): pyproject.toml | $(BIN)/python
	@echo "Installing the package with JAX for: $(ACCEL)"
	$(BIN)/pip install --quiet -e '$(call extras,)'
	touch $@

# The test installation has the docs extra too: tests/repository/test_docs.py builds the site.
$(VENV)/.installed-test-$(ACCEL): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '$(call extras,test$(comma)docs)'
	touch $@ $(VENV)/.installed-$(ACCEL)

$(VENV)/.installed-bench-$(ACCEL): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '$(call extras,test$(comma)docs$(comma)bench)'
	touch $@ $(VENV)/.installed-test-$(ACCEL) $(VENV)/.installed-$(ACCEL)

install: $(VENV)/.installed-$(ACCEL)

train: $(VENV)/.installed-$(ACCEL)
	$(BIN)/python -m experiments.train --workdir=runs/connect_four \
		--config=connect_four:auto $(TRAIN_ARGS)

# A shipped agent's recipe: train GAME's RECIPE preset (`agent` unless named) into
# runs/RECIPE_GAME (run it again to resume), then export it into the package's own folder
# of agents, as its az:pretrained, with this command and commit.
agent: $(VENV)/.installed-$(ACCEL)
	$(BIN)/python -m experiments.train --workdir=runs/$(RECIPE)_$(GAME) \
		--config=$(GAME):$(RECIPE) $(TRAIN_ARGS)
	$(BIN)/python -m experiments.export_agent --workdir=runs/$(RECIPE)_$(GAME) \
		--output=alphazero_jax/data/agents --require_complete \
		--command="make agent GAME=$(GAME)$(if $(filter-out agent,$(RECIPE)), RECIPE=$(RECIPE))"

play: $(VENV)/.installed-$(ACCEL)
	$(BIN)/python -m experiments.play --game=connect_four $(PLAY_ARGS)

serve: $(VENV)/.installed-$(ACCEL)
	$(BIN)/python -m experiments.serve $(SERVE_ARGS)

lint: $(VENV)/.installed-test-$(ACCEL)
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

# The offline page's packages (package-lock.json: ONNX Runtime Web for the page, ONNX
# Runtime Node for the search's agreement test). Without npm those tests skip.
npm:
	@if command -v npm >/dev/null; then \
	  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then \
	    ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error; \
	  fi; \
	else \
	  echo "No npm: the offline play page's tests will skip (tests/play/test_offline_*.py)"; \
	fi

test: lint browser npm
	$(BIN)/pytest $(PYTEST_ARGS) -m "not long and not large"

test-fast: lint browser npm
	$(BIN)/pytest $(PYTEST_ARGS) -m "not slow and not long and not large"

test-long: $(VENV)/.installed-test-$(ACCEL)
	$(BIN)/pytest $(PYTEST_ARGS) -m "long and not large"

test-large: $(VENV)/.installed-test-$(ACCEL)
	$(BIN)/pytest $(PYTEST_ARGS) -m large

bench: $(VENV)/.installed-bench-$(ACCEL)
	$(BIN)/python -m experiments.benchmarks.games

# The site: MyST pages, the configuration reference and the API generated from the package,
# the notebooks as saved (docs/conf.py). The same build as tests/repository/test_docs.py's.
docs: $(VENV)/.installed-test-$(ACCEL)
	$(BIN)/sphinx-build -W --keep-going -j auto -q -b html docs docs/_build/html
	@if [ -d node_modules/onnxruntime-web ]; then $(MAKE) --no-print-directory page; \
	else echo "No node_modules (npm ci): the site is built without the offline play page"; fi
	@echo "The site: docs/_build/html/index.html"

# The offline play page: the shipped agents as ONNX with the page and ONNX Runtime Web,
# for any static file host (docs/play.md). Try it: python -m http.server -d $(PAGE_DIR)
page: $(VENV)/.installed-test-$(ACCEL) npm
	$(BIN)/alphazero-export-web --output=$(PAGE_DIR) --page

# The configuration reference and each game's preset table, committed under docs/reference/
# (tests/repository/test_docs.py fails while one is stale; the docs build writes them too).
reference: $(VENV)/.installed-$(ACCEL)
	JAX_PLATFORMS=cpu $(BIN)/python -m docs._ext.generated --write

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis docs/_build docs/api \
		docs/tutorials/*.ipynb
