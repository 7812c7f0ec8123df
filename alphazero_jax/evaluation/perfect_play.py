"""Judging Connect Four agents against perfect play on Pascal Pons' benchmark sets and ours.

Connect Four is solved, so a move can be graded exactly: it is a **mistake** when some
other legal move has a strictly better game-theoretic outcome (win > draw > loss). The
**mistake rate** of an agent on a set is the fraction of its positions where the agent's
move is a mistake; AlphaZero.jl reports the same measure on Pons' six sets. The
**value accuracy** of a network is the fraction of positions whose win/draw/loss it reads
right from its value head (``networks.outcome_label``: draw within 1/3 of zero).

The sets are those of ``solvers.benchmark_sets.SETS``: Pons' six and Random-Play (1000
positions reached by random play). The per-move outcomes come from our solver
(``solvers.connect_four``) and are shipped beside each set's positions as
``alphazero_jax/data/<folder>/<set>.labels``, one line ``<moves> <labels>`` per position in
the set's order, e.g. ``4453 LLDWDL.``: one character per column for the side to move,
``W``, ``D`` or ``L`` for the outcome of playing it and ``.`` for a full column.
``python -m experiments.data.label_pons`` regenerates them. Begin-Hard (``Test_L1_R3``) may
be labelled on its first positions only, in the published order (docs/perfect_play.md says
how many).
"""

from __future__ import annotations

import functools
import math
import pathlib
from collections.abc import Callable, Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from alphazero_jax import agents, games, networks
from alphazero_jax.evaluation import elo
from alphazero_jax.solvers import benchmark_sets, pons
from alphazero_jax.types import Agent, Array, Game, PRNGKey, State

ROWS, COLS = 6, 7
OUTCOMES = {"W": 1, "D": 0, "L": -1, ".": -2}  # -2: a full column, never a legal move
_CHARS = {outcome: char for char, outcome in OUTCOMES.items()}
_WORDS = {1: "win", 0: "draw", -1: "loss"}


class Labels(NamedTuple):
    """The labelled positions of one set of ``benchmark_sets.SETS``.

    Attributes:
      set_name: the file name, e.g. ``"Test_L2_R2"``.
      moves: the move string of each position, in Pons' notation.
      scores: int32[N], the exact score of each position (side to move), from its
        positions file.
      outcomes: int8[N, 7], the outcome of each column for the side to move: 1 win,
        0 draw, -1 loss, -2 full column.
    """

    set_name: str
    moves: tuple[str, ...]
    scores: np.ndarray
    outcomes: np.ndarray

    @property
    def title(self) -> str:
        """The set's title, e.g. ``"Middle-Medium"``."""
        return benchmark_sets.SETS[self.set_name]

    @property
    def legal(self) -> np.ndarray:
        """bool[N, 7]: the columns with room."""
        return self.outcomes > -2

    @property
    def mistake_possible(self) -> np.ndarray:
        """bool[N]: whether some legal move of a position is worse than its best: a won
        position with a move that does not win, or a drawn one with a losing move."""
        worse = self.legal & (self.outcomes < self.best[:, None])
        return worse.any(axis=1)

    def where(self, keep: np.ndarray) -> Labels:
        """The positions where ``keep`` (bool[N]) is set, in order."""
        keep = np.asarray(keep, bool)
        moves = tuple(m for m, k in zip(self.moves, keep) if k)
        return Labels(self.set_name, moves, self.scores[keep], self.outcomes[keep])

    @property
    def best(self) -> np.ndarray:
        """int8[N]: the outcome under perfect play, the sign of ``scores``."""
        return self.outcomes.max(axis=1)

    def take(self, count: int) -> Labels:
        """The first ``count`` positions (all of them if there are fewer)."""
        return Labels(self.set_name, self.moves[:count], self.scores[:count], self.outcomes[:count])


