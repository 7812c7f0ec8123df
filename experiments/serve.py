"""``python -m experiments.serve``: the installed ``alphazero-serve``, run from a checkout
(``alphazero_jax/cli/serve.py``)."""

from alphazero_jax.cli.serve import run

if __name__ == "__main__":
    run()
