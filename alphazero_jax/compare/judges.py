"""What a checkpoint is judged by: one row of per-item values per measure.

- ``perfect_play`` (6x7 Connect Four): the network's move in each position of the
  perfect-play sets (``evaluation.perfect_play``), 1 for a mistake, per set;
- ``oracle`` (Tic-Tac-Toe 3x3): its move in each of the 4,520 live positions, 1 for an
  optimal one (``solvers.tic_tac_toe``);
- ``ladder`` (any game): games against a fixed ladder of anchors (``random``, ``greedy``,
  ``minimax:2``, ...), whose ratings are fitted once from a round robin among them
  (``anchor_ratings``); each game's score is a value (0, 1/2, 1), and the checkpoint's Elo
  is fitted against the anchors' fixed ratings (``elo.fit_one``). The games of every
  checkpoint, arm and seed use the same keys: the same openings, colours and anchor
  randomness, so that two arms' games pair up.

The network plays with its run's search, noise-free, at ``simulations`` (-1: the run's
own, 0: the raw policy).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import jax
import numpy as np

from alphazero_jax import agents, games
from alphazero_jax.evaluation import arena, elo, perfect_play, tournament
from alphazero_jax.solvers import tic_tac_toe
from alphazero_jax.types import Game

JUDGES = ("perfect_play", "oracle", "ladder")
LADDER = "ladder"
OPENING_MOVES = 2  # random plies opening each ladder game, the same for every arm


class Measure(NamedTuple):
    """One measure of one checkpoint: ``values`` digits, each item's value times
    ``scale``; ``better`` says which way is good; ``groups`` (the ladder) says which
    anchor each run of values played, ``(anchor, games)`` in order."""

    name: str
    better: str
    scale: int
    values: str
    groups: tuple[tuple[str, int], ...] = ()

    def array(self) -> np.ndarray:
        return decode(self.values, self.scale)

    def as_dict(self) -> dict:
        return dict(self._asdict(), groups=[list(group) for group in self.groups])

    @classmethod
    def from_dict(cls, record: dict) -> Measure:
        return cls(**dict(record, groups=tuple(tuple(g) for g in record.get("groups", ()))))


def encode(values: np.ndarray, scale: int) -> str:
    """``"0102"`` of values ``[0, 0.5, 0, 1]`` at scale 2: a digit per item."""
    digits = np.rint(np.asarray(values, np.float64) * scale).astype(int)
    return "".join(map(str, digits))


def decode(text: str, scale: int) -> np.ndarray:
    """float64[N], the values of ``encode``'s text."""
    return np.array([int(c) for c in text], np.float64) / scale


def default_judges(game: Game) -> tuple[str, ...]:
    """The exact judge where the game has one, else the ladder."""
    if game.name == "connect_four" and dict(game.settings) == {"rows": 6, "cols": 7, "connect": 4}:
        return ("perfect_play",)
    if game.name == "tic_tac_toe":
        return ("oracle",)
    return (LADDER,)


def check_judges(game: Game, names: Sequence[str]) -> None:
    """Raises ValueError (one line) for an unknown judge or one that cannot judge ``game``."""
    for name in names:
        if name not in JUDGES:
            raise ValueError(f"--judges: expected some of {JUDGES}, got {name!r}.")
    if "perfect_play" in names:
        perfect_play.check_game(game)
    if "oracle" in names and game.name != "tic_tac_toe":
        raise ValueError(f"the oracle judges Tic-Tac-Toe 3x3; the arms play {game.name}.")


def anchor_ratings(
    game: Game, specs: Sequence[str], *, games_per_pair: int, seed: int
) -> tuple[dict[str, float], list[arena.MatchResult]]:
    """The anchors' Elo ratings from a round robin among them (``random`` at 0 if it is
    one of them, else the first anchor), and the matches."""
    players = [agents.from_spec(game, spec) for spec in specs]
    players = [player._replace(name=spec) for player, spec in zip(players, specs)]
    results = tournament.round_robin(
        game,
        players,
        num_games=games_per_pair,
        key=jax.random.key(seed),
        opening_moves=OPENING_MOVES,
    )
    anchor = "random" if "random" in specs else specs[0]
    ladder = elo.fit_ladder([r.pair_result() for r in results], anchor=anchor)
    return ladder.as_dict(), results


