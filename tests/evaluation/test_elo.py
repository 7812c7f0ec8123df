"""Elo ratings: hand-computed single-match values and a ladder that recovers known ratings."""

import math

import numpy as np
import pytest

from alphazero_jax.evaluation import elo
from alphazero_jax.evaluation.elo import PairResult

ELO_PER_NATURAL = 400 / math.log(10)  # 173.72 Elo points per unit of log-odds.


# --- expected_score and score_to_difference ------------------------------------------------


def test_expected_score__equal_ratings_score_half():
    assert elo.expected_score(1234.0, 1234.0) == 0.5


def test_expected_score__400_point_gap_gives_ten_to_one_odds():
    assert elo.expected_score(400.0, 0.0) == pytest.approx(10 / 11)
    assert elo.expected_score(0.0, 400.0) == pytest.approx(1 / 11)


def test_expected_score__both_sides_sum_to_one():
    for a, b in [(0.0, 150.0), (-300.0, 700.0), (1000.0, 999.0)]:
        assert elo.expected_score(a, b) + elo.expected_score(b, a) == pytest.approx(1.0)


def test_score_to_difference__inverts_expected_score():
    assert elo.score_to_difference(10 / 11) == pytest.approx(400.0)
    assert elo.score_to_difference(0.5) == 0.0


@pytest.mark.parametrize("score", [0.0, 1.0, -0.1, 1.5])
def test_score_to_difference__rejects_scores_outside_open_interval(score):
    with pytest.raises(ValueError, match=repr(score)):
        elo.score_to_difference(score)


# --- match_rating -----------------------------------------------------------------------------


def test_match_rating__three_wins_one_loss_is_400_log10_3():
    # Score 3/4, odds 3:1, 400 * log10(3) = 190.85.
    rating = elo.match_rating(wins=3, draws=0, losses=1, prior_draws=0)
    assert rating == pytest.approx(190.85, abs=0.01)


def test_match_rating__perfect_score_is_finite_with_one_virtual_draw():
    # 10 wins + half a virtual draw = 10.5 out of 11; odds 10.5 : 0.5 = 21; 400 * log10(21).
    rating = elo.match_rating(wins=10, draws=0, losses=0)
    assert rating == pytest.approx(528.89, abs=0.01)


def test_match_rating__all_losses_mirror_all_wins():
    wins = elo.match_rating(wins=10, draws=0, losses=0)
    losses = elo.match_rating(wins=0, draws=0, losses=10)
    assert losses == pytest.approx(-wins)


def test_match_rating__even_score_equals_opponent():
    assert elo.match_rating(wins=5, draws=0, losses=5) == pytest.approx(0.0)
    assert elo.match_rating(wins=2, draws=6, losses=2, opponent_rating=321.0) == pytest.approx(
        321.0
    )


def test_match_rating__offset_by_opponent_rating():
    rating = elo.match_rating(wins=3, draws=0, losses=1, opponent_rating=1000.0, prior_draws=0)
    assert rating == pytest.approx(1190.85, abs=0.01)


def test_match_rating__draws_count_half():
    # 2 wins, 2 draws, 0 losses: score 3/4, the same as 3 wins 1 loss.
    rating = elo.match_rating(wins=2, draws=2, losses=0, prior_draws=0)
    assert rating == pytest.approx(400 * math.log10(3))


def test_match_rating__perfect_score_without_prior_is_an_error():
    with pytest.raises(ValueError, match="prior_draws"):
        elo.match_rating(wins=4, draws=0, losses=0, prior_draws=0)


def test_match_rating__rejects_negative_counts_and_no_games():
    with pytest.raises(ValueError, match=r"losses.*-1"):
        elo.match_rating(wins=3, draws=0, losses=-1)
    with pytest.raises(ValueError, match="at least one game"):
        elo.match_rating(wins=0, draws=0, losses=0)
    with pytest.raises(ValueError, match=r"prior_draws.*-0\.5"):
        elo.match_rating(wins=1, draws=0, losses=1, prior_draws=-0.5)


def test_match_rating_interval__brackets_the_estimate_and_narrows_with_games():
    few = elo.match_rating_interval(wins=6, draws=2, losses=2, opponent_rating=100.0)
    many = elo.match_rating_interval(wins=600, draws=200, losses=200, opponent_rating=100.0)
    for (low, high), scale in [(few, 1), (many, 100)]:
        estimate = elo.match_rating(
            wins=6 * scale, draws=2 * scale, losses=2 * scale, opponent_rating=100.0
        )
        assert low < estimate < high
    assert many[1] - many[0] < (few[1] - few[0]) / 5


