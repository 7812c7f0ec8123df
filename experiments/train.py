"""``python -m experiments.train``: the installed ``alphazero-train``, run from a checkout
(``alphazero_jax/cli/train.py``)."""

from alphazero_jax.cli.train import run

if __name__ == "__main__":
    run()
