"""The game contract, checked on every registered game (and on a non-default shape of each)."""

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alphazero_jax import games

BATCH = 256
MAX_ILLEGAL = 1 << 16  # illegal moves tried per game (a random sample beyond)

# Quoridor's default (9x9) is covered by its OpenSpiel differential; here its 5x5.
CASES = [(name, {}) for name in games.available() if name != "quoridor"] + [
    ("connect_four", {"rows": 5, "cols": 4, "connect": 3}),
    ("connect_four", {"rows": 10, "cols": 10, "connect": 5}),
    ("tic_tac_toe", {"rows": 4, "cols": 5, "connect": 4}),
    ("othello", {"size": 4, "legal_plane": 0}),
    ("othello", {"size": 10, "legal_plane": 1}),
    ("quoridor", {"size": 5, "walls": 3, "distance_planes": 0}),
]


@pytest.fixture(
    scope="module", params=CASES, ids=lambda c: c[0] + "".join(f"-{v}" for v in c[1].values())
)
def game(request):
    name, settings = request.param
    return games.make(name, **settings)


def _random_legal(key, legal_mask):
    logits = jnp.where(legal_mask, 0.0, -jnp.inf)
    return jax.random.categorical(key, logits).astype(jnp.int32)


def _play_random(game, key, batch=BATCH):
    """Random legal games for max_num_moves plies; returns every state [T+1, B]."""

    def move(states, key):
        keys = jax.random.split(key, batch)
        legal = jax.vmap(game.legal_action_mask)(states)
        actions = jax.vmap(_random_legal)(keys, legal)
        actions = jnp.where(legal.any(-1), actions, 0)  # terminal: any action, a no-op
        next_states = jax.vmap(game.step)(states, actions)
        return next_states, next_states

    init = jax.vmap(game.init)(jax.random.split(key, batch))
    _, trajectory = jax.lax.scan(move, init, jax.random.split(key, game.max_num_moves))
    return jax.tree.map(lambda a, b: jnp.concatenate([a[None], b]), init, trajectory)


@pytest.fixture(scope="module")
def trajectory(game):
    return jax.jit(lambda key: _play_random(game, key))(jax.random.key(1))


def test_game__metadata_is_consistent(game):
    state = game.init(jax.random.key(0))
    assert game.observe(state).shape == game.observation_shape
    assert game.observe(state).dtype == jnp.float32
    assert game.legal_action_mask(state).shape == (game.num_actions,)
    assert game.legal_action_mask(state).dtype == jnp.bool_
    assert state.current_player.dtype == jnp.int32 and state.current_player.shape == ()
    assert state.num_moves.dtype == jnp.int32 and state.terminal.dtype == jnp.bool_
    assert state.rewards.dtype == jnp.float32 and state.rewards.shape == (2,)
    assert int(state.current_player) == 0 and not bool(state.terminal)
    assert games.make(game.name, **dict(game.settings)) is game


@pytest.mark.parametrize("fn_name", ["step", "observe", "legal_action_mask", "heuristic"])
def test_game__jits_vmaps_and_traces_once(game, fn_name, trajectory):
    traces = []

    def traced(state, action):
        traces.append(1)
        fn = getattr(game, fn_name)
        return fn(state, action) if fn_name == "step" else fn(state)

    batched = jax.jit(jax.vmap(traced))
    for t in (0, 3, 5):
        states = jax.tree.map(lambda x, t=t: x[t], trajectory)
        actions = jnp.full((BATCH,), t % game.num_actions, jnp.int32)
        jax.block_until_ready(batched(states, actions))
    assert len(traces) == 1


def test_game__random_games_end_within_max_num_moves(game, trajectory):
    final = jax.tree.map(lambda x: x[-1], trajectory)
    assert bool(final.terminal.all())
    assert int(final.num_moves.max()) <= game.max_num_moves
    # Moves are counted one by one until the end.
    num_moves = np.asarray(trajectory.num_moves)
    terminal = np.asarray(trajectory.terminal)
    steps = np.diff(num_moves, axis=0)
    np.testing.assert_array_equal(steps, np.where(terminal[:-1], 0, 1))


def test_game__rewards_are_zero_sum_and_only_at_the_end(game, trajectory):
    rewards = np.asarray(trajectory.rewards)
    terminal = np.asarray(trajectory.terminal)
    np.testing.assert_array_equal(rewards.sum(-1), 0.0)
    assert np.all(rewards[~terminal] == 0.0)
    assert set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}


def test_game__legal_mask_is_empty_exactly_when_terminal(game, trajectory):
    legal = np.asarray(jax.vmap(jax.vmap(game.legal_action_mask))(trajectory))
    np.testing.assert_array_equal(~legal.any(-1), np.asarray(trajectory.terminal))


