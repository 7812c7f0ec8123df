"""Elo ratings from game results: a single-match estimate and a maximum-likelihood ladder.

Two tools:

- ``match_rating`` (and ``match_rating_interval``): the rating of one agent from its score
  in a single match against an opponent of known rating, as in AlphaGo Zero-style gating
  reports.
- ``fit_ladder`` (and ``fit_one``): a Bradley-Terry maximum-likelihood fit of the ratings
  of any set of agents from all their pairwise results, with standard errors.

Conventions: the base-10 logistic with a 400-point scale, so an agent rated ``d`` points
above its opponent is expected to score ``1 / (1 + 10 ** (-d / 400))`` (a 400-point gap
gives 10/11); a draw counts as half a win and half a loss; ratings are only defined up to
a constant, so the ladder anchors one agent (by default ``"random"`` at 0) or takes a set
of agents with known ratings (``fixed``). Both estimators add ``prior_draws`` virtual draws
(BayesElo-style) so that a side that won or lost every game still gets a finite rating.
"""

from __future__ import annotations

import math
import numbers
import statistics
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

# One Elo point in natural (log-odds) units: p = sigmoid(NATURAL * (r_i - r_j)).
NATURAL = math.log(10.0) / 400.0
_CLIP = 1e-9  # Scores are clipped to (_CLIP, 1 - _CLIP) before mapping intervals.


def expected_score(rating: float, opponent_rating: float) -> float:
    """The expected score (win 1, draw 1/2) of ``rating`` against ``opponent_rating``."""
    return 1.0 / (1.0 + 10.0 ** ((opponent_rating - rating) / 400.0))


def score_to_difference(score: float) -> float:
    """The rating difference ``400 * log10(s / (1 - s))`` that makes ``s`` the expected score.

    Args:
      score: ``s``, an expected score strictly inside (0, 1).

    Returns:
      The rating of the scorer minus that of its opponent, in Elo points.
    """
    if not 0.0 < score < 1.0:
        raise ValueError(
            f"score must lie strictly between 0 and 1 (a score of 0 or 1 means an infinite "
            f"difference), got {score!r}."
        )
    return 400.0 * math.log10(score / (1.0 - score))


def _check_counts(wins: int, draws: int, losses: int, where: str) -> None:
    for label, value in (("wins", wins), ("draws", draws), ("losses", losses)):
        if not isinstance(value, numbers.Integral) or value < 0:
            raise ValueError(f"{where}: {label} must be a non-negative int, got {value!r}.")


def _check_prior(prior_draws: float) -> None:
    if not prior_draws >= 0.0:
        raise ValueError(f"prior_draws must be >= 0, got {prior_draws!r}.")


def _match_score(wins: int, draws: int, losses: int, prior_draws: float) -> tuple[float, float]:
    """The prior-adjusted score and number of games of one match, validated."""
    _check_counts(wins, draws, losses, "match")
    _check_prior(prior_draws)
    num_games = wins + draws + losses
    if num_games < 1:
        raise ValueError("match: expected at least one game, got wins = draws = losses = 0.")
    total = num_games + prior_draws
    return (wins + draws / 2 + prior_draws / 2) / total, total


def match_rating(
    *,
    wins: int,
    draws: int,
    losses: int,
    opponent_rating: float = 0.0,
    prior_draws: float = 1.0,
) -> float:
    """The rating implied by one match's score against an opponent of known rating.

    The score is ``s = (wins + draws/2 + prior_draws/2) / (n + prior_draws)`` with ``n`` the
    number of games: the ``prior_draws`` virtual draws keep the rating finite when a side
    scores 0 or 1. E.g. 10 wins out of 10 with one virtual draw give
    ``400 * log10(10.5 / 0.5) = +528.9`` above the opponent.

    Args:
      wins: games the rated agent won.
      draws: games drawn.
      losses: games the rated agent lost.
      opponent_rating: the opponent's known rating.
      prior_draws: number of virtual draws added (>= 0; 0 gives the plain score, which
        must then not be 0 or 1).

    Returns:
      ``opponent_rating + score_to_difference(s)``.
    """
    score, _ = _match_score(wins, draws, losses, prior_draws)
    if score in (0.0, 1.0):
        raise ValueError(
            f"match: a score of {score:g} ({wins} wins, {draws} draws, {losses} losses) with "
            f"prior_draws=0 has no finite rating; pass prior_draws > 0 (e.g. 1)."
        )
    return opponent_rating + score_to_difference(score)


