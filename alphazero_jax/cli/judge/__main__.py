"""``python -m alphazero_jax.cli.judge <judgment>``: the installed ``alphazero-judge``."""

from alphazero_jax.cli.judge import run

run()