def test_game__stepping_a_terminal_state_changes_nothing(game, trajectory):
    final = jax.tree.map(lambda x: x[-1], trajectory)
    step = jax.jit(jax.vmap(game.step))
    for action in (0, game.num_actions - 1, -1):
        after = step(final, jnp.full((BATCH,), action, jnp.int32))
        for a, b in zip(jax.tree.leaves(final), jax.tree.leaves(after)):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_game__illegal_action_is_a_loss_for_the_mover(game, trajectory):
    states = jax.tree.map(lambda x: x.reshape(-1, *x.shape[2:]), trajectory)
    live = ~np.asarray(states.terminal)
    legal = np.asarray(jax.vmap(game.legal_action_mask)(states))
    # Every illegal in-range action of a live state, plus out-of-range actions everywhere.
    rows, actions = np.nonzero(~legal & live[:, None])
    live_rows = np.nonzero(live)[0]
    if len(rows) > MAX_ILLEGAL:  # a sample keeps big boards (10x10 Othello) quick
        keep = np.sort(np.random.default_rng(0).choice(len(rows), MAX_ILLEGAL, replace=False))
        rows, actions = rows[keep], actions[keep]
    rows = np.concatenate([rows, live_rows, live_rows])
    actions = np.concatenate([actions, np.full(2 * len(live_rows), -1)])
    actions[-len(live_rows) :] = game.num_actions
    assert len(rows) > 2 * len(live_rows), "the random games should meet some illegal moves"
    before = jax.tree.map(lambda x: x[rows], states)
    after = jax.jit(jax.vmap(game.step))(before, jnp.asarray(actions, jnp.int32))
    mover = np.asarray(before.current_player)
    rewards = np.asarray(after.rewards)
    assert np.asarray(after.terminal).all()
    np.testing.assert_array_equal(rewards[np.arange(len(rows)), mover], -1.0)
    np.testing.assert_array_equal(rewards[np.arange(len(rows)), 1 - mover], 1.0)


def test_game__heuristic_is_bounded_and_exact_at_the_end(game, trajectory):
    values = np.asarray(jax.vmap(jax.vmap(game.heuristic))(trajectory))
    terminal = np.asarray(trajectory.terminal)
    assert np.all(np.abs(values[~terminal]) < 1.0)
    rewards = np.asarray(trajectory.rewards)
    mover = np.asarray(trajectory.current_player)
    exact = np.take_along_axis(rewards, mover[..., None], -1)[..., 0]
    np.testing.assert_array_equal(values[terminal], exact[terminal])


def test_game__symmetries_commute_with_play(game):
    """Playing the transformed moves reaches the transformed position, for each symmetry
    that maps the start onto itself (Othello's start is not mirror-symmetric: its own test
    draws the mirrored positions)."""
    assert game.symmetries[0].name == "identity"
    rng = np.random.default_rng(0)
    start = np.asarray(game.observe(game.init(jax.random.key(0))))
    keeps_start = [s for s in game.symmetries if (s.transform_observation(start) == start).all()]
    assert len(keeps_start) >= len(game.symmetries) // 2
    for symmetry in keeps_start:
        perm = symmetry.action_permutation
        assert sorted(perm.tolist()) == list(range(game.num_actions))
        inverse = np.argsort(perm)  # action a of the position becomes inverse[a]
        state = transformed = game.init(jax.random.key(0))
        for _ in range(6):
            legal = np.asarray(game.legal_action_mask(state))
            np.testing.assert_array_equal(
                np.asarray(game.legal_action_mask(transformed)), legal[perm]
            )
            np.testing.assert_array_equal(
                np.asarray(game.observe(transformed)),
                np.asarray(symmetry.transform_observation(game.observe(state))),
            )
            if not legal.any():
                break
            action = int(rng.choice(np.flatnonzero(legal)))
            state = game.step(state, action)
            transformed = game.step(transformed, int(inverse[action]))


def test_game__text_round_trips(game, trajectory):
    actions = list(range(min(3, game.num_actions)))
    text = game.actions_to_text(actions)
    assert game.actions_from_text(text) == actions
    # A name may depend on the position (a Quoridor pawn move names its square).
    for ply in (0, 1, 3):
        state = jax.tree.map(lambda x, p=ply: x[p, 0], trajectory)
        for action in np.flatnonzero(np.asarray(game.legal_action_mask(state))):
            name = game.action_to_text(int(action), state)
            assert game.actions_from_text(name, state) == [action]
    picture = game.to_text(jax.tree.map(lambda x: x[-1, 0], trajectory))
    assert isinstance(picture, str) and len(picture.splitlines()) >= 2


def test_game__json_board_is_plain_json_and_agrees_with_the_text(game, trajectory):
    for ply in (0, 3, game.max_num_moves):
        state = jax.tree.map(lambda x, p=ply: x[p, 0], trajectory)
        board = game.to_json(state)
        assert json.loads(json.dumps(board)) == board
        stones = sum(cell != 0 for row in board["cells"] for cell in row)
        start = game.to_json(jax.tree.map(lambda x: x[0, 0], trajectory))["cells"]
        # Each move puts one stone down (none for a pass).
        assert stones <= sum(cell != 0 for row in start for cell in row) + int(state.num_moves)
        # The ASCII picture shows the same cells, top row first.
        lines = [
            [t for t in line.split() if t in ".XO"] for line in game.to_text(state).split("\n")
        ]
        lines = [line for line in lines if len(line) == board["cols"]]  # walls, labels: gone
        marks = [["." if c == 0 else "XO"[c - 1] for c in row] for row in board["cells"]]
        assert lines[: board["rows"]] == marks


def test_settings_of_every_game_match_what_make_accepts():
    for name in games.available():
        for key, bound in games.settings_of(name).items():
            games.make(name, **{key: bound["default"]})
            with pytest.raises(ValueError, match=key):
                games.make(name, **{key: bound["max"] + 1})
            with pytest.raises(ValueError, match=key):
                games.make(name, **{key: bound["min"] - 1})
