"""The Random-Play perfect-play set: the shipped positions obey the generation rule, the
generator reproduces them from the seed, the solver reproduces a sample of the labels and
scores, a hand-drawn forced block, and the set loads and is judged like Pons' sets."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alphazero_jax import games
from alphazero_jax.evaluation import perfect_play
from alphazero_jax.solvers import benchmark_sets, pons
from alphazero_jax.solvers import connect_four as solver
from alphazero_jax.types import Agent
from experiments.data import label_pons, random_play_set

GAME = games.make("connect_four")
NAME = benchmark_sets.RANDOM_PLAY

# O to move after 11 plies. X threatens d1 (d1-e1-f1-g1), so every O move but column 4
# loses at once. Blocking there gives O two fours to make next, a1 (a1-b1-c1-d1) and d2
# (c2-d2-e2-f2); X stops one and O plays the other: O's 7th stone wins, score 22 - 7 = 15.
_FORCED_BLOCK = "66527523237"
_FORCED_BLOCK_PICTURE = """\
. . . . . . .
. . . . . . .
. . . . . . .
. X . . . . .
. X O . O O X
. O O . X X X
1 2 3 4 5 6 7"""


@jax.jit
@jax.vmap
def _immediate_win(state):
    """Whether the side to move has a legal move that wins at once."""
    children = jax.vmap(GAME.step, (None, 0))(state, jnp.arange(GAME.num_actions))
    return jnp.any((children.winner == state.current_player) & GAME.legal_action_mask(state))


def _states(moves):
    return games.replay_batch(GAME, [GAME.actions_from_text(m) for m in moves])  # legal


def test_random_play__registered_beside_pons_sets():
    assert benchmark_sets.SETS[NAME] == "Random-Play"
    assert list(benchmark_sets.SETS)[:6] == list(pons.SETS)  # the one registry, Pons' first
    assert not benchmark_sets.is_published(NAME) and benchmark_sets.is_published("Test_L2_R2")
    with pytest.raises(ValueError, match=r"Unknown perfect-play set 'Random_Ply'.*Random_Play"):
        benchmark_sets.load("Random_Ply")


def test_random_play__shipped_positions_obey_the_rules():
    moves = [p.moves for p in benchmark_sets.load(NAME)]
    assert len(moves) == 1000
    assert all(10 <= len(m) <= 30 for m in moves)
    states = _states(moves)
    assert not np.asarray(states.terminal).any()
    assert not np.asarray(_immediate_win(states)).any()
    boards = np.asarray(states.board).reshape(len(moves), -1)
    assert len(np.unique(boards, axis=0)) == 1000  # no board twice, however it was reached


def test_random_play__generator_reproduces_the_shipped_positions_from_the_seed():
    shipped = [p.moves for p in benchmark_sets.load(NAME)]
    regenerated = random_play_set.random_positions(  # all 1000: well under a second
        seed=random_play_set.SEED,
        count=random_play_set.NUM_POSITIONS,
        min_plies=random_play_set.MIN_PLIES,
        max_plies=random_play_set.MAX_PLIES,
    )
    assert regenerated == shipped
    assert random_play_set.random_positions(seed=0, count=3, min_plies=10, max_plies=30) == [
        "371566433346717435523655",
        "671153527476526",
        "6625417631",
    ]


def test_random_play__generator_rejects_a_bad_ply_range():
    with pytest.raises(ValueError, match="0 <= min_plies <= max_plies < 42, got 30, 10"):
        random_play_set.random_positions(seed=0, count=1, min_plies=30, max_plies=10)


def test_random_play__solver_reproduces_a_sample_of_labels_and_scores():
    labels = perfect_play.load_labels(NAME)  # checks every best outcome against the score
    assert labels.title == "Random-Play" and len(labels.moves) == 1000
    assert list(labels.moves) == [p.moves for p in benchmark_sets.load(NAME)]
    for index in range(0, 1000, 200):
        expected = "".join("WDL."[[1, 0, -1, -2].index(o)] for o in labels.outcomes[index])
        assert label_pons.label(labels.moves[index]) == expected
        assert solver.score(labels.moves[index]) == labels.scores[index]


def test_random_play__a_hand_drawn_forced_block():
    assert GAME.to_text(games.replay(GAME, _FORCED_BLOCK)) == _FORCED_BLOCK_PICTURE
    assert not np.asarray(_immediate_win(_states([_FORCED_BLOCK]))).any()  # fits the rule
    assert label_pons.label(_FORCED_BLOCK) == "LLLWLLL"
    assert solver.score(_FORCED_BLOCK) == 15
    # Judged on its own, each of the 7 moves: only column 4 (index 3) is not a mistake.
    position = pons.Position(_FORCED_BLOCK, 15)
    labels = perfect_play.parse_labels(NAME, [position], [f"{_FORCED_BLOCK} LLLWLLL"] * 7)
    mistakes = perfect_play.mistakes(labels, np.arange(7))
    assert mistakes.tolist() == [True, True, True, False, True, True, True]


def test_random_play__judged_by_the_benchmark_like_pons_sets():
    def leftmost(params, key, states):
        del params, key
        return jnp.argmax(jax.vmap(GAME.legal_action_mask)(states), axis=-1).astype(jnp.int32)

    labels = perfect_play.load_labels(NAME).take(64)
    (result,) = perfect_play.benchmark(
        GAME, Agent("leftmost", leftmost), [labels], key=jax.random.key(0), batch_size=32
    )
    leftmost_legal = labels.legal.argmax(axis=1)  # the shipped '.' marks the full columns
    expected = int(perfect_play.mistakes(labels, leftmost_legal).sum())
    assert (result.title, result.positions, result.mistakes) == ("Random-Play", 64, expected)
    assert 0 < expected < 64 and result.as_dict()["set"] == NAME
