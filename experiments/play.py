"""``python -m experiments.play``: the installed ``alphazero-play``, run from a checkout
(``alphazero_jax/cli/play.py``)."""

from alphazero_jax.cli.play import run

if __name__ == "__main__":
    run()
