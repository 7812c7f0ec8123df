"""The comparison's statistics on numbers worked by hand."""

import math

import numpy as np
import pytest

from alphazero_jax.compare import stats
from alphazero_jax.evaluation import elo


def test_sign_test__one_against_five_is_fourteen_in_sixty_four():
    # Six discordant pairs; P(X <= 1) for X ~ Binomial(6, 1/2) is (1 + 6) / 64; twice that.
    assert stats.sign_test(1, 5) == pytest.approx(14 / 64)
    assert stats.sign_test(5, 1) == pytest.approx(14 / 64)


def test_sign_test__no_discordant_pair_is_no_evidence_and_all_one_way_is_two_to_the_minus_n():
    assert stats.sign_test(0, 0) == 1.0
    assert stats.sign_test(0, 10) == pytest.approx(2 / 1024)  # 2 x (1/2)^10


def test_bootstrap_interval__one_seed_of_two_positions_spans_zero_to_one():
    # The mean of two draws from {0, 1} is 0, 1/2 or 1 with chances 1/4, 1/2, 1/4: both
    # the 2.5th and the 97.5th percentiles are at the ends.
    assert stats.bootstrap_interval([[0, 1]]) == (0.0, 1.0)


def test_bootstrap_interval__the_spread_between_seeds_counts():
    # Each seed's positions are all alike, so only drawing the seeds varies: with two
    # seeds, 0, 1/2 or 1 again. A pooled binomial interval of the 6 values would be narrower.
    assert stats.bootstrap_interval([[0, 0, 0], [1, 1, 1]]) == (0.0, 1.0)
    low, high = elo.wilson_interval(0.5, 6)
    assert 0.0 < low and high < 1.0


def test_bootstrap_interval__equal_values_have_no_width():
    assert stats.bootstrap_interval([[0.25] * 4, [0.25] * 4]) == pytest.approx((0.25, 0.25))


def test_bootstrap_interval__covers_a_binomial_rate_as_wilson_does():
    # 100 positions, 20 mistakes: Wilson's 95% interval is [0.133, 0.289]; the bootstrap
    # over positions is close to the normal one, 0.2 +- 1.96 x 0.04 = [0.122, 0.278].
    values = [[1] * 20 + [0] * 80]
    low, high = stats.bootstrap_interval(values)
    assert low == pytest.approx(0.122, abs=0.02) and high == pytest.approx(0.278, abs=0.02)
    assert elo.wilson_interval(0.2, 100) == pytest.approx((0.1333, 0.2888), abs=1e-4)


def test_paired__counts_the_discordant_positions_of_the_same_seeds():
    a = np.array([[1, 1, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0]])  # mistakes of arm A
    b = np.array([[0, 0, 1, 0, 0, 1], [0, 0, 0, 0, 0, 0]])  # B fixed 3, broke 1
    result = stats.paired(a, b)
    assert (result.a_higher, result.b_higher) == (3, 1)
    assert result.p_value == pytest.approx(2 * (1 + 4) / 16)  # 2 P(X <= 1), X ~ Bin(4, 1/2)
    assert result.difference == pytest.approx((2 - 4) / 12)
    assert result.interval[0] <= result.difference <= result.interval[1]
    assert result.items == 12


def test_paired__refuses_rows_of_other_shapes():
    with pytest.raises(ValueError, match="same seeds and items"):
        stats.paired([[0, 1]], [[0, 1, 1]])
    with pytest.raises(ValueError, match=r"shape \[seeds, items\]"):
        stats.bootstrap_interval([0, 1])


def test_bootstrap_means__are_reproducible_and_average_the_data():
    rows = np.array([[0, 1, 1, 1], [0, 0, 1, 0]], float)
    first, second = stats.bootstrap_means(rows), stats.bootstrap_means(rows)
    assert np.array_equal(first, second)
    assert math.isclose(first.mean(), rows.mean(), abs_tol=0.02)
