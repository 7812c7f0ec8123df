"""Training targets beyond the policy and the value: functions of a self-play
``Trajectory``, registered in ``plugs.TARGETS`` like every plug point.

A target is computed from the trajectory of one self-play call (``[T, B]``, games restarting
in their slots), stored beside each position in the replay memory when a loss term of the
run reads it (``training.losses``), and sampled with it (``Sample.targets``). A target over
the actions (``over_actions=True``, float32[T, B, A]) is permuted with the board when a
sample is augmented by a symmetry; any other is one number per position (float32[T, B]).

Built in:

- ``reply_policy``: the search's policy at the next ply, the opponent's reply (Wu (2019)
  trains on it as an auxiliary target; Clausen (2020) measures it on Connect Four); zero
  at a game's last position, where there is no reply;
- ``plies_to_end``: the moves from the position to its game's end, the move played there
  included (1 at a game's last position), a score-like target;
- ``final_score``: the game's final score (its record's ``score``: Othello's disc
  difference, Quoridor's path-length race, ...) from the position's mover's view, a
  score-like target as Wu (2019) trains KataGo's. It declares what self-play records for it
  (``records``: the game's score of each position after its move), so self-play records it
  only for the runs that train on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

from alphazero_jax import games, plugs
from alphazero_jax.registry import WrongShapes, module_of
from alphazero_jax.types import Array, Game, State, Trajectory


class Target(NamedTuple):
    """A registered target: ``fn(trajectory) -> float32[T, B]`` or ``[T, B, A]``; with
    ``records``, ``records(game) -> fn(state) -> float32[]``, what self-play records of each
    state after its move for it (``Trajectory.score``)."""

    name: str
    fn: Callable[[Trajectory], Array]
    over_actions: bool
    records: Callable[[Game], Callable[[State], Array]] | None = None


def register(
    name: str,
    fn: Callable[[Trajectory], Array],
    *,
    over_actions: bool = False,
    records: Callable[[Game], Callable[[State], Array]] | None = None,
):
    """Adds a target that loss terms may read (``losses.register(..., targets=(name,))``).

    Args:
      name: the target's name, an identifier.
      fn: ``fn(trajectory) -> float32[T, B]`` (``over_actions=False``) or ``[T, B, A]``,
        pure and jittable; only its values at valid positions are stored.
      over_actions: whether its last axis runs over the actions (a distribution, say), to
        be permuted with the board under symmetry augmentation.
      records: ``records(game) -> fn(state) -> float32[]``: a number of each state after
        its move that self-play records (``Trajectory.score``) for ``fn`` to read; None:
        ``fn`` reads what every trajectory holds.

    Raises:
      ValueError: a name taken by another function, or not an identifier.
    """
    entry = Target(name, fn, bool(over_actions), records)
    plugs.TARGETS.register(name, entry, module=module_of(fn))


def available() -> tuple[str, ...]:
    """The registered targets, sorted."""
    return plugs.TARGETS.available()


def get(name: str) -> Target:
    """The registered target ``name``; ValueError listing the registered ones if none."""
    return plugs.TARGETS.get(name)


def recorder(names, game: Game) -> Callable[[State], Array] | None:
    """What self-play records of each state after its move for the targets ``names``: the
    ``records`` of the one that declares it (None: none does).

    Raises:
      ValueError: two targets that each declare one, or the record's own refusal (a game
        without a score, for ``final_score``); one line.
    """
    declared = [get(name) for name in names if get(name).records is not None]
    if len(declared) > 1:
        raise ValueError(
            f"The targets {', '.join(t.name for t in declared)} each record a number of every "
            "state in self-play; expected one at most (Trajectory.score holds one)."
        )
    return declared[0].records(game) if declared else None


def shapes(names, num_actions: int) -> dict[str, tuple[int, ...]]:
    """Each target's shape per position: ``(A,)`` over the actions, else ``()``."""
    return {name: (num_actions,) if get(name).over_actions else () for name in names}


def compute(trajectory: Trajectory, names) -> dict[str, Array]:
    """The targets ``names`` of ``trajectory``, float32[T, B, ...] each.

    Raises:
      WrongShapes: a target of other shapes than ``[T, B]`` (``[T, B, A]`` over the
        actions), while tracing.
    """
    computed = {}
    for name in names:
        value = jnp.asarray(get(name).fn(trajectory), jnp.float32)
        expected = tuple(
            trajectory.policy.shape if get(name).over_actions else trajectory.valid.shape
        )
        if value.shape != expected:
            raise WrongShapes(
                plugs.TARGETS,
                f"expected {list(expected)} ([T, B]{', A' if get(name).over_actions else ''}), "
                f"got {list(value.shape)}.",
                name=name,
            )
        computed[name] = value
    return computed


def reply_policy(trajectory: Trajectory) -> Array:
    """float32[T, B, A]: the policy target of the next ply in the same game (the
    opponent's reply to the move played), zero where the game ended with this move or the
    trajectory ends."""
    following = jnp.concatenate(
        [trajectory.policy[1:], jnp.zeros_like(trajectory.policy[:1])], axis=0
    )
    return jnp.where(trajectory.ended[..., None], 0.0, following)


def plies_to_end(trajectory: Trajectory) -> Array:
    """float32[T, B]: moves from each position to the end of its game, its own included
    (1 where the move played ends it); counts past the trajectory's end are not known and
    are those positions' count to the end of the trajectory (they are never valid)."""

    def backwards(count, ended):
        count = jnp.where(ended, 1.0, count + 1.0)
        return count, count

    init = jnp.zeros(trajectory.ended.shape[1], jnp.float32)
    _, counts = jax.lax.scan(backwards, init, trajectory.ended, reverse=True)
    return counts


def final_score(trajectory: Trajectory) -> Array:
    """float32[T, B]: the score of each position's game where it ends, from the
    position's mover's view (the game record's ``score``, which self-play records for it);
    positions of a game unfinished within the trajectory get 0 (they are never valid)."""
    if trajectory.score is None:
        raise ValueError(
            "The target final_score needs each game's score in the trajectory: self-play "
            "records it when given score_fn=games.score_fn(game) (training does so for a run "
            "whose loss terms read it, targets.recorder)."
        )

    def backwards(score, inputs):
        ended, here = inputs
        score = jnp.where(ended, here, score)
        return score, score

    init = jnp.zeros(trajectory.ended.shape[1], jnp.float32)
    _, scores = jax.lax.scan(
        backwards, init, (trajectory.ended, trajectory.score.astype(jnp.float32)), reverse=True
    )
    return jnp.where(trajectory.player == 0, scores, -scores)


register("reply_policy", reply_policy, over_actions=True)
register("plies_to_end", plies_to_end)
register("final_score", final_score, records=games.score_fn)