def test_match_rating_interval__even_score_is_symmetric_about_opponent():
    low, high = elo.match_rating_interval(wins=50, draws=0, losses=50, opponent_rating=200.0)
    assert low - 200.0 == pytest.approx(200.0 - high)
    # Wilson at z = 1.96, n = 101, s = 0.5: half-width ~ 1.96 * 0.5 / sqrt(101) ~ 0.0966,
    # so the upper score ~ 0.597 and the difference ~ 400 * log10(0.597 / 0.403) ~ 68.
    assert high - 200.0 == pytest.approx(68.0, abs=2.0)


def test_match_rating_interval__perfect_score_without_prior_clips_at_3600():
    _, high = elo.match_rating_interval(wins=5, draws=0, losses=0, prior_draws=0)
    assert high == pytest.approx(3600.0, abs=0.01)


# --- fit_ladder -------------------------------------------------------------------------------


def _sample_results(true: dict[str, float], num_games: int, seed: int) -> list[PairResult]:
    """Every pair plays ``num_games``; draws are 20% (less where one side is a big favourite)
    and wins/losses split the rest so that the expected score is the logistic one."""
    rng = np.random.default_rng(seed)
    names = list(true)
    results = []
    for i, player in enumerate(names):
        for opponent in names[i + 1 :]:
            score = elo.expected_score(true[player], true[opponent])
            draw = min(0.2, score, 1 - score)
            probs = [score - draw / 2, draw, 1 - score - draw / 2]
            wins, draws, losses = rng.multinomial(num_games, probs)
            results.append(PairResult(player, opponent, int(wins), int(draws), int(losses)))
    return results


TRUE = {"random": 0.0, "a": 150.0, "b": 400.0, "c": 700.0}


@pytest.mark.parametrize("prior_draws", [1.0, 0.0])
def test_fit_ladder__recovers_known_ratings(prior_draws):
    results = _sample_results(TRUE, num_games=4000, seed=0)
    ladder = elo.fit_ladder(results, prior_draws=prior_draws)
    assert [r.name for r in ladder.ratings] == ["c", "b", "a", "random"]
    for rating in ladder.ratings:
        error = abs(rating.rating - TRUE[rating.name])
        assert error < 40.0, rating
        if rating.name == "random":
            assert rating.rating == 0.0 and rating.stderr == 0.0
        else:
            assert error < 3 * rating.stderr, rating
            # One pair of 4000 near-even games alone gives 173.7 / sqrt(4000 / 4) = 5.5.
            assert 2.0 < rating.stderr < 15.0, rating
        assert rating.games == 3 * 4000


def test_fit_ladder__two_players_match_the_closed_form():
    # x scores 30 + 10/2 = 35 out of 50 against random, plus one virtual draw: 35.5 of 51.
    # With two players the likelihood peaks at expected score S / n exactly.
    results = [PairResult("random", "x", wins=10, draws=10, losses=30)]
    ladder = elo.fit_ladder(results)
    score, num_games = 35.5, 51
    expected = 400 * math.log10(score / (num_games - score))  # 400 * log10(2.290) = 143.96
    assert ladder.as_dict() == pytest.approx({"x": expected, "random": 0.0})
    assert ladder.as_dict()["x"] == pytest.approx(143.96, abs=0.01)
    assert ladder.as_dict()["x"] == pytest.approx(elo.match_rating(wins=30, draws=10, losses=10))
    # Observed information n p (1 - p) in log-odds units.
    p = score / num_games
    stderr = ELO_PER_NATURAL / math.sqrt(num_games * p * (1 - p))
    assert ladder.ratings[0].stderr == pytest.approx(stderr, rel=1e-6)


def test_fit_ladder__results_for_one_pair_add_up_in_either_direction():
    split = [
        PairResult("x", "random", wins=20, draws=4, losses=6),
        PairResult("random", "x", wins=4, draws=6, losses=10),
    ]
    whole = [PairResult("x", "random", wins=30, draws=10, losses=10)]
    assert elo.fit_ladder(split).as_dict() == pytest.approx(elo.fit_ladder(whole).as_dict())


def test_fit_ladder__perfect_scores_stay_finite_and_ordered():
    results = [
        PairResult("a", "random", wins=20, draws=0, losses=0),
        PairResult("b", "a", wins=20, draws=0, losses=0),
    ]
    ladder = elo.fit_ladder(results)
    assert [r.name for r in ladder.ratings] == ["b", "a", "random"]
    assert all(math.isfinite(r.rating) and math.isfinite(r.stderr) for r in ladder.ratings)
    # Each step is close to the one-match value 400 * log10(20.5 / 0.5) = 645.
    gaps = np.diff([r.rating for r in reversed(ladder.ratings)])
    assert gaps == pytest.approx([645.1, 645.1], abs=60.0)


