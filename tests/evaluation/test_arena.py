"""Agent specs and the arena: colours alternate, results are counted per colour, matches
replay from their key, and a trained run plays as ``az:<run>[:sims]``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alphazero_jax import agents, configs, games
from alphazero_jax.evaluation import arena
from alphazero_jax.training import train
from alphazero_jax.types import Agent


def _lowest_legal(name):
    def act_fn(params, key, states):
        del params, key
        return jnp.argmax(jax.vmap(games.make("tic_tac_toe").legal_action_mask)(states), axis=-1)

    return Agent(name, act_fn)


def test_arena__colours_alternate_and_are_counted_separately():
    # Both play the lowest free cell: X takes 0, 2, 4, 6 and wins on the 2-4-6 diagonal at
    # move 7, so whoever moves first wins every game.
    game = games.make("tic_tac_toe")
    result = arena.play(
        game, _lowest_legal("a"), _lowest_legal("b"), num_games=10, key=jax.random.key(0)
    )
    assert result.as_first == arena.Record(5, 0, 0)
    assert result.as_second == arena.Record(0, 0, 5)
    assert result.total == arena.Record(5, 0, 5) and result.score == 0.5
    assert result.mean_length == 7


def test_arena__random_openings_are_shared_by_the_colour_swapped_pair():
    # All nine plies random: game i is the same game in both halves, so what A wins moving
    # first it loses moving second, and the games vary.
    game = games.make("tic_tac_toe")
    result = arena.play(
        game,
        _lowest_legal("a"),
        _lowest_legal("b"),
        num_games=200,
        key=jax.random.key(0),
        opening_moves=9,
    )
    first, second = result.as_first, result.as_second
    assert (first.wins, first.draws, first.losses) == (second.losses, second.draws, second.wins)
    assert 0 < first.wins < 100 and first.draws > 0
    assert result.score == 0.5


def test_arena__same_key_same_games_and_batches_add_up():
    game = games.make("connect_four")
    random, greedy = agents.from_spec(game, "random"), agents.from_spec(game, "greedy")
    one = arena.play(game, greedy, random, num_games=16, key=jax.random.key(3))
    again = arena.play(game, greedy, random, num_games=16, key=jax.random.key(3))
    assert one == again
    batched = arena.play(game, greedy, random, num_games=16, key=jax.random.key(3), batch_size=8)
    assert batched.total.num_games == 16
    assert batched.as_first.num_games == batched.as_second.num_games == 8


def test_arena__a_held_match_compiles_once_per_batch_size_and_replays_the_same_games():
    game = games.make("tic_tac_toe")
    greedy, random = agents.from_spec(game, "greedy"), agents.from_spec(game, "random")
    match = arena.make_match(game, greedy.act_fn, random.act_fn)
    held = [
        arena.play(game, greedy, random, num_games=8, key=jax.random.key(seed), match=match)
        for seed in (0, 1, 0)
    ]
    assert match.run._cache_size() == 1 and held[0] == held[2]
    assert held[0] == arena.play(game, greedy, random, num_games=8, key=jax.random.key(0))
    arena.play(game, greedy, random, num_games=8, key=jax.random.key(0), batch_size=4, match=match)
    assert match.run._cache_size() == 2
    with pytest.raises(ValueError, match="made for other agents"):
        arena.play(game, random, greedy, num_games=8, key=jax.random.key(0), match=match)


def test_arena__score_interval_brackets_the_score():
    result = arena.MatchResult(
        "a", "b", arena.Record(30, 10, 10), arena.Record(15, 5, 5), arena.Record(15, 5, 5), 20.0
    )
    low, high = result.interval()
    assert result.score == 0.7 and low < 0.7 < high
    assert result.pair_result() == ("a", "b", 30, 10, 10)


@pytest.mark.parametrize(
    ("num_games", "batch_size", "message"),
    [(7, None, "even int"), (0, None, "even int"), (8, 3, "even int"), (12, 8, "must divide")],
)
def test_arena__rejects_bad_game_counts(num_games, batch_size, message):
    game = games.make("tic_tac_toe")
    random = agents.from_spec(game, "random")
    with pytest.raises(ValueError, match=message):
        arena.play(
            game, random, random, num_games=num_games, key=jax.random.key(0), batch_size=batch_size
        )


def test_agents__random_is_uniform_over_legal_moves():
    game = games.make("connect_four")
    states = games.replay_batch(game, [game.actions_from_text("4444")] * 7000)
    moves = np.asarray(agents.from_spec(game, "random").act(jax.random.key(0), states))
    counts = np.bincount(moves, minlength=7)
    assert counts.sum() == 7000 and np.all(np.abs(counts - 1000) < 150), counts


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("random", "random"),
        ("greedy", "greedy"),
        ("minimax:3", "minimax:3"),
        ("mcts:50", "mcts:50"),
        ("tdmcts:50", "tdmcts:50"),
        ("tdmcts:50:c=0.25:floor=0.0005", "tdmcts:50:c=0.25:floor=0.0005"),
    ],
)
def test_agents__specs_build_named_agents(spec, name):
    assert agents.from_spec(games.make("connect_four"), spec).name == name


@pytest.mark.parametrize(
    "spec",
    ["", "alphabeta:3", "minimax", "minimax:0", "minimax:x", "mcts:-1", "random:2", "az:", 7],
)
def test_agents__bad_specs_list_the_valid_ones(spec):
    with pytest.raises(ValueError, match=r"minimax:<depth>|az:<run"):
        agents.from_spec(games.make("connect_four"), spec)


def test_agents__az_plays_a_trained_run_with_search_or_raw_policy(tmp_path):
    config = configs.get_config("tic_tac_toe", "smoke")
    config.num_iterations = 2
    workdir = str(tmp_path / "run")
    train.train_and_evaluate(config, workdir)
    game = games.make("tic_tac_toe")
    searched = agents.from_spec(game, f"az:{workdir}")
    raw = agents.from_spec(game, f"az:{workdir}/checkpoints/2:0")
    assert searched.name == f"az:{workdir}:{config.search.num_simulations}"
    assert raw.name.endswith(":0")
    result = arena.play(game, searched, raw, num_games=4, key=jax.random.key(0))
    assert result.total.num_games == 4
    with pytest.raises(ValueError, match="trained on tic_tac_toe"):
        agents.from_spec(games.make("connect_four"), f"az:{workdir}")
    with pytest.raises(ValueError, match=r"expected a training run directory.*no training run"):
        agents.from_spec(game, f"az:{tmp_path}/missing")