def label_text(outcomes: Sequence[int]) -> str:
    """A position's label string, e.g. ``"LLDWDL."``: the character of each column's
    outcome (``OUTCOMES``; -2, a full column, is ``.``)."""
    return "".join(_CHARS[int(outcome)] for outcome in outcomes)


def labels_path(set_name: str) -> pathlib.Path:
    """Where the per-move labels of a set live in the package: beside its positions."""
    positions = benchmark_sets.path(set_name)
    return positions.with_name(f"{positions.name}.labels")


def parse_labels(set_name: str, positions: Sequence[pons.Position], lines: Sequence[str]) -> Labels:
    """Checks label lines ``<moves> <labels>`` against the set's positions and packs them.

    Raises:
      ValueError: a malformed line, a position that is not in the set, or a line whose
        best outcome disagrees with the sign of the position's score in the set.
    """
    set_scores = {p.moves: p.score for p in positions}
    moves, scores = [], []
    outcomes = np.zeros((len(lines), COLS), np.int8)
    for number, line in enumerate(lines):
        fields = line.split()
        where = f"{set_name}.labels:{number + 1}"
        if len(fields) != 2 or len(fields[1]) != COLS or set(fields[1]) - set(OUTCOMES):
            raise ValueError(
                f"{where}: expected '<moves> <{COLS} characters from WDL.>', got {line!r}."
            )
        if fields[0] not in set_scores:
            raise ValueError(f"{where}: the position {fields[0]} is not in {set_name}.")
        outcomes[number] = [OUTCOMES[char] for char in fields[1]]
        best, expected = outcomes[number].max(), np.sign(set_scores[fields[0]])
        if best != expected:
            raise ValueError(
                f"{where}: the best move of {fields[0]} is a "
                f"{_WORDS.get(int(best), 'full column')}, but {set_name} scores the position "
                f"{set_scores[fields[0]]}, a {_WORDS[int(expected)]}; regenerate the labels."
            )
        moves.append(fields[0])
        scores.append(set_scores[fields[0]])
    return Labels(set_name, tuple(moves), np.array(scores, np.int32), outcomes)


def load_labels(set_name: str) -> Labels:
    """The shipped labels of a set, e.g. ``load_labels("Test_L2_R2")``; see
    ``benchmark_sets.SETS``."""
    path = labels_path(set_name)
    if not path.exists():
        raise ValueError(f"No labels for {set_name} at {path}; run experiments.data.label_pons.")
    return parse_labels(set_name, benchmark_sets.load(set_name), path.read_text().splitlines())


def mistakes(labels: Labels, actions: np.ndarray) -> np.ndarray:
    """bool[N]: whether each action (a 0-based column) is a mistake.

    A mistake is a move with a strictly worse outcome than the best legal move; an illegal
    or out-of-range action counts as a mistake too.
    """
    actions = np.asarray(actions)
    if actions.shape != (len(labels.moves),):
        raise ValueError(f"Expected {len(labels.moves)} actions, got shape {actions.shape}.")
    in_range = (actions >= 0) & (actions < COLS)
    chosen = labels.outcomes[np.arange(len(actions)), np.clip(actions, 0, COLS - 1)]
    return ~in_range | (chosen < labels.best)


def mcnemar_p(fixed: int, broke: int) -> float:
    """The two-sided exact (McNemar) p-value of two agents judged on the same positions,
    where the second fixed ``fixed`` of the first's mistakes and made ``broke`` new ones:
    under no difference each such position goes either way with probability 1/2."""
    n, low = fixed + broke, min(fixed, broke)
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, k) for k in range(low + 1)) / 2**n)


def value_correct(labels: Labels, values: np.ndarray) -> np.ndarray:
    """bool[N]: whether each value (side to move, in [-1, 1]) reads the right outcome."""
    predicted = np.asarray(networks.outcome_label(jnp.asarray(values)))
    return predicted == labels.best


