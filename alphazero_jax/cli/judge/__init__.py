r"""Judges agents and trained networks against exact references: ``alphazero-judge``.

    alphazero-judge <judgment> [--flag=value ...]
    alphazero-judge <judgment> --help

Connect Four against perfect play (a move is a mistake when another legal move has a
strictly better game-theoretic outcome; the sets are ``solvers.benchmark_sets.SETS``,
labelled by our solver and shipped in the package):

    alphazero-judge agents --agents=random,greedy,minimax:4,az:runs/connect_four
    alphazero-judge checkpoints --workdir=runs/connect_four
    alphazero-judge curves --workdir=puct=runs/a,gumbel=runs/b --output=runs/curves

The learning proofs, a trained network against an exact reference or its game's baselines:

    alphazero-judge tic_tac_toe --workdir=runs/ttt_proof --minutes=10
    alphazero-judge connect_four --workdir=runs/connect_four
    alphazero-judge baselines --workdir=runs/othello_6x6

Each judgment is a module of this package with its own flags (``python -m
alphazero_jax.cli.judge <judgment>`` runs the same); ``alphazero-evaluate`` fits the Elo
ladder.
"""

from __future__ import annotations

import importlib
import sys

from alphazero_jax.cli import (
    host_devices,  # noqa: F401  (first: before JAX starts)
)

# isort: split
from alphazero_jax.cli import common as cli

# Each judgment's module, with what it judges.
JUDGMENTS = {
    "agents": "Connect Four agents: their mistakes on the perfect-play sets",
    "checkpoints": "every saved checkpoint of a Connect Four run on the perfect-play sets",
    "curves": "runs judged by `checkpoints`, their mistake rates drawn against training time",
    "tic_tac_toe": "trains Tic-Tac-Toe (or takes a network) and checks every position",
    "connect_four": "a Connect Four run against random play; its value head on the sets",
    "baselines": "an Othello or Quoridor run against its game's baselines and their goals",
}
_HELP = ("--help", "-h", "-?", "--helpshort", "--helpfull", "help")


def usage() -> str:
    """The program's help: how it is called and its judgments."""
    width = max(map(len, JUDGMENTS))
    listed = "\n".join(f"  {name:<{width}}  {what}" for name, what in JUDGMENTS.items())
    return (
        "usage: alphazero-judge <judgment> [--flag=value ...]\n\n"
        f"judgments (alphazero-judge <judgment> --help lists its flags):\n{listed}"
    )


def run() -> None:
    """The ``alphazero-judge`` console script: the judgment its first argument names, with
    the flags that follow."""
    name = sys.argv[1] if len(sys.argv) > 1 else ""
    if name in _HELP:
        print(usage())
        return
    if name not in JUDGMENTS:
        cli.fail(
            f"expected a judgment first, one of {', '.join(JUDGMENTS)}; got "
            f"{repr(name) if name else 'none'} (alphazero-judge --help says what each judges)."
        )
    # The judgment's flags follow the program's name, as absl reads them; its --help then
    # names the program "alphazero-judge <judgment>".
    sys.argv[:2] = [f"{sys.argv[0]} {name}"]
    importlib.import_module(f"{__name__}.{name}").run()
