r"""Arena and baseline speed on Connect Four.

    python -m experiments.benchmarks.arena [--matches=minimax:4,mcts:200] [--batch_size=256] \
        [--depths=4,5,6] [--rounds=3]

- games/s of whole matches (``arena.play``) for ``minimax:4`` and ``mcts:200`` against
  ``random``, at batch 256 (each agent moves in half of the games at every ply);
- seconds per move of the alpha-beta ``minimax:d`` at batch 64 on positions a few random
  moves into the game, beside a plain full-width negamax (nested ``vmap`` over every move
  to the same depth, the same values): the peer that shows what the pruning buys.
"""

from __future__ import annotations

import statistics
import time

import jax
import jax.numpy as jnp
from absl import app, flags

from alphazero_jax import agents, games
from alphazero_jax.cli import common as cli
from alphazero_jax.evaluation import arena
from alphazero_jax.types import Game
from experiments.benchmarks import common

_MATCHES = flags.DEFINE_list("matches", ["minimax:4", "mcts:200"], "Agents to time against random.")
_BATCH_SIZE = flags.DEFINE_integer("batch_size", 256, "Games at once in the matches.")
_DEPTHS = flags.DEFINE_list("depths", ["4", "5", "6"], "Depths of minimax to time per move.")
_ROUNDS = common.define_rounds(3)


def _timed(fn, rounds: int) -> float:
    jax.block_until_ready(fn())  # compile
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        jax.block_until_ready(fn())
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def full_width_negamax(game: Game, depth: int):
    """``values(state) -> float32[A]``: every move searched to ``depth`` plies without
    pruning, with the values of ``minimax.make_negamax``."""
    actions = jnp.arange(game.num_actions)

    def value(state, ply):
        if ply == depth:
            h = game.heuristic(state)
            return jnp.where(state.terminal, h * (2 - ply / (depth + 1)), h)
        children = jax.vmap(game.step, in_axes=(None, 0))(state, actions)
        below = -jax.vmap(value, in_axes=(0, None))(children, ply + 1)
        best = jnp.max(jnp.where(game.legal_action_mask(state), below, -1e9))
        h = game.heuristic(state)
        return jnp.where(state.terminal, h * (2 - ply / (depth + 1)), best)

    def root_values(state):
        children = jax.vmap(game.step, in_axes=(None, 0))(state, actions)
        return -jax.vmap(value, in_axes=(0, None))(children, 1)

    return root_values


def _openings(game: Game, batch_size: int, num_moves: int):
    key = jax.random.key(0)
    states = jax.vmap(game.init)(jax.random.split(key, batch_size))
    random = agents.from_spec(game, "random")
    for index in range(num_moves):
        moves = random.act(jax.random.fold_in(key, index), states)
        states = jax.vmap(game.step)(states, moves)
    return states


def run(*, matches: tuple[str, ...], batch_size: int, depths: tuple[int, ...], rounds: int):
    game = games.make("connect_four")
    random = agents.from_spec(game, "random")
    print(f"Matches against random, {batch_size} games at once (median of {rounds}):")
    for spec in matches:
        agent = agents.from_spec(game, spec)
        result = {}

        def match(agent=agent, result=result):
            result["r"] = arena.play(
                game, agent, random, num_games=batch_size, key=jax.random.key(1)
            )
            return jnp.zeros(())

        seconds = _timed(match, rounds)
        print(f"  {spec:>10}: {batch_size / seconds:8.1f} games/s; {result['r'].summary()}")
    states = _openings(game, 64, num_moves=4)
    print("Seconds per move at batch 64, 4 random moves into the game:")
    for depth in depths:
        ours = jax.jit(agents.minimax_agent(game, depth=depth).act_fn)
        alpha_beta = _timed(lambda ours=ours: ours(None, jax.random.key(0), states), rounds)
        line = f"  depth {depth}: alpha-beta {alpha_beta:.3f} s"
        if depth <= 5:
            peer = jax.jit(jax.vmap(full_width_negamax(game, depth)))
            full = _timed(lambda peer=peer: peer(states), rounds)
            line += f", full-width {full:.3f} s, ratio {full / alpha_beta:.1f}x"
        print(line)


def main(argv: list[str]) -> None:
    cli.begin(argv)
    for spec in _MATCHES.value:
        try:
            agents.from_spec(games.make("connect_four"), spec)
        except (ValueError, FileNotFoundError) as error:
            cli.fail(f"--matches: {error}")
    run(
        matches=tuple(_MATCHES.value),
        batch_size=_BATCH_SIZE.value,
        depths=common.ints(_DEPTHS),
        rounds=_ROUNDS.value,
    )


if __name__ == "__main__":
    from alphazero_jax.cli import host_devices  # noqa: F401  (not on import: common.py)

    app.run(main)
