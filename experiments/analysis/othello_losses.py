r"""How an Othello agent's lost games ended: replays a match of ``alphazero-judge baselines``
(or of ``arena.play``) with the same keys, keeping each game's final board.

    python -m experiments.analysis.othello_losses \
        --network=alphazero_jax/data/agents/othello-size8-legal_plane1 \
        --opponent=greedy:flips [--games=200] [--match_seed=0] [--simulations=-1]

The network plays as ``alphazero-judge baselines --workdir=... --simulations=...`` plays it
(a noise-free search of the run's own simulations for -1; ``learning_proof.play_against``),
against ``--opponent``, after 2 random plies with colours swapped, all games in one batch,
keyed by ``--match_seed`` (the judge's ``--seed``): the same games as that judge's, so its
losses are the judge's losses.
For each lost game it prints the plies played and the final discs (the network's first);
a wipe-out is a loss with none of the network's discs left on the board.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from absl import flags

from alphazero_jax import agents, search
from alphazero_jax.cli import common as cli
from alphazero_jax.games import othello_rules

_WORKDIR = flags.DEFINE_string(
    "network",
    None,
    "The network: a run, a checkpoint or an exported agent's folder.",
    required=True,
)
_OPPONENT = flags.DEFINE_string("opponent", "greedy:flips", "The opponent's agent spec.")
_GAMES = flags.DEFINE_integer("games", 200, "Games, an even number (half with each colour).")
_SEED = flags.DEFINE_integer("match_seed", 0, "The match's key (the judge's --seed).")
_SIMULATIONS = cli.define_simulations(f"As alphazero-judge baselines reads it. {cli.OLD_ZERO_HELP}")
OPENING_MOVES = 2  # alphazero-judge baselines' random plies


def final_states(game, act_a, act_b, params_a, params_b, key, num_games, opening_moves):
    """The final states of ``arena.play(game, A, B, num_games=num_games, key=key,
    opening_moves=opening_moves)`` in one batch: ``(a_first, b_first)``, A moving first in
    the first and second in the second. The same keys and steps as ``arena``'s, so the same
    games (``tests/experiments/analysis/test_othello_losses.py`` compares the results)."""
    (key,) = jax.random.split(key, 1)  # arena.play's key of its one batch
    half = num_games // 2

    def select(condition, x, y):
        return jax.tree.map(lambda u, v: jnp.where(condition, u, v), x, y)

    init_key, play_key = jax.random.split(key)
    states = jax.vmap(game.init)(jax.random.split(init_key, num_games))
    a_first = jax.tree.map(lambda x: x[:half], states)
    b_first = jax.tree.map(lambda x: x[half:], states)

    def body(carry):
        ply, a_first, b_first = carry
        a_to_move = ply % 2 == 0
        key_a, key_b = jax.random.split(jax.random.fold_in(play_key, ply))
        moves_a = act_a(params_a, key_a, select(a_to_move, a_first, b_first))
        moves_b = act_b(params_b, key_b, select(a_to_move, b_first, a_first))
        actions_a_first = jnp.where(a_to_move, moves_a, moves_b)
        actions_b_first = jnp.where(a_to_move, moves_b, moves_a)
        if opening_moves:
            opening_key = jax.random.fold_in(init_key, ply)
            random = search.uniform_choice(opening_key, jax.vmap(game.legal_action_mask)(a_first))
            early = ply < opening_moves
            actions_a_first = jnp.where(early, random, actions_a_first)
            actions_b_first = jnp.where(early, random, actions_b_first)
        a_first = jax.vmap(game.step)(a_first, actions_a_first)
        b_first = jax.vmap(game.step)(b_first, actions_b_first)
        return ply + 1, a_first, b_first

    def going(carry):
        ply, a_first, b_first = carry
        live = ~(a_first.terminal.all() & b_first.terminal.all())
        return live & (ply < game.max_num_moves)

    run = jax.jit(lambda: jax.lax.while_loop(going, body, (jnp.int32(0), a_first, b_first)))
    _, a_first, b_first = run()
    return a_first, b_first


def losses(run, opponent: str, num_games: int, key, simulations: int = -1) -> list[dict]:
    """Each game the network lost: ``plies``, ``discs`` (the network's) and ``opponent_discs``,
    ``first`` (whether the network moved first)."""
    other = agents.from_spec(run.game, opponent)
    act_fn = agents.make_network_act_fn(  # as learning_proof.play_against's network
        run.game,
        run.apply_fn,
        run.config.search.to_dict(),
        num_simulations=int(run.config.search.num_simulations) if simulations < 0 else simulations,
    )
    a_first, b_first = final_states(
        run.game, act_fn, other.act_fn, run.variables, other.params, key, num_games, OPENING_MOVES
    )
    lost = []
    for first, states, player in ((True, a_first, 0), (False, b_first, 1)):
        discs = np.asarray(othello_rules.count_discs(states))
        rewards = np.asarray(states.rewards)[:, player]
        plies = np.asarray(states.num_moves)
        for game in np.flatnonzero(rewards < 0):
            lost.append(
                dict(
                    first=first,
                    plies=int(plies[game]),
                    discs=int(discs[game, player]),
                    opponent_discs=int(discs[game, 1 - player]),
                )
            )
    return lost


def main(argv: list[str]) -> None:
    cli.begin(argv)
    from alphazero_jax.agents import pretrained

    if _GAMES.value < 2 or _GAMES.value % 2:
        cli.fail(f"--games: expected an even number >= 2, got {_GAMES.value}.")
    try:
        run = pretrained.restore(_WORKDIR.value)
    except (FileNotFoundError, ValueError) as error:
        cli.fail(error)
    if run.game.name != "othello":
        cli.fail(f"--network={_WORKDIR.value}: expected an Othello run, got {run.game.name}.")
    (simulations,) = cli.read_old_zero([_SIMULATIONS.value])
    lost = losses(run, _OPPONENT.value, _GAMES.value, jax.random.key(_SEED.value), simulations)
    wiped = [game for game in lost if game["discs"] == 0]
    print(
        f"{_WORKDIR.value} against {_OPPONENT.value}, {_GAMES.value} games: lost {len(lost)}, "
        f"{len(wiped)} of them wiped out"
    )
    for game in sorted(lost, key=lambda game: game["plies"]):
        side = "first" if game["first"] else "second"
        print(
            f"  moved {side:<6} {game['plies']:>3} plies  "
            f"discs {game['discs']}-{game['opponent_discs']}"
        )


if __name__ == "__main__":
    from alphazero_jax.cli import host_devices  # noqa: F401  (as the judges)

    cli.run(main, __name__)
