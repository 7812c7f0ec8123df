r"""Plays a round robin between agents and fits their Elo ladder.

    alphazero-evaluate --game=connect_four \
        --agents=az:runs/c4,minimax:4,mcts:1000,random --games=200

(``python -m experiments.evaluate`` in a checkout runs the same ``main``.)

Every pair plays ``--games`` games, half with each agent moving first. Prints each match
as it ends, then the cross table and the ladder (``--anchor`` rated 0), and writes
results.csv, ladder.json and ladder.png to ``--output``. ``--helpfull`` lists the
agent specs (``alphazero_jax.agents.kinds()``).
"""

from __future__ import annotations

import os

from absl import flags

from alphazero_jax.cli import (
    common as cli,
)
from alphazero_jax.cli import (
    host_devices,  # noqa: F401  (first: before JAX starts)
)

# isort: split
from alphazero_jax import agents

_GAME = flags.DEFINE_string("game", None, "Game name, e.g. connect_four.", required=True)
_SETTINGS = cli.define_game_settings()
_AGENTS = flags.DEFINE_list(
    "agents", None, f"At least two agents. {agents.spec_help()}", required=True
)
_GAMES = flags.DEFINE_integer("games", 200, "Games per pair (even).")
_BATCH = flags.DEFINE_integer("batch_size", None, "Games at once per pair (default: all).")
_SEED = flags.DEFINE_integer("seed", 0, "Random seed.")
_OPENING = flags.DEFINE_integer(
    "opening_moves", 2, "Random plies opening each game (shared by the colour-swapped pair)."
)
_OUTPUT = flags.DEFINE_string(
    "output", None, "Where the results and the ladder go (default: runs/evaluate/<game>)."
)
_ANCHOR = flags.DEFINE_string("anchor", "random", "The agent rated 0 on the ladder.")
cli.define_old_name("output_dir", "output")


def _build(settings: dict[str, int]):
    from alphazero_jax import games

    specs = [spec.strip() for spec in _AGENTS.value]
    if len(specs) < 2 or len(set(specs)) != len(specs):
        cli.fail(f"--agents: expected at least two distinct specs, got {specs}.")
    if _GAMES.value < 2 or _GAMES.value % 2 or _GAMES.value % (_BATCH.value or _GAMES.value):
        cli.fail(f"--games={_GAMES.value} must be even and >= 2, and a multiple of --batch_size.")
    try:
        game = games.make(_GAME.value, **settings)
        players = [agents.from_spec(game, spec) for spec in specs]
    except (ValueError, FileNotFoundError) as error:
        cli.fail(error)
    names = [player.name for player in players]
    anchor = names[specs.index(_ANCHOR.value)] if _ANCHOR.value in specs else _ANCHOR.value
    if anchor not in names:
        cli.fail(
            f"--anchor={_ANCHOR.value!r} is not among the agents {names}: the ladder needs "
            f"it rated 0. Add random to --agents, or pass --anchor=<one of them>."
        )
    return game, players, anchor


def main(argv: list[str]) -> None:
    cli.begin(argv)
    import jax

    from alphazero_jax.evaluation import elo, tournament
    from alphazero_jax.training import plots

    try:
        settings = cli.parse_settings(_SETTINGS.value)
    except ValueError as error:
        cli.fail(error)
    game, players, anchor = _build(settings)
    output_dir = cli.writable_directory(
        _OUTPUT.value or os.path.join("runs", "evaluate", _GAME.value), "output"
    )
    num_pairs = len(players) * (len(players) - 1) // 2
    print(f"{game.name} {dict(game.settings)}: {num_pairs} pairs x {_GAMES.value} games")
    done = []

    def report(result, seconds: float) -> None:
        done.append(result)
        print(f"[{len(done)}/{num_pairs}] {result.summary()} ({seconds:.1f} s)", flush=True)

    results = tournament.round_robin(
        game,
        players,
        num_games=_GAMES.value,
        key=jax.random.key(_SEED.value),
        batch_size=_BATCH.value,
        opening_moves=_OPENING.value,
        on_result=report,
    )
    print("\n" + tournament.results_table([p.name for p in players], results))
    ladder = elo.fit_ladder([r.pair_result() for r in results], anchor=anchor)
    print(f"\nElo ladder ({anchor} = 0; ± one standard error):\n{ladder.to_table()}")
    info = dict(
        game=game.name,
        settings=dict(game.settings),
        games_per_pair=_GAMES.value,
        seed=_SEED.value,
        opening_moves=_OPENING.value,
        anchor=anchor,
    )
    tournament.write_results(output_dir, results, ladder, settings=info)
    plots.plot_ladder(ladder, os.path.join(output_dir, "ladder.png"), title=f"{game.name} ladder")
    print(f"\nWrote results.csv, ladder.json and ladder.png in {os.path.abspath(output_dir)}")


def run() -> None:
    """The ``alphazero-evaluate`` console script."""
    cli.run(main, __name__)


if __name__ == "__main__":
    run()