def wilson_interval(
    score: float, num_games: float, *, confidence: float = 0.95
) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``score`` observed over ``num_games``.

    Used for match scores with a draw counted as half a win, which treats every game as a
    coin flip: draws make the true spread smaller, so the interval errs on the wide side.

    Args:
      score: the observed proportion in [0, 1].
      num_games: the number of trials (> 0; fractional virtual games allowed).
      confidence: the coverage, strictly inside (0, 1).

    Returns:
      ``(low, high)`` inside [0, 1].
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}.")
    if not num_games > 0:
        raise ValueError(f"num_games must be > 0, got {num_games!r}.")
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    shrink = 1.0 + z * z / num_games
    center = (score + z * z / (2 * num_games)) / shrink
    half = z / shrink * math.sqrt(score * (1 - score) / num_games + z * z / (4 * num_games**2))
    return max(center - half, 0.0), min(center + half, 1.0)


def match_rating_interval(
    *,
    wins: int,
    draws: int,
    losses: int,
    opponent_rating: float = 0.0,
    prior_draws: float = 1.0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """A confidence interval for ``match_rating``: a Wilson score interval mapped to Elo.

    The Wilson interval is taken for the prior-adjusted score over ``n + prior_draws``
    games, treating each game as a coin flip; draws make the true spread smaller, so the
    interval errs on the wide side. Its ends are clipped to ``(1e-9, 1 - 1e-9)`` and mapped
    through ``score_to_difference``; with ``prior_draws=0`` and a perfect score the upper
    end is therefore the clip, ``400 * log10(1e9) = +3600``.

    Args:
      wins, draws, losses, opponent_rating, prior_draws: as for ``match_rating``.
      confidence: the coverage, strictly inside (0, 1).

    Returns:
      ``(low, high)`` ratings.
    """
    score, total = _match_score(wins, draws, losses, prior_draws)
    bounds = wilson_interval(score, total, confidence=confidence)
    low, high = (min(max(s, _CLIP), 1 - _CLIP) for s in bounds)
    return opponent_rating + score_to_difference(low), opponent_rating + score_to_difference(high)


class PairResult(NamedTuple):
    """The games between two agents, counted from ``player``'s point of view."""

    player: str
    opponent: str
    wins: int
    draws: int
    losses: int


class Rating(NamedTuple):
    """One agent's fitted rating."""

    name: str
    rating: float  # Elo points.
    stderr: float  # Elo points; 0 for an agent whose rating was fixed.
    games: int  # Games this agent played, virtual draws excluded.


class Ladder(NamedTuple):
    """The ratings of every agent that played, as returned by ``fit_ladder``."""

    ratings: tuple[Rating, ...]  # Best first.

    def as_dict(self) -> dict[str, float]:
        """``{name: rating}``, best first."""
        return {r.name: r.rating for r in self.ratings}

    def to_table(self) -> str:
        """A plain-text table: rank, name, rating and stderr (rounded), games."""
        header = ("rank", "name", "rating", "±", "games")
        rows = [
            (str(rank), r.name, f"{r.rating:.0f}", f"±{r.stderr:.0f}", str(r.games))
            for rank, r in enumerate(self.ratings, start=1)
        ]
        widths = [max(len(row[k]) for row in [header, *rows]) for k in range(len(header))]
        lines = [
            "  ".join(
                cell.ljust(w) if k == 1 else cell.rjust(w)
                for k, (cell, w) in enumerate(zip(row, widths))
            )
            for row in [header, *rows]
        ]
        return "\n".join(line.rstrip() for line in lines)


def _tabulate(results: Sequence[PairResult]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Names (first appearance order), scores ``S[i, j]`` and games ``N[i, j]`` (real ones)."""
    if not results:
        raise ValueError("results is empty; expected at least one PairResult.")
    names: list[str] = []
    for result in results:
        for name in (result.player, result.opponent):
            if name not in names:
                names.append(name)
    index = {name: i for i, name in enumerate(names)}
    scores = np.zeros((len(names), len(names)))
    for result in results:
        where = f"PairResult({result.player!r} vs {result.opponent!r})"
        _check_counts(result.wins, result.draws, result.losses, where)
        if result.player == result.opponent:
            raise ValueError(f"{where}: an agent cannot play itself; drop this result.")
        i, j = index[result.player], index[result.opponent]
        scores[i, j] += result.wins + result.draws / 2
        scores[j, i] += result.losses + result.draws / 2
    return names, scores, scores + scores.T


def _check_connected(names: list[str], games: np.ndarray, fixed: np.ndarray) -> None:
    """Raises if some agent is not linked through played games to a fixed agent."""
    reached = fixed.copy()
    frontier = fixed.copy()
    while frontier.any():
        frontier = (games[frontier] > 0).any(axis=0) & ~reached
        reached |= frontier
    if not reached.all():
        lost = [name for name, ok in zip(names, reached) if not ok]
        known = [name for name, ok in zip(names, fixed) if ok] or "none"
        raise ValueError(
            f"Agents {lost} have no chain of games to an agent of known rating (fixed or "
            f"anchored: {known}), so their ratings are undefined; add games linking them, or "
            f"fix one of them with fixed= or anchor=."
        )


def _log_likelihood(
    theta: np.ndarray, scores: np.ndarray, games: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-likelihood, gradient and Hessian of natural-unit ratings ``theta``."""
    gap = theta[:, None] - theta[None, :]
    log_p, log_q = -np.logaddexp(0.0, -gap), -np.logaddexp(0.0, gap)  # q = 1 - p.
    p, q = np.exp(log_p), np.exp(log_q)
    # S_ij q_ij - S_ji p_ij is S_ij - N_ij p_ij, without cancellation when p_ij ~ 1.
    grad = (scores * q - scores.T * p).sum(axis=1)
    weight = games * np.exp(log_p + log_q)
    hessian = weight - np.diag(weight.sum(axis=1))
    return float((scores * log_p).sum()), grad, hessian


def _newton(
    theta: np.ndarray,
    free: np.ndarray,
    scores: np.ndarray,
    games: np.ndarray,
    *,
    max_iterations: int,
    tolerance: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Maximises the likelihood over ``theta[free]``; returns it and the free covariance."""
    value, grad, hessian = _log_likelihood(theta, scores, games)
    step = np.full(1, np.inf)
    for _ in range(max_iterations):
        try:
            step = np.linalg.solve(-hessian[np.ix_(free, free)], grad[free])
        except np.linalg.LinAlgError:  # Some p(1 - p) underflowed: ratings ran away.
            break
        for _ in range(60):  # Step halving: the likelihood is concave, so this terminates.
            trial = theta.copy()
            trial[free] += step
            new = _log_likelihood(trial, scores, games)
            if new[0] >= value - 1e-12 * max(1.0, abs(value)):
                break
            step = step / 2
        theta, (value, grad, hessian) = trial, new
        if np.abs(step).max() / NATURAL < tolerance:
            return theta, np.linalg.inv(-hessian[np.ix_(free, free)])
    raise ValueError(
        f"The ratings did not converge in max_iterations={max_iterations} (last step "
        f"{np.abs(step).max() / NATURAL:.3g} Elo). This happens when prior_draws=0 and some "
        f"agents won or lost all their games (their ratings are infinite); pass "
        f"prior_draws > 0 or raise max_iterations."
    )


def fit_ladder(
    results: Sequence[PairResult],
    *,
    anchor: str = "random",
    anchor_rating: float = 0.0,
    fixed: Mapping[str, float] | None = None,
    prior_draws: float = 1.0,
    max_iterations: int = 100,
    tolerance: float = 1e-9,
) -> Ladder:
    """Maximum-likelihood (Bradley-Terry) Elo ratings of every agent in ``results``.

    A pair ``(i, j)`` whose games give ``i`` a score ``S`` (wins + draws/2) out of ``n``
    contributes ``S log p + (n - S) log(1 - p)``, ``p = expected_score(r_i, r_j)``; several
    results for the same pair add up. Each pair that met also gets ``prior_draws`` virtual
    draws (BayesElo-style), which keeps the ratings finite when one side won every game.
    The free ratings are found by Newton's method with step halving; their standard errors
    come from the inverse of the observed information (negative Hessian) at the optimum.

    Args:
      results: the games, any number of ``PairResult`` per pair, in either direction.
      anchor: the agent held at ``anchor_rating`` when ``fixed`` is None.
      anchor_rating: the anchor's rating.
      fixed: ``{name: rating}`` of agents whose ratings are known and kept; if given,
        ``anchor`` is ignored. Names that never played are ignored.
      prior_draws: virtual draws added to every pair that met (>= 0).
      max_iterations: Newton iterations allowed.
      tolerance: stop when the largest step is below this many Elo points.

    Returns:
      The ``Ladder``, best first; fixed agents have stderr 0.
    """
    _check_prior(prior_draws)
    if max_iterations < 1 or not tolerance > 0:
        raise ValueError(
            f"Expected max_iterations >= 1 and tolerance > 0, got {max_iterations} and {tolerance}."
        )
    names, scores, games = _tabulate(results)
    if fixed is None:
        if anchor not in names:
            raise ValueError(
                f"anchor {anchor!r} is not among the players {names}; pass anchor=<one of "
                f"them>, or fixed={{name: rating}} for agents of known rating."
            )
        fixed = {anchor: anchor_rating}
    bad = {name: value for name, value in fixed.items() if not math.isfinite(value)}
    if bad:
        raise ValueError(f"fixed ratings must be finite numbers, got {bad}.")
    is_fixed = np.array([name in fixed for name in names])
    _check_connected(names, games, is_fixed)
    met = games > 0
    theta = np.array([fixed.get(name, 0.0) for name in names]) * NATURAL
    theta[~is_fixed] = theta[is_fixed].mean()
    stderr = np.zeros(len(names))
    if (~is_fixed).any():
        theta, covariance = _newton(
            theta,
            ~is_fixed,
            scores + met * prior_draws / 2,
            games + met * prior_draws,
            max_iterations=max_iterations,
            tolerance=tolerance,
        )
        stderr[~is_fixed] = np.sqrt(np.diag(covariance)) / NATURAL
    ratings = [
        Rating(name, float(t / NATURAL), float(e), round(n))
        for name, t, e, n in zip(names, theta, stderr, games.sum(axis=1))
    ]
    return Ladder(tuple(sorted(ratings, key=lambda r: (-r.rating, r.name))))


def fit_one(
    results: Sequence[PairResult], *, fixed: Mapping[str, float], prior_draws: float = 1.0
) -> Rating:
    """The rating of one new agent, the ``player`` of every result, against known opponents.

    Args:
      results: the new agent's games; every ``player`` is the new agent and every
        ``opponent`` has a rating in ``fixed``.
      fixed: ``{name: rating}`` of the opponents.
      prior_draws: virtual draws added per opponent, as in ``fit_ladder``.

    Returns:
      The new agent's ``Rating``.
    """
    players = sorted({result.player for result in results})
    if len(players) != 1:
        raise ValueError(f"fit_one expects one player in every result, got {players}.")
    (player,) = players
    if player in fixed:
        raise ValueError(f"{player!r} already has a rating in fixed; remove it to rate it.")
    unknown = sorted({r.opponent for r in results} - set(fixed))
    if unknown:
        raise ValueError(f"Opponents {unknown} have no rating in fixed; add them to fixed.")
    ladder = fit_ladder(results, fixed=fixed, prior_draws=prior_draws)
    return next(rating for rating in ladder.ratings if rating.name == player)