def ladder_rating(measure: Measure, ratings: dict[str, float]) -> elo.Rating:
    """The Elo of a ladder ``Measure``'s games (of one seed or several, concatenated)
    against anchors of known ``ratings``."""
    values, results, start = measure.array(), [], 0
    for anchor, count in measure.groups:
        scores = values[start : start + count]
        start += count
        wins, draws = int((scores == 1).sum()), int((scores == 0.5).sum())
        results.append(elo.PairResult("network", anchor, wins, draws, count - wins - draws))
    return elo.fit_one(results, fixed=ratings)


def make_judge(
    game: Game,
    apply_fn: Callable,
    search_settings: dict,
    *,
    judges: Sequence[str],
    num_simulations: int,
    sets: Sequence[str] = (),
    positions: int = 0,
    anchors: Sequence[str] = (),
    ladder_games: int = 32,
    seed: int = 0,
    batch_size: int = 250,
) -> Callable[[dict], list[Measure]]:
    """``judge(variables) -> [Measure]`` of a network of one architecture and search: its
    programs compile on the first call and serve every later checkpoint of the arm.

    Args:
      game: the arms' game.
      apply_fn: the network (``runs.restore_network(...).apply_fn``).
      search_settings: the run's ``config.search`` as a dict.
      judges: some of ``JUDGES``.
      num_simulations: the search's simulations (0: the raw policy).
      sets: perfect-play sets (``solvers.benchmark_sets.SETS``; empty: all).
      positions: the first positions of each set (0: all).
      anchors: the ladder's agent specs.
      ladder_games: games against each anchor (even).
      seed: the judges' randomness (the same for every checkpoint, arm and seed).
      batch_size: positions per call of the network (perfect play).
    """
    act = jax.jit(
        agents.make_network_act_fn(game, apply_fn, search_settings, num_simulations=num_simulations)
    )
    key = jax.random.key(seed)
    parts = []
    if "perfect_play" in judges:
        labels = [perfect_play.load_labels(name) for name in (sets or perfect_play_sets())]
        labels = [one.take(positions) if positions else one for one in labels]
        parts.append(_perfect_play(game, act, labels, key, batch_size))
    if "oracle" in judges:
        parts.append(_oracle(game, act, key))
    if LADDER in judges:
        parts.append(_ladder(game, act, anchors, ladder_games, key))

    def judge(variables: dict) -> list[Measure]:
        return [measure for part in parts for measure in part(variables)]

    return judge


def perfect_play_sets() -> tuple[str, ...]:
    from alphazero_jax.solvers import benchmark_sets

    return tuple(benchmark_sets.SETS)


def _perfect_play(game, act, labels, key, batch_size):
    states = [perfect_play.states_of(game, one) for one in labels]

    def measure(variables):
        found = []
        for number, (one, batch) in enumerate(zip(labels, states)):
            set_key = jax.random.fold_in(key, number)
            moves = perfect_play.agent_moves(
                act, variables, batch, key=set_key, batch_size=batch_size
            )
            wrong = perfect_play.mistakes(one, moves)
            found.append(Measure(one.title, "lower", 1, encode(wrong, 1)))
        return found

    return measure


def _oracle(game, act, key):
    boards = [b for b in tic_tac_toe.reachable_positions() if not tic_tac_toe.is_over(b)]
    states = games.replay_batch(game, [tic_tac_toe.moves_to(b) for b in boards])
    optimal = [tic_tac_toe.optimal_moves(b) for b in boards]

    def measure(variables):
        moves = np.asarray(act(variables, key, states))
        right = np.array([move in best for move, best in zip(moves, optimal)])
        return [Measure("optimal moves", "higher", 1, encode(right, 1))]

    return measure


def _ladder(game, act, specs, num_games, key):
    players = [agents.from_spec(game, spec) for spec in specs]
    matches = [arena.make_match(game, act, player.act_fn) for player in players]

    def measure(variables):
        scores = []
        for number, (player, match) in enumerate(zip(players, matches)):
            rewards, _ = match.run(
                variables,
                player.params,
                jax.random.fold_in(key, number),
                batch_size=num_games,
                opening_moves=OPENING_MOVES,
            )
            scores.append((np.asarray(rewards) + 1) / 2)
        values = encode(np.concatenate(scores), 2)
        groups = tuple((spec, num_games) for spec in specs)
        return [Measure(LADDER, "higher", 2, values, groups)]

    return measure
