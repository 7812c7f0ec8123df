r"""How long an agent takes to choose one move against a person: one position, batch 1.

    python -m experiments.benchmarks.move_time [--game=connect_four] [--position=4453] \
        [--agents=az:pretrained,az:pretrained:128] [--timed_moves=20]

Each agent's ``analyse_fn`` (``act_fn`` for an agent without one) is jitted and called once
to compile, then the agents' calls alternate, ``--timed_moves`` each, on the same position with
a new key each time; the median milliseconds a move are reported, and each agent's ratio to
the first agent's median. This is what the play page and the terminal wait for a move (the
README's snippet calls the same ``analyse_fn``).
"""

from __future__ import annotations

import statistics
import time

import jax
from absl import app, flags

from alphazero_jax import agents, games
from alphazero_jax.cli import common as cli

_GAME = flags.DEFINE_string("game", "connect_four", "The game (its default settings).")
_POSITION = flags.DEFINE_string(
    "position", "4453", "The moves to the position, in the game's notation (games.replay)."
)
_AGENTS = flags.DEFINE_list(
    "agents", ["az:pretrained", "az:pretrained:128"], "Agent specs to time, the first the base."
)
_REPEATS = flags.DEFINE_integer("timed_moves", 20, "Timed moves of each agent.")


def run(*, game_name: str, position: str, specs: list[str], repeats: int) -> dict[str, float]:
    """Times a move of each agent in ``specs`` on ``position``; prints a line per agent and
    returns ``spec -> median seconds a move``."""
    game = games.make(game_name)
    state = games.replay(game, position)
    batch = jax.tree.map(lambda x: x[None], state)
    moves = {}
    for spec in specs:
        agent = agents.from_spec(game, spec)
        move = jax.jit(agent.analyse_fn or agent.act_fn)
        jax.block_until_ready(move(agent.params, jax.random.key(0), batch))  # compile
        moves[spec] = (move, agent.params)
    spent = {spec: [] for spec in specs}
    for repeat in range(repeats):
        for spec, (move, params) in moves.items():
            start = time.perf_counter()
            jax.block_until_ready(move(params, jax.random.key(repeat + 1), batch))
            spent[spec].append(time.perf_counter() - start)
    medians = {spec: statistics.median(times) for spec, times in spent.items()}
    base = medians[specs[0]]
    print(f"jax {jax.__version__}, {jax.devices()[0].device_kind}; {game_name} at {position!r}:")
    for spec, seconds in medians.items():
        print(
            f"  {spec:<24} {seconds * 1e3:8.1f} ms a move (median of {repeats}), "
            f"{seconds / base:.2f}x {specs[0]}"
        )
    return medians


def main(argv: list[str]) -> None:
    cli.begin(argv)
    if _REPEATS.value < 1:
        cli.fail(f"--timed_moves: expected an integer >= 1, got {_REPEATS.value}.")
    try:
        run(
            game_name=_GAME.value,
            position=_POSITION.value,
            specs=list(_AGENTS.value),
            repeats=_REPEATS.value,
        )
    except ValueError as error:
        cli.fail(error)


if __name__ == "__main__":
    from alphazero_jax.cli import host_devices  # noqa: F401  (not on import, as the others)

    app.run(main)
