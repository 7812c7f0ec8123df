"""The judges' records and the anchor ladder, by hand and on Tic-Tac-Toe."""

import math

import numpy as np
import pytest

from alphazero_jax import configs, games, networks
from alphazero_jax.compare import judges


def test_encode__a_digit_per_item_at_the_measure_scale():
    assert judges.encode([0, 0.5, 0, 1], 2) == "0102"
    assert np.array_equal(judges.decode("0102", 2), [0, 0.5, 0, 1])
    measure = judges.Measure("ladder", "higher", 2, "0102", (("random", 2), ("greedy", 2)))
    assert judges.Measure.from_dict(measure.as_dict()) == measure


def test_ladder_rating__four_wins_against_random_at_zero():
    # fit_one adds one virtual draw: score (4 + 1/2) / 5 = 0.9, 400 log10(0.9 / 0.1) = 381.7.
    measure = judges.Measure("ladder", "higher", 2, "2222", (("random", 4),))
    rating = judges.ladder_rating(measure, {"random": 0.0})
    assert rating.rating == pytest.approx(400 * math.log10(9), abs=0.01)


def test_ladder_rating__half_the_points_against_an_anchor_is_its_rating():
    measure = judges.Measure("ladder", "higher", 2, "2020" + "1111", (("random", 4), ("b", 4)))
    rating = judges.ladder_rating(measure, {"random": 100.0, "b": 100.0})
    assert rating.rating == pytest.approx(100.0, abs=0.01)


def test_default_judges__by_game():
    assert judges.default_judges(games.make("connect_four")) == ("perfect_play",)
    assert judges.default_judges(games.make("tic_tac_toe")) == ("oracle",)
    assert judges.default_judges(games.make("othello", size=6)) == ("ladder",)
    with pytest.raises(ValueError, match="6x7"):
        judges.check_judges(games.make("connect_four", rows=5, cols=6), ["perfect_play"])
    with pytest.raises(ValueError, match="expected some of"):
        judges.check_judges(games.make("tic_tac_toe"), ["elo"])


def test_ladder__a_network_scores_each_anchor_on_the_same_games_every_time():
    game = games.make("tic_tac_toe")
    ratings, results = judges.anchor_ratings(
        game, ["random", "minimax:2"], games_per_pair=8, seed=0
    )
    assert ratings["random"] == 0.0 and ratings["minimax:2"] > 0  # depth 2 beats random
    assert results[0].total.num_games == 8
    apply_fn, variables = networks.make_network(game, channels=8, blocks=1, value_hidden=8)
    search = configs.get_config("tic_tac_toe", "smoke").search.to_dict()
    judge = judges.make_judge(
        game, apply_fn, search, judges=["ladder"], num_simulations=0,
        anchors=["random", "minimax:2"], ladder_games=4,
    )  # fmt: skip
    (measure,) = judge(variables)
    assert measure.groups == (("random", 4), ("minimax:2", 4)) and len(measure.values) == 8
    assert set(measure.values) <= {"0", "1", "2"}
    assert judge(variables) == [measure]  # the same keys: the same games