class SetResult(NamedTuple):
    """An agent's result on one set: mistakes (and value reads) out of ``positions``."""

    set_name: str
    positions: int
    mistakes: int
    value_correct: int | None = None  # None: the agent has no value head

    @property
    def title(self) -> str:
        return benchmark_sets.SETS[self.set_name]

    @property
    def mistake_rate(self) -> float:
        return self.mistakes / self.positions

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """The Wilson interval of the mistake rate."""
        return elo.wilson_interval(self.mistake_rate, self.positions, confidence=confidence)

    @property
    def value_accuracy(self) -> float | None:
        if self.value_correct is None:
            return None
        return self.value_correct / self.positions

    def as_dict(self) -> dict:
        low, high = self.interval()
        record = {
            "set": self.set_name,
            "title": self.title,
            "positions": self.positions,
            "mistakes": self.mistakes,
            "mistake_rate": self.mistake_rate,
            "interval": [low, high],
        }
        if self.value_correct is not None:
            record.update(value_correct=self.value_correct, value_accuracy=self.value_accuracy)
        return record


def check_game(game: Game) -> None:
    """Raises unless ``game`` is the 6x7 connect-4 game of the benchmark's sets."""
    expected = (("rows", ROWS), ("cols", COLS), ("connect", 4))
    if game.name != "connect_four" or tuple(game.settings) != expected:
        raise ValueError(
            f"The perfect-play sets are 6x7 Connect Four (connect 4); got {game.name} "
            f"{dict(game.settings)}."
        )


def states_of(game: Game, labels: Labels) -> State:
    """The batched states of the labelled positions."""
    check_game(game)
    return games.replay_batch(game, [game.actions_from_text(m) for m in labels.moves])


def _batched(fn: Callable[[State, int], Array], states: State, batch_size: int) -> np.ndarray:
    """``fn(batch, start)`` over fixed-size batches (the last one padded), so that it
    compiles once; ``start`` is the index of the batch's first state."""
    count = int(states.terminal.shape[0])
    outputs = []
    for start in range(0, count, batch_size):
        index = np.minimum(np.arange(start, start + batch_size), count - 1)
        batch = jax.tree.map(lambda x, i=index: x[i], states)
        outputs.append(np.asarray(fn(batch, start))[: min(batch_size, count - start)])
    return np.concatenate(outputs)


def agent_moves(
    act_fn: Callable[[dict, PRNGKey, State], Array],
    params: dict,
    states: State,
    *,
    key: PRNGKey,
    batch_size: int = 250,
) -> np.ndarray:
    """int[N]: an agent's move in each of ``states`` (``states_of``), ``batch_size`` at a
    time; the batch that starts at position ``i`` draws on ``fold_in(key, i)``. Jit
    ``act_fn`` first (``benchmark`` does), so that it compiles once."""

    def move(batch: State, start: int) -> Array:
        return act_fn(params, jax.random.fold_in(key, start), batch)

    return _batched(move, states, batch_size)


def make_value_fn(game: Game, apply_fn: Callable) -> Callable[[dict, State], Array]:
    """A jitted ``(variables, states) -> float[B]``: a network's value for the side to
    move. It compiles once per batch size; a caller that judges again holds it."""

    @jax.jit
    def value(variables: dict, states: State) -> Array:
        output, _ = apply_fn(variables, jax.vmap(game.observe)(states))
        return output.value

    return value


def benchmark(
    game: Game,
    agent: Agent,
    labels: Sequence[Labels],
    *,
    key: PRNGKey,
    value_fn: Callable[[State], Array] | None = None,
    batch_size: int = 250,
) -> list[SetResult]:
    """The agent's mistake rate (and the value accuracy of ``value_fn``) on each set.

    Args:
      game: 6x7 Connect Four.
      agent: any agent (``agents.from_spec``); its move in each position is graded.
      labels: the sets, from ``load_labels`` (``Labels.take`` for a subset).
      key: the agent's randomness (ties, search); the same key gives the same result.
      value_fn: optional ``states -> float[B]``, e.g. ``make_value_fn`` of a network
        with its variables bound.
      batch_size: positions per call of the agent (fixed, so it compiles once).

    Returns:
      One ``SetResult`` per set, in order.
    """
    act = jax.jit(agent.act_fn)
    results = []
    for number, set_labels in enumerate(labels):
        states = states_of(game, set_labels)
        set_key = jax.random.fold_in(key, number)
        actions = agent_moves(act, agent.params, states, key=set_key, batch_size=batch_size)
        wrong = int(mistakes(set_labels, actions).sum())
        right = None
        if value_fn is not None:
            values = _batched(lambda batch, start: value_fn(batch), states, batch_size)
            right = int(value_correct(set_labels, values).sum())
        results.append(SetResult(set_labels.set_name, len(set_labels.moves), wrong, right))
    return results


