"""The timing flags that several benchmarks share, each defined here once.

A benchmark calls ``define_<flag>(default)`` at the top of its module, with its own default;
the flag then belongs to that benchmark (its ``--help`` lists it), and a benchmark that does
not time batches, say, has no ``--batch_sizes``.

Each benchmark is also a library (its ``run``), so it imports ``alphazero_jax.cli.host_devices``
(which offers JAX one CPU device per core) only when it runs as a program, under
``if __name__ == "__main__"``: a test that imports a benchmark keeps its own devices. JAX
reads the setting when it first uses a device, after that import.
"""

from __future__ import annotations

from absl import flags

from alphazero_jax.cli import common as cli

flags.disclaim_key_flags()  # the flags defined below belong to the module that asks for them


def define_batch_sizes(default: list[str]) -> flags.FlagHolder[list[str]]:
    """``--batch_sizes``: the batch sizes to time, each in its own rows."""
    return flags.DEFINE_list("batch_sizes", default, "Batch sizes to time (games at once).")


def define_rounds(default: int) -> flags.FlagHolder[int]:
    """``--rounds``: timed calls of each side; the median is reported."""
    return flags.DEFINE_integer(
        "rounds", default, "Timed rounds, the sides alternating (the median is reported)."
    )


def define_moves(default: int) -> flags.FlagHolder[int]:
    """``--moves``: the moves one timed call plays, over its whole batch."""
    return flags.DEFINE_integer("moves", default, "Moves per timed call, split over the batch.")


def ints(holder: flags.FlagHolder[list[str]]) -> tuple[int, ...]:
    """The values of a list flag as ints; ends the program in one line if one is not."""
    try:
        return tuple(int(value) for value in holder.value)
    except ValueError:
        cli.fail(f"--{holder.name}: expected integers, got {','.join(holder.value)}.")
