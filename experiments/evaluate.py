"""``python -m experiments.evaluate``: the installed ``alphazero-evaluate``, run from a
checkout (``alphazero_jax/cli/evaluate.py``)."""

from alphazero_jax.cli.evaluate import run

if __name__ == "__main__":
    run()
