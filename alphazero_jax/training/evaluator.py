"""Evaluation during training: Elo against fixed baselines and earlier networks, and gating.

The baselines (``random``, ``greedy``, ``minimax:2`` ...) are rated once, by a round robin
among themselves anchored at ``random = 0``. At each evaluation the current network plays
every baseline and the last few evaluated networks, whose ratings are then known too, and
its rating is the maximum-likelihood fit against those fixed ratings (``elo.fit_one``).

Gating, off by default, decides whether new parameters replace the ones self-play uses:
``win_ratio`` (the candidate's wins >= threshold x the best network's wins; 1.3 unless
set, a little stricter than the 55% of games Silver et al. (2017) asked of AlphaGo Zero's
candidates, which is 1.22) or ``score`` (its score >= threshold; 0.55 unless set), over a
match between the two.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

import jax

from alphazero_jax import agents
from alphazero_jax.evaluation import arena, elo, perfect_play, tournament
from alphazero_jax.evaluation.gating import GATING_RULES, passes
from alphazero_jax.types import Agent, Game, PRNGKey


class Evaluator(NamedTuple):
    """What an evaluation needs, built once per run and holding its jitted matches, so
    that each match compiles once per run."""

    game: Game
    network_act_fn: Callable  # (variables, key, states) -> actions
    baselines: tuple[Agent, ...]
    num_games: int
    anchor: str
    opening_moves: int
    # The jitted matches: the network against each baseline (in order), and against
    # another network (earlier ones, and the best one when gating).
    baseline_matches: tuple[arena.Match, ...]
    network_match: arena.Match
    # Connect Four 6x7: the labelled positions judged at each evaluation (empty: none), and
    # the network's jitted (variables, states) -> values for its value accuracy there.
    perfect_play: tuple[perfect_play.Labels, ...] = ()
    value_fn: Callable | None = None


class Evaluation(NamedTuple):
    """One evaluation of a network: its rating and the matches behind it."""

    rating: elo.Rating
    results: tuple[arena.MatchResult, ...]


def make_evaluator(
    game: Game,
    apply_fn: Callable,
    search_settings: dict,
    *,
    num_simulations: int,
    baselines: Sequence[Agent],
    num_games: int,
    opening_moves: int = 0,
    perfect_play_sets: Sequence[str] = (),
    perfect_play_positions: int = 0,
) -> Evaluator:
    """Builds the evaluator of a run.

    Args:
      game: the run's game.
      apply_fn: the run's network.
      search_settings: the run's ``config.search`` (noise is switched off for evaluation).
      num_simulations: the network's simulations per move in evaluation games (0: the raw
        policy).
      baselines: the built baselines of ``opponent_specs``, the anchor (rated 0) first.
      num_games: games per match (even).
      opening_moves: random plies opening every game (``arena.play``), which varies the
        games of a noise-free network.
      perfect_play_sets: sets of ``benchmark_sets.SETS`` (6x7 Connect Four only) on which
        ``judge_perfect_play`` grades the network against perfect play.
      perfect_play_positions: the first positions of each set used (0: none).
    """
    labels = ()
    if perfect_play_positions:
        labels = tuple(
            perfect_play.load_labels(name).take(perfect_play_positions)
            for name in perfect_play_sets
        )
    act_fn = agents.make_network_act_fn(
        game, apply_fn, search_settings, num_simulations=num_simulations
    )
    baselines = tuple(baselines)
    return Evaluator(
        game=game,
        network_act_fn=act_fn,
        baselines=baselines,
        num_games=num_games,
        anchor=baselines[0].name,
        opening_moves=opening_moves,
        baseline_matches=tuple(arena.make_match(game, act_fn, b.act_fn) for b in baselines),
        network_match=arena.make_match(game, act_fn, act_fn),
        perfect_play=labels,
        value_fn=perfect_play.make_value_fn(game, apply_fn) if labels else None,
    )


def judge_perfect_play(
    evaluator: Evaluator, variables: dict, key: PRNGKey
) -> list[perfect_play.SetResult]:
    """The network's ``perfect_play.SetResult`` on each of the evaluator's sets."""
    return perfect_play.benchmark(
        evaluator.game,
        network_agent(evaluator, "network", variables),
        evaluator.perfect_play,
        key=key,
        value_fn=functools.partial(evaluator.value_fn, variables),
    )


def network_agent(evaluator: Evaluator, name: str, variables: dict) -> Agent:
    return Agent(name, evaluator.network_act_fn, variables)


def rate_baselines(
    evaluator: Evaluator, key: PRNGKey, *, on_result: Callable | None = None
) -> dict[str, float]:
    """Ratings of the baselines from a round robin among them (anchor = 0); ``on_result``
    as in ``tournament.round_robin``."""
    baselines = evaluator.baselines
    if len(baselines) == 1:
        return {baselines[0].name: 0.0}
    results = tournament.round_robin(
        evaluator.game,
        baselines,
        num_games=evaluator.num_games,
        key=key,
        opening_moves=evaluator.opening_moves,
        on_result=on_result,
    )
    return elo.fit_ladder([r.pair_result() for r in results], anchor=evaluator.anchor).as_dict()


def rate_network(
    evaluator: Evaluator,
    variables: dict,
    *,
    name: str,
    ratings: dict[str, float],
    past: Sequence[tuple[str, dict]] = (),
    key: PRNGKey,
    on_result: Callable | None = None,
) -> Evaluation:
    """Rates a network against the baselines and earlier networks of known rating.

    Args:
      evaluator: from ``make_evaluator``.
      variables: the network's variables.
      name: its name in the results, e.g. ``"iteration 40"``.
      ratings: the known ratings of every baseline and earlier network.
      past: ``(name, variables)`` of earlier networks to play as well.
      key: the matches' randomness.
      on_result: called as ``on_result(result, seconds)`` after each match (it may raise
        to stop the rating between two matches).
    """
    candidate = network_agent(evaluator, name, variables)
    opponents = [*evaluator.baselines, *(network_agent(evaluator, n, v) for n, v in past)]
    matches = [*evaluator.baseline_matches, *[evaluator.network_match] * len(past)]
    results = []
    for index, (opponent, match) in enumerate(zip(opponents, matches, strict=True)):
        started = time.monotonic()
        result = arena.play(
            evaluator.game,
            candidate,
            opponent,
            num_games=evaluator.num_games,
            key=jax.random.fold_in(key, index),
            opening_moves=evaluator.opening_moves,
            match=match,
        )
        results.append(result)
        if on_result is not None:
            on_result(result, time.monotonic() - started)
    results = tuple(results)
    rating = elo.fit_one([r.pair_result() for r in results], fixed=ratings)
    return Evaluation(rating, results)


def gate(
    evaluator: Evaluator,
    candidate: dict,
    best: dict,
    *,
    rule: str,
    threshold: float,
    num_games: int,
    key: PRNGKey,
) -> tuple[bool, arena.MatchResult]:
    """Whether ``candidate`` variables replace ``best``, and the match that decided it."""
    if rule not in GATING_RULES[1:]:
        raise ValueError(f"gating rule must be one of {GATING_RULES[1:]}, got {rule!r}.")
    result = arena.play(
        evaluator.game,
        network_agent(evaluator, "candidate", candidate),
        network_agent(evaluator, "best", best),
        num_games=num_games,
        key=key,
        opening_moves=evaluator.opening_moves,
        match=evaluator.network_match,
    )
    return passes(result.total, rule=rule, threshold=threshold), result