def results_table(rows: dict[str, Sequence[SetResult]]) -> str:
    """A Markdown table: one row per agent, a column per set (mistake rate and interval)."""
    first = next(iter(rows.values()))
    header = "| agent | " + " | ".join(f"{r.title} ({r.positions})" for r in first) + " |"
    lines = [header, "| --- |" + " ---: |" * len(first)]
    for name, results in rows.items():
        cells = []
        for result in results:
            low, high = result.interval()
            cells.append(f"{result.mistake_rate:.1%} [{low:.1%}, {high:.1%}]")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# What ``alphazero-judge checkpoints`` writes into a run directory, and ``curves`` reads.
CHECKPOINTS_FILE = "perfect_play_checkpoints.json"
CHECKPOINTS_PLOT = "perfect_play_checkpoints.png"


def choose_labels(names: Sequence[str] | None = None, positions: int = 0) -> list[Labels]:
    """The labels of the sets ``names`` (all of ``benchmark_sets.SETS`` for None or empty),
    each cut to its first ``positions`` (0: all).

    Raises:
      ValueError: a name that is not a set.
    """
    known = list(benchmark_sets.SETS)
    names = list(names or known)
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"unknown sets {unknown}; expected some of {known}.")
    chosen = [load_labels(name) for name in names]
    return [one.take(positions) for one in chosen] if positions else chosen


def agent_of(game: Game, spec: str) -> tuple[Agent, Callable[[State], Array] | None]:
    """The agent of ``spec`` (``agents.from_spec``) and, for an ``az:`` network, its value
    function with its variables bound (``benchmark``'s ``value_fn``); None for the others.

    Raises:
      ValueError, FileNotFoundError: a bad spec, a run that cannot be read.
    """
    if not spec.strip().startswith("az:"):
        return agents.from_spec(game, spec), None
    path, simulations = agents.parse_az(spec)
    agent, run = agents.restore_az(game, path, num_simulations=simulations)
    return agent, functools.partial(make_value_fn(game, run.apply_fn), run.variables)


def curves_table(curves: dict[str, list[dict]]) -> str:
    """A Markdown table of runs judged at each checkpoint (``curves``: label -> the records
    of its ``CHECKPOINTS_FILE``): a row per run and checkpoint, its minutes of training and
    its mistake rate on each set."""
    titles = {  # set name -> title, in the order the sets first appear
        n: r["perfect_play"][n]["title"]
        for rs in curves.values()
        for r in rs
        for n in r["perfect_play"]
    }
    sets = list(titles)
    lines = [
        "| run | iteration | minutes | " + " | ".join(titles[n] for n in sets) + " |",
        "| --- | ---: | ---: | " + " | ".join("---:" for _ in sets) + " |",
    ]
    for label, records in curves.items():
        for record in sorted(records, key=lambda r: r["iteration"]):
            minutes = f"{record['seconds'] / 60:.1f}" if "seconds" in record else "?"
            rates = [
                f"{record['perfect_play'][n]['mistake_rate']:.1%}"
                if n in record["perfect_play"]
                else ""
                for n in sets
            ]
            lines.append(
                f"| {label} | {record['iteration']} | {minutes} | " + " | ".join(rates) + " |"
            )
    return "\n".join(lines)
