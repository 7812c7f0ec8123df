"""The rollout MCTS baseline: hand-drawn positions with one right move pin the signs of
rewards, discounts and playout values; it crushes a random player; finished and full
boards stay finite; it compiles once; bad settings fail early."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alphazero_jax import games
from alphazero_jax.search import rollout_mcts

# Simulations of the known-answer searches. Rollout UCT with 200 simulations blocks a
# Connect Four threat only when the defender's position is not bad anyway: over 1536
# searches it missed the vertical block "41424" 117 times and the diagonal block
# "122343344" 166 times (12 and 18 times with 400 simulations), but never the two blocks
# below with 400.
NUM_SIMULATIONS = {"connect_four": 400, "tic_tac_toe": 200}
NUM_COPIES = 8  # Independent searches (keys) per position: one lucky search cannot pass.

# (game, moves, kind, the one right action, the picture and why). "win": the mover wins at
# once with that action and with no other. "block": the opponent threatens to win at once;
# every other move lets that win happen, and after the block the opponent has no win at
# once (no fork). ``test_known_positions__are_what_they_claim`` checks both by brute force.
KNOWN_POSITIONS = [
    # . . . . . . .      X to move: X's three in column 4 wins at once on top.
    # . . . X . . .
    # . . . X . . .
    # O O O X . . .
    ("connect_four", "414243", "win", 3, "X wins in column 4 (vertical)"),
    # . . . . . . O      X to move: X wins in column 4 on the bottom row; O's vertical
    # . . . . . . O      three in column 7 is a threat, but winning comes first.
    # X X X . . . O
    ("connect_four", "172737", "win", 3, "X wins in column 4 rather than block column 7"),
    # . . . . . . O      O to move: X's bottom-row three must be blocked in column 4.
    # X X X . . . O
    ("connect_four", "17273", "block", 3, "O must block X's bottom row in column 4"),
    # X . . . . . .      O to move: X's vertical three in column 1 must be capped.
    # X . . . . . .
    # X O O . . . .
    ("connect_four", "12131", "block", 0, "O must cap X's column 1"),
    # 3 X . O            X to move: c1 completes the diagonal a3-b2-c1.
    # 2 . X .
    # 1 O . .
    ("tic_tac_toe", "b2 a1 a3 c3", "win", 8, "X wins on c1"),
    # 3 . X .            O to move: X threatens b1; after O b1 X has no double threat.
    # 2 . X .
    # 1 O . .
    ("tic_tac_toe", "b2 a1 b3", "block", 7, "O must block b1"),
    # 3 . . .            O to move: X threatens c1; after O c1 X has no double threat.
    # 2 . O .
    # 1 X X .
    ("tic_tac_toe", "a1 b2 b1", "block", 8, "O must block c1"),
]

# A full Connect Four board ending in a draw, and a game X wins on the bottom row.
DRAW = "452132145671363423737227774246535165114566"
X_WINS = "4455667"


@functools.cache
def _act(name):
    game = games.make(name)
    return jax.jit(rollout_mcts.make_rollout_mcts(game, num_simulations=NUM_SIMULATIONS[name]))


@functools.cache
def _search(name):
    game = games.make(name)
    return jax.jit(rollout_mcts.make_search(game, num_simulations=NUM_SIMULATIONS[name]))


def _batch(game, move_lists):
    return games.replay_batch(game, [game.actions_from_text(m) for m in move_lists])


def _copies(game, moves, num_copies):
    return _batch(game, [moves] * num_copies)


@functools.cache
def _step_all(game):
    """Jitted ``state -> states[A]``: the position after each action."""
    actions = jnp.arange(game.num_actions)
    return jax.jit(lambda state: jax.vmap(game.step, in_axes=(None, 0))(state, actions))


def _winning_moves(game, state):
    """The mover's actions that win at once (a Python set)."""
    legal = np.asarray(game.legal_action_mask(state))
    after = _step_all(game)(state)
    won = np.asarray(after.terminal) & (np.asarray(after.rewards)[:, int(state.current_player)] > 0)
    return {int(a) for a in np.flatnonzero(legal & won)}


def _take(state, index):
    return jax.tree.map(lambda x: x[index], state)


@pytest.mark.parametrize(("name", "moves", "kind", "answer", "why"), KNOWN_POSITIONS)
def test_known_positions__are_what_they_claim(name, moves, kind, answer, why):
    game = games.make(name)
    state = games.replay(game, moves)
    picture = f"{why}:\n{game.to_text(state)}"
    if kind == "win":
        assert _winning_moves(game, state) == {answer}, picture
        return
    assert _winning_moves(game, state) == set(), picture
    after = _step_all(game)(state)
    for action in np.flatnonzero(np.asarray(game.legal_action_mask(state))):
        threats = _winning_moves(game, _take(after, int(action)))
        assert bool(threats) == (action != answer), f"{picture}\nmove {action}: {threats}"


@pytest.mark.parametrize(("name", "moves", "kind", "answer", "why"), KNOWN_POSITIONS)
def test_rollout_mcts__finds_the_one_right_move(name, moves, kind, answer, why):
    game = games.make(name)
    states = _copies(game, moves, NUM_COPIES)
    for seed in range(2):
        chosen = np.asarray(_act(name)(None, jax.random.key(seed), states))
        assert (chosen == answer).all(), f"{why} ({kind}): chose {chosen}, seed {seed}"


