"""Batched searches (``play/batching.py``): concurrent searches gathered into one call in
their order, the batch sizes and padding, and the plan over the sizes ready."""

from __future__ import annotations

import asyncio

import jax
import numpy as np
import pytest

from alphazero_jax import agents, games
from alphazero_jax.play import batching


def test_batcher_gathers_concurrent_searches_and_keeps_their_order():
    # Each position has one winning move for the side to move, which greedy must play:
    # so each caller gets the answer for its own position.
    game = games.make("tic_tac_toe")
    openings = ["a3 a1 b3 b1", "a1 b1 a2 c1", "c3 c1 b2 a3", "a2 b3 b2 c3", "a1 a2 b2 b3"]
    wins = ["c3", "a3", "a1", "c2", "c3"]  # hand-checked: the first player's winning cell
    states = [games.replay(game, opening) for opening in openings]
    batcher = batching.Batcher(agents.from_spec(game, "greedy"), sizes=(1, 4, 8), wait=0.05)

    async def run():
        results = await asyncio.gather(*(batcher.analyse(s) for s in states * 2))
        await batcher.close()
        return results

    results = asyncio.run(run())
    assert [game.action_to_text(int(r.action[0])) for r in results] == wins * 2
    assert batcher.positions == 10 and batcher.batches == 2  # 8 and then 2 (padded to 4)
    assert results[0].value is None and results[0].shares is None


def test_batch_buckets_and_padding():
    assert [batching.bucket(n, (1, 4, 16)) for n in (1, 2, 4, 5, 16)] == [1, 4, 4, 16, 16]
    with pytest.raises(ValueError, match="at most 16"):
        batching.bucket(17, (1, 4, 16))
    game = games.make("tic_tac_toe")
    state = game.init(jax.random.key(0))
    stacked = batching.stack([state, game.step(state, 4)], 4)
    assert stacked.board.shape == (4, *state.board.shape)
    np.testing.assert_array_equal(stacked.board[2], state.board)


# -- compiles: one at a time for a player, the rest in the background ---------------------


def test_plan_pads_to_a_ready_size_or_splits_by_the_largest():
    assert batching.plan(3, ()) is None  # nothing compiled: compile first
    assert batching.plan(3, (4, 8)) == (4, 3)  # the smallest ready size that holds them
    assert batching.plan(1, (8,)) == (8, 1)  # padded while 1 compiles
    assert batching.plan(5, (1, 2)) == (2, 2)  # 2 now, the other 3 next
    assert batching.plan(8, (1,)) == (1, 1)
