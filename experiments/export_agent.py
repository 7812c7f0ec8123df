"""``python -m experiments.export_agent``: the installed ``alphazero-export``, run from a
checkout (``alphazero_jax/cli/export.py``)."""

from alphazero_jax.cli.export import run

if __name__ == "__main__":
    run()
