r"""Ships a run's trained network in the package as the ``az:pretrained`` agent of its game.

    python -m experiments.export_agent --run=runs/connect_four \
        --command="make train"

Writes ``alphazero_jax/data/agents/<game key>/variables.msgpack`` and ``agent.json`` (the
run's game, network and search settings, and how it was trained) from the run's newest
checkpoint (``--step`` for another), replacing the game's earlier agent. Commit both files.
"""

from __future__ import annotations

from absl import app, flags

from alphazero_jax.cli import common as cli

_RUN = flags.DEFINE_string("run", None, "The run directory to export.", required=True)
_STEP = flags.DEFINE_integer("step", None, "The checkpoint (iteration); default: newest.")
_COMMAND = flags.DEFINE_string("command", "", "The command that trained the run.")
_MACHINE = flags.DEFINE_string("machine", "", "The machine that trained it (default: this).")


def main(argv: list[str]) -> None:
    cli.begin(argv)
    from alphazero_jax.agents import pretrained

    try:
        path = pretrained.export(
            _RUN.value, step=_STEP.value, command=_COMMAND.value, machine=_MACHINE.value
        )
    except (FileNotFoundError, ValueError) as error:
        cli.fail(error)
    size = sum(f.stat().st_size for f in path.iterdir()) / 1024
    print(f"Wrote {path} ({size:.0f} KiB); az:pretrained now plays it.")


if __name__ == "__main__":
    app.run(main)
