"""Training targets beyond the policy and the value: a registry of functions of a
self-play ``Trajectory``, with the shape of ``games.register``.

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
- ``final_score``: the game's final score (``training.scores``: Othello's disc difference,
  Quoridor's path-length race, ...) from the position's mover's view, a score-like target
  as Wu (2019) trains KataGo's; self-play records it only when given the game's score.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

from alphazero_jax.types import Array, Trajectory


class Target(NamedTuple):
    """A registered target: ``fn(trajectory) -> float32[T, B]`` or ``[T, B, A]``."""

    name: str
    fn: Callable[[Trajectory], Array]
    over_actions: bool


_TARGETS: dict[str, Target] = {}


def register(name: str, fn: Callable[[Trajectory], Array], *, over_actions: bool = False):
    """Adds a target that loss terms may read (``losses.register(..., targets=(name,))``).

    Args:
      name: the target's name, an identifier.
      fn: ``fn(trajectory) -> float32[T, B]`` (``over_actions=False``) or ``[T, B, A]``,
        pure and jittable; only its values at valid positions are stored.
      over_actions: whether its last axis runs over the actions (a distribution, say), to
        be permuted with the board under symmetry augmentation.

    Raises:
      ValueError: a name taken by another function, or not an identifier.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"A target's name must be an identifier, got {name!r}.")
    if name in _TARGETS and _TARGETS[name].fn is not fn:
        raise ValueError(f"The target {name!r} is taken by {_TARGETS[name].fn.__module__}.")
    _TARGETS[name] = Target(name, fn, bool(over_actions))


def available() -> tuple[str, ...]:
    """The registered targets, sorted."""
    return tuple(sorted(_TARGETS))


def get(name: str) -> Target:
    """The registered target ``name``; ValueError listing the registered ones if none."""
    if name not in _TARGETS:
        raise ValueError(
            f"Unknown target {name!r}; registered: {', '.join(available())}. A target of one's "
            "own is registered by training.targets.register."
        )
    return _TARGETS[name]


def shapes(names, num_actions: int) -> dict[str, tuple[int, ...]]:
    """Each target's shape per position: ``(A,)`` over the actions, else ``()``."""
    return {name: (num_actions,) if get(name).over_actions else () for name in names}


def compute(trajectory: Trajectory, names) -> dict[str, Array]:
    """The targets ``names`` of ``trajectory``, float32[T, B, ...] each."""
    return {name: jnp.asarray(get(name).fn(trajectory), jnp.float32) for name in names}


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
    position's mover's view (``training.scores``); positions of a game unfinished within
    the trajectory get 0 (they are never valid)."""
    if trajectory.score is None:
        raise ValueError(
            "The target final_score needs each game's score in the trajectory: self-play "
            "records it when given score_fn=training.scores.make(game) (training does so for "
            "a run whose loss terms read it)."
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
register("final_score", final_score)
