"""Tests run on the CPU, whatever accelerator the machine has, with one compilation cache
of their own (``alphazero_jax/cli/compilation_cache.py``): a fresh folder per test session that
its workers and the entry points they start share, so that a program several tests
compile (the smoke runs) compiles once; it is deleted at the end, and nothing goes into
your own cache.

XLA compiles the tests' programs with its LLVM backend at -O0
(``--xla_backend_optimization_level=0``, unless ``XLA_FLAGS`` names a level): the suite
compiles far more than it runs, and the level changes how fast the machine code is, not what
it computes (no fast math either way; every bit-for-bit test passes at both). It took a third
off the CPU time of the search and self-play tests (85 s to 55 s, 2026-11-25)."""

import os
import shutil
import tempfile

import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")
_XLA_FLAGS = os.environ.get("XLA_FLAGS", "")
if "xla_backend_optimization_level" not in _XLA_FLAGS:  # the entry points tests start inherit it
    os.environ["XLA_FLAGS"] = f"{_XLA_FLAGS} --xla_backend_optimization_level=0".strip()
if "ALPHAZERO_JAX_CACHE_DIR" not in os.environ:  # the controller; workers inherit it
    os.environ["ALPHAZERO_JAX_CACHE_DIR"] = tempfile.mkdtemp(prefix="alphazero_jax-tests-")
    os.environ["ALPHAZERO_JAX_TESTS_OWN_CACHE"] = "1"
if os.environ["ALPHAZERO_JAX_CACHE_DIR"].lower() not in ("off", "none", "0", "false"):
    os.environ["JAX_COMPILATION_CACHE_DIR"] = os.environ["ALPHAZERO_JAX_CACHE_DIR"]  # in-process
# An entry point's module offers JAX the host's cores through XLA_FLAGS the first time it
# is imported (cli/host_devices.py). A test module that imports one (alphazero_jax.cli.judge,
# cli.compare, ...) would give every test of its worker, and every program they start, that
# many devices: the offer is made here, once, and taken back.
_XLA_FLAGS_OF_THE_TESTS = os.environ["XLA_FLAGS"]
from alphazero_jax.cli import host_devices  # noqa: E402, F401  (after the environment)

os.environ["XLA_FLAGS"] = _XLA_FLAGS_OF_THE_TESTS


def pytest_unconfigure(config):
    if not hasattr(config, "workerinput") and os.environ.get("ALPHAZERO_JAX_TESTS_OWN_CACHE"):
        shutil.rmtree(os.environ["ALPHAZERO_JAX_CACHE_DIR"], ignore_errors=True)


@pytest.fixture(autouse=True)
def _registries_as_they_were():
    """What a test registers at any plug point (a game, a preset, a network kind, a search
    policy, a budget, an opening, a loss term, a target, an agent kind, ...) is gone after
    it: the schema, the catalogue and the CLI help of the tests that follow in the same
    worker list the package's own and what their module registered, whatever ran before."""
    from alphazero_jax import plugs

    saved = [registry.save() for registry in plugs.ALL]
    yield
    for registry, before in zip(plugs.ALL, saved):
        registry.restore(before)
