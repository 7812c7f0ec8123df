r"""Trains TD-MCTS: the flag-reading edge around ``training.tdmcts.train``.

    python -m experiments.train_tdmcts --game=tic_tac_toe --episodes=5000 \
        --tournament_every=200 --opponent=minimax:6 --workdir=runs/ttt_tdmcts

``--opponent=self`` trains against itself (tournaments then against ``mcts:100`` unless
``--tournament_opponent`` says otherwise). Restarting with the same ``--workdir`` resumes
from its newest checkpoint (a larger ``--episodes`` trains it further). The trained table
plays as ``tdmcts:<simulations>:<workdir>`` in evaluate, strength.perfect_play.agents and
play. A bad flag prints one line, ``error: ...``, and exits with status 2.
"""

from __future__ import annotations

import sys

from absl import app, flags, logging

from alphazero_jax.cli import compilation_cache
from alphazero_jax.training import tdmcts

_DEFAULTS = tdmcts.default_config()
_WORKDIR = flags.DEFINE_string("workdir", None, "Run directory (created; resumed if present).")
flags.DEFINE_string("game", _DEFAULTS.game, "Game (its default size).")
flags.DEFINE_integer("episodes", _DEFAULTS.episodes, "Training games in all.")
flags.DEFINE_integer("tournament_every", _DEFAULTS.tournament_every, "Episodes per tournament.")
flags.DEFINE_integer("tournament_games", _DEFAULTS.tournament_games, "Games per tournament.")
flags.DEFINE_string("opponent", _DEFAULTS.opponent, "Training opponent: an agent spec or self.")
flags.DEFINE_string("tournament_opponent", "", "Tournament opponent (default: --opponent).")
flags.DEFINE_integer("simulations", _DEFAULTS.num_simulations, "Simulations per move.")
flags.DEFINE_float("exploration", _DEFAULTS.exploration, "UCT's exploration constant c.")
flags.DEFINE_float("gamma", _DEFAULTS.gamma, "Discount per move.")
flags.DEFINE_float("learning_rate_floor", _DEFAULTS.learning_rate_floor, "Floor of alpha.")
flags.DEFINE_integer("capacity", _DEFAULTS.capacity, "Slots of the table (a power of two).")
flags.DEFINE_integer("batch_size", _DEFAULTS.batch_size, "Training games played at once.")
flags.DEFINE_integer("seed", _DEFAULTS.seed, "Random seed.")
flags.mark_flags_as_required(["workdir"])


def main(argv: list[str]) -> None:
    if len(argv) > 1:
        sys.exit(f"error: unexpected arguments {argv[1:]}")
    if not flags.FLAGS["verbosity"].present:  # orbax logs every save at INFO
        logging.set_verbosity(logging.WARNING)
    compilation_cache.setup()
    values = flags.FLAGS.flag_values_dict()
    config = tdmcts.default_config()
    for name in config:
        flag = "simulations" if name == "num_simulations" else name
        if flag in values:
            config[name] = values[flag]
    try:
        tdmcts.train(config, _WORKDIR.value)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    app.run(main)