def test_fit_ladder__perfect_score_without_prior_does_not_converge():
    results = [PairResult("a", "random", wins=20, draws=0, losses=0)]
    with pytest.raises(ValueError, match="prior_draws"):
        elo.fit_ladder(results, prior_draws=0)


def test_fit_ladder__anchor_rating_shifts_everything():
    results = _sample_results(TRUE, num_games=200, seed=1)
    base = elo.fit_ladder(results).as_dict()
    shifted = elo.fit_ladder(results, anchor="a", anchor_rating=1000.0).as_dict()
    for name in TRUE:
        assert shifted[name] == pytest.approx(base[name] - base["a"] + 1000.0, abs=1e-6)


def test_fit_ladder__fixed_ratings_are_kept_and_unplayed_names_ignored():
    results = [
        PairResult("new", "old1", wins=3, draws=0, losses=1),
        PairResult("new", "old2", wins=1, draws=0, losses=3),
    ]
    fixed = {"old1": 100.0, "old2": 500.0, "never_played": 9999.0}
    ladder = elo.fit_ladder(results, fixed=fixed, prior_draws=0, anchor="ignored")
    ratings = {r.name: r for r in ladder.ratings}
    assert set(ratings) == {"new", "old1", "old2"}
    assert ratings["old1"][1:3] == (100.0, 0.0) and ratings["old2"][1:3] == (500.0, 0.0)
    # Symmetric scores 3/4 above 100 and 1/4 below 500: the midpoint, 300.
    assert ratings["new"].rating == pytest.approx(300.0)
    assert ratings["new"].stderr > 0


def test_fit_one__score_three_quarters_against_one_opponent():
    results = [PairResult("net", "old", wins=3, draws=0, losses=1)]
    rating = elo.fit_one(results, fixed={"old": 200.0}, prior_draws=0)
    assert rating.name == "net" and rating.games == 4
    assert rating.rating == pytest.approx(200.0 + 190.85, abs=0.01)


def test_fit_one__rejects_unknown_opponent_and_several_players():
    with pytest.raises(ValueError, match="'other'"):
        elo.fit_one([PairResult("net", "other", 1, 0, 1)], fixed={"old": 0.0})
    with pytest.raises(ValueError, match="'a', 'b'"):
        elo.fit_one(
            [PairResult("a", "old", 1, 0, 1), PairResult("b", "old", 1, 0, 1)],
            fixed={"old": 0.0},
        )


def test_ladder__table_lists_rank_name_rating_stderr_games():
    ladder = elo.Ladder(
        (elo.Rating("alpha", 612.4, 11.6, 300), elo.Rating("random", 0.0, 0.0, 100))
    )
    assert ladder.to_table().splitlines() == [
        "rank  name    rating    ±  games",
        "   1  alpha      612  ±12    300",
        "   2  random       0   ±0    100",
    ]


# --- fit_ladder errors ------------------------------------------------------------------------


def test_fit_ladder__empty_results_is_an_error():
    with pytest.raises(ValueError, match="empty"):
        elo.fit_ladder([])


def test_fit_ladder__unknown_anchor_lists_the_players():
    results = [PairResult("a", "b", 1, 0, 1)]
    with pytest.raises(ValueError, match=r"'random'.*\['a', 'b'\].*anchor=.*fixed="):
        elo.fit_ladder(results)


def test_fit_ladder__disconnected_agents_are_named():
    results = [PairResult("a", "random", 1, 0, 1), PairResult("x", "y", 2, 0, 1)]
    with pytest.raises(ValueError, match=r"\['x', 'y'\]"):
        elo.fit_ladder(results)


def test_fit_ladder__fixed_names_that_never_played_leave_everyone_unrated():
    with pytest.raises(ValueError, match=r"\['a', 'b'\].*none"):
        elo.fit_ladder([PairResult("a", "b", 1, 0, 1)], fixed={"c": 0.0})


def test_fit_ladder__negative_counts_are_an_error():
    with pytest.raises(ValueError, match=r"'a' vs 'random'.*draws.*-2"):
        elo.fit_ladder([PairResult("a", "random", 1, -2, 1)])


def test_fit_ladder__self_play_is_an_error():
    with pytest.raises(ValueError, match=r"'a' vs 'a'.*itself"):
        elo.fit_ladder([PairResult("a", "random", 1, 0, 1), PairResult("a", "a", 1, 0, 1)])
