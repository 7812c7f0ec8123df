"""Counts from the literature, enumerated through the JAX ``step`` (batched) and
deduplicated on the host.

- Tic-Tac-Toe: 5,478 reachable positions (958 terminal); 255,168 games, of which the
  first player wins 131,184, the second 77,904, and 46,080 are drawn.
- Connect Four 6x7: distinct positions after n plies (OEIS A212693):
  1, 7, 49, 238, 1120, 4263, 16422, 54859, 184275 for n = 0..8.
- Othello 8x8 perft (move sequences of n plies, a pass counting as a ply):
  1, 4, 12, 56, 244, 1396, 8200, 55092, 390216 for n = 0..8.
"""

import jax
import jax.numpy as jnp
import numpy as np

from alphazero_jax import games

CHUNK = 1 << 15


def _stack(states):
    return jax.tree.map(lambda *xs: np.concatenate(xs), *states)


def _expand(game, states, paths):
    """All children of the non-terminal ``states`` (a host batch), deduplicated.

    Returns the distinct children and, for each, the number of paths into it.
    """
    legal = np.asarray(jax.jit(jax.vmap(game.legal_action_mask))(states))
    parent, action = np.nonzero(legal)  # A terminal state has no legal action.
    step = jax.jit(jax.vmap(game.step))
    children = []
    for start in range(0, len(parent), CHUNK):  # Fixed-size chunks: step compiles once.
        rows = parent[start : start + CHUNK]
        padded = np.resize(rows, CHUNK)
        acts = np.resize(action[start : start + CHUNK], CHUNK)
        batch = jax.tree.map(lambda x, padded=padded: x[padded], states)
        out = jax.tree.map(np.asarray, step(batch, jnp.asarray(acts, jnp.int32)))
        children.append(jax.tree.map(lambda x, rows=rows: x[: len(rows)], out))
    children = _stack(children)
    # A position is its board and the player to move (Othello's passes can give one board
    # to either player).
    keys = np.concatenate(
        [
            np.asarray(children.board).reshape(len(parent), -1),
            np.asarray(children.current_player).reshape(len(parent), 1).astype(np.uint32),
        ],
        axis=1,
    )
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    counts = np.zeros(len(first), np.int64)
    np.add.at(counts, inverse.reshape(-1), paths[parent])
    return jax.tree.map(lambda x: x[first], children), counts


def _levels(game, max_plies):
    """Distinct positions (as a host batch) and path counts after 0..max_plies plies."""
    root = jax.tree.map(lambda x: np.asarray(x)[None], game.init(jax.random.key(0)))
    levels = [(root, np.ones(1, np.int64))]
    for _ in range(max_plies):
        states, paths = levels[-1]
        if not np.any(~np.asarray(states.terminal)):
            break
        levels.append(_expand(game, states, paths))
    return levels


def test_tic_tac_toe__positions_and_games_by_exhaustive_enumeration():
    game = games.make("tic_tac_toe")
    levels = _levels(game, 9)
    positions = sum(len(paths) for _, paths in levels)
    terminal = [np.asarray(states.terminal) for states, _ in levels]
    assert positions == 5478
    assert sum(int(t.sum()) for t in terminal) == 958
    winners = np.concatenate(
        [np.asarray(states.winner)[t] for (states, _), t in zip(levels, terminal)]
    )
    games_per_end = np.concatenate([paths[t] for (_, paths), t in zip(levels, terminal)])
    assert games_per_end.sum() == 255168
    assert games_per_end[winners == 0].sum() == 131184
    assert games_per_end[winners == 1].sum() == 77904
    assert games_per_end[winners == -1].sum() == 46080


def test_connect_four__distinct_positions_after_n_plies():
    game = games.make("connect_four")
    counts = [len(paths) for _, paths in _levels(game, 8)]
    assert counts == [1, 7, 49, 238, 1120, 4263, 16422, 54859, 184275]


def test_othello__perft_from_the_start():
    game = games.make("othello")
    paths = [int(paths.sum()) for _, paths in _levels(game, 8)]
    assert paths == [1, 4, 12, 56, 244, 1396, 8200, 55092, 390216]