def test_playout__scores_the_outcome_for_the_player_to_move():
    """Positions whose random playouts all end alike pin the playout value's sign."""
    tic_tac_toe = games.make("tic_tac_toe")
    # 3 X O X   X to move; the last empty cell, c1, completes X's c-file: +1 for X.
    # 2 O O X
    # 1 O X .
    last_cell_wins = _copies(tic_tac_toe, "a3 b3 c3 a2 c2 b2 b1 a1", 4)
    playout = jax.jit(rollout_mcts.make_playout(tic_tac_toe))
    np.testing.assert_array_equal(np.asarray(playout(jax.random.key(0), last_cell_wins)), 1.0)
    # Connect Four: X has won (O to move: -1), one move left to a draw (0), a full board.
    connect_four = games.make("connect_four")
    states = _batch(connect_four, [X_WINS, DRAW[:-1], DRAW])
    values = jax.jit(rollout_mcts.make_playout(connect_four))(jax.random.key(0), states)
    np.testing.assert_array_equal(np.asarray(values), [-1.0, 0.0, 0.0])


def _random_act(game, key, states):
    """int32[B]: a uniformly random legal move per state (the random player)."""
    legal = jax.vmap(game.legal_action_mask)(states)
    logits = jnp.where(legal, 0.0, -jnp.inf)
    return jax.random.categorical(key, logits, axis=-1).astype(jnp.int32)


def _make_match(game, act_a, act_b, num_pairs):
    """Jitted ``key -> float32[2 * num_pairs]``: A's outcomes, first in the first half.

    Both groups of games move in lockstep; on each ply A moves in one group and B in the
    other, so each agent sees one batch of ``num_pairs`` states per ply.
    """

    def match(key):
        start = jax.tree.map(lambda x: jnp.broadcast_to(x, (num_pairs, *x.shape)), game.init(key))

        def unfinished(carry):
            _, a_first, b_first, _ = carry
            return ~(a_first.terminal.all() & b_first.terminal.all())

        def ply(carry):
            t, a_first, b_first, key = carry
            key, key_a, key_b = jax.random.split(key, 3)
            even = t % 2 == 0
            pick = functools.partial(jax.tree.map, lambda x, y: jnp.where(even, x, y))
            move_a = act_a(key_a, pick(a_first, b_first))
            move_b = act_b(key_b, pick(b_first, a_first))
            a_first = jax.vmap(game.step)(a_first, jnp.where(even, move_a, move_b))
            b_first = jax.vmap(game.step)(b_first, jnp.where(even, move_b, move_a))
            return t + 1, a_first, b_first, key

        _, a_first, b_first, _ = jax.lax.while_loop(unfinished, ply, (0, start, start, key))
        return jnp.concatenate([a_first.rewards[:, 0], b_first.rewards[:, 1]])

    return jax.jit(match)


@pytest.mark.long
def test_rollout_mcts__beats_a_random_player_at_connect_four():
    game = games.make("connect_four")
    act = rollout_mcts.make_rollout_mcts(game, num_simulations=200)
    match = _make_match(
        game, functools.partial(act, None), functools.partial(_random_act, game), 50
    )
    outcomes = np.asarray(match(jax.random.key(0)))
    assert outcomes.shape == (100,)
    wins = int((outcomes > 0).sum())
    assert wins >= 95, f"mcts:200 won {wins} of 100 games against random"


def test_rollout_mcts__terminal_and_full_board_roots_stay_finite():
    game = games.make("connect_four")
    # A full board, one move left, a game X has won, and the opening (batch of NUM_COPIES,
    # the shape the known-answer tests compiled).
    move_lists = [DRAW, DRAW[:-1], X_WINS, ""] * (NUM_COPIES // 4)
    states = _batch(game, move_lists)
    tree = _search("connect_four")(jax.random.key(0), states)
    for field in ("node_values", "children_values", "raw_values", "children_prior_logits"):
        assert np.isfinite(np.asarray(getattr(tree, field))).all(), field
    qvalues = tree.qvalues(jnp.zeros(len(move_lists), jnp.int32))
    assert np.isfinite(np.asarray(qvalues)).all()
    chosen = _act("connect_four")(None, jax.random.key(1), states)
    assert chosen.dtype == jnp.int32 and chosen.shape == (len(move_lists),)
    last_move = game.actions_from_text(DRAW[-1])[0]
    assert np.asarray(chosen)[:3].tolist() == [0, last_move, 0]
    assert 0 <= int(chosen[3]) < game.num_actions


def test_rollout_mcts__compiles_once_for_new_keys():
    game = games.make("tic_tac_toe")
    act_fn = rollout_mcts.make_rollout_mcts(game, num_simulations=8)
    traces = []

    def traced(params, key, states):
        traces.append(1)  # A Python side effect runs once per trace.
        return act_fn(params, key, states)

    act = jax.jit(traced)
    states = _copies(game, "b2", 4)
    first = act(None, jax.random.key(0), states)
    second = act(None, jax.random.key(1), states)
    assert len(traces) == 1 and act._cache_size() == 1
    assert first.shape == second.shape == (4,)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"num_simulations": 0}, "num_simulations must be an int >= 1, got 0"),
        ({"num_simulations": 2.0}, "num_simulations must be an int >= 1, got 2.0"),
        ({"num_simulations": True}, "num_simulations must be an int >= 1, got True"),
        ({"num_simulations": 8, "exploration": 0.0}, "exploration must be a number > 0"),
        ({"num_simulations": 8, "exploration": -1}, "exploration must be a number > 0"),
        ({"num_simulations": 8, "exploration": float("nan")}, "exploration must be a number"),
        ({"num_simulations": 8, "exploration": "1"}, "exploration must be a number > 0"),
    ],
)
def test_make_rollout_mcts__bad_settings_raise_value_error(settings, message):
    game = games.make("tic_tac_toe")
    with pytest.raises(ValueError, match=message):
        rollout_mcts.make_rollout_mcts(game, **settings)
