"""The statistics of a comparison: intervals over seeds and positions, and a paired test.

Every measurement of a checkpoint is a row of per-item values (one per judged position or
game): 1/0 for a mistake or an optimal move, 0, 1/2 or 1 for a game's score. An arm's
figure at a point of its curve is the mean over its seeds' rows, float[S, N].

- **Interval** (``bootstrap_interval``): a two-level (cluster) percentile bootstrap over
  seeds and positions: each resample draws S seeds with replacement, then N items with
  replacement within each drawn seed, and takes the mean; the interval is the 2.5 and
  97.5 percentiles of ``resamples`` such means (fixed generator seed: the same numbers give
  the same interval). With one seed it is the bootstrap over positions alone; it widens
  with the spread between seeds, which a pooled binomial interval would ignore.
- **Paired test** (``sign_test``): two arms judged on the same items (the same positions,
  or the same games: the same anchor, opening and colours) of the same seeds. Only the
  items where they differ count; under no difference each goes either way with
  probability 1/2, and the exact two-sided binomial p-value is McNemar's exact test
  (for 0/1 items; ``perfect_play.mcnemar_p``), the sign test for scores. The paired
  difference gets the same bootstrap interval as above, on the per-item differences.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from alphazero_jax.evaluation.perfect_play import mcnemar_p


def _rows(values) -> np.ndarray:
    rows = np.asarray(values, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[0] < 1 or rows.shape[1] < 1:
        raise ValueError(f"expected values of shape [seeds, items], both >= 1; got {rows.shape}.")
    return rows


def bootstrap_means(values, *, resamples: int = 2000, seed: int = 0) -> np.ndarray:
    """float[resamples]: means of ``values`` (float[S, N]) resampled over seeds, then items
    within each drawn seed (see the module's docstring)."""
    rows = _rows(values)
    num_seeds, num_items = rows.shape
    rng = np.random.default_rng(seed)
    picked = rng.integers(num_seeds, size=(resamples, num_seeds))
    totals = np.zeros(resamples)
    for index, row in enumerate(rows):  # an item's value drawn N times: a multinomial
        levels, counts = np.unique(row, return_counts=True)
        draws = np.count_nonzero(picked == index, axis=1)  # how often each resample drew it
        counted = rng.multinomial(num_items, counts / num_items, size=int(draws.sum()))
        np.add.at(totals, np.repeat(np.arange(resamples), draws), counted @ levels)
    return totals / (num_seeds * num_items)


def bootstrap_interval(
    values, *, confidence: float = 0.95, resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """The percentile interval of the mean of ``values`` (float[S, N]) by the bootstrap over
    seeds and items; e.g. one seed with items ``[0, 1]`` gives ``(0.0, 1.0)``."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}.")
    means = bootstrap_means(values, resamples=resamples, seed=seed)
    tail = (1.0 - confidence) / 2
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return float(low), float(high)


class PairedResult(NamedTuple):
    """Arm B against arm A on the same items.

    Attributes:
      difference: mean of B minus mean of A.
      interval: the bootstrap interval of ``difference`` (95%).
      a_higher: items where A's value is the higher.
      b_higher: items where B's value is the higher.
      p_value: the exact two-sided sign (McNemar) test of ``a_higher`` against ``b_higher``.
      items: the paired items, seeds x items per seed.
    """

    difference: float
    interval: tuple[float, float]
    a_higher: int
    b_higher: int
    p_value: float
    items: int


def sign_test(a_higher: int, b_higher: int) -> float:
    """The exact two-sided p-value of ``a_higher`` against ``b_higher`` discordant pairs
    (each 1/2 under no difference): e.g. 1 against 5 gives 14/64 = 0.21875."""
    return mcnemar_p(a_higher, b_higher)


def paired(values_a, values_b, *, resamples: int = 2000, seed: int = 0) -> PairedResult:
    """B against A, each float[S, N] over the same seeds and items (see the module)."""
    a, b = _rows(values_a), _rows(values_b)
    if a.shape != b.shape:
        raise ValueError(f"paired: expected the same seeds and items, got {a.shape} and {b.shape}.")
    a_higher, b_higher = int(np.count_nonzero(a > b)), int(np.count_nonzero(b > a))
    return PairedResult(
        difference=float(b.mean() - a.mean()),
        interval=bootstrap_interval(b - a, resamples=resamples, seed=seed),
        a_higher=a_higher,
        b_higher=b_higher,
        p_value=sign_test(a_higher, b_higher),
        items=a.size,
    )
