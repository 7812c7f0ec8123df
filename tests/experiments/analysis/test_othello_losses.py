"""The Othello losses analysis replays arena.play's games: the same keys give the same
results, so the losses it describes are the judge's (its final boards add the discs)."""

import jax
import numpy as np

from alphazero_jax import agents, games
from alphazero_jax.evaluation import arena
from alphazero_jax.games import othello_rules
from experiments.analysis import othello_losses


def test_final_states__are_the_games_arena_plays():
    game = games.make("othello", size=4)
    greedy, random = agents.from_spec(game, "greedy:flips"), agents.from_spec(game, "random")
    key = jax.random.key(3)
    played = arena.play(game, greedy, random, num_games=16, key=key, opening_moves=2)
    a_first, b_first = othello_losses.final_states(
        game, greedy.act_fn, random.act_fn, greedy.params, random.params, key, 16, 2
    )
    rewards = np.concatenate([a_first.rewards[:, 0], b_first.rewards[:, 1]])
    assert (int((rewards > 0).sum()), int((rewards == 0).sum()), int((rewards < 0).sum())) == (
        tuple(played.total)
    )
    assert a_first.terminal.all() and b_first.terminal.all()
    discs = np.asarray(othello_rules.count_discs(a_first))
    assert ((discs[:, 0] > discs[:, 1]) == (np.asarray(a_first.rewards[:, 0]) > 0)).all()
