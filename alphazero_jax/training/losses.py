"""Loss terms: functions of the network's outputs and the sampled targets, registered in
``plugs.LOSS_TERMS`` like every plug point.

A loss term is ``fn(output, batch) -> float32[]``: ``output`` is the network's
``NetworkOutput`` on ``batch.observation`` (its ``logits``, ``value`` and named auxiliary
outputs ``aux``), ``batch`` the ``Sample`` (``policy``, ``value`` and the ``targets`` the term
declared). The learner adds each term times its weight: AlphaZero's ``policy`` (cross
entropy, weight 1) and ``value`` (squared error, ``config.learner.value_weight``) are
registered here the same way; a run adds its own with ``config.learner.aux_weights``
(``{name: weight}``). The L2 penalty is a function of the weights, not of the outputs,
and stays the learner's (``config.learner.l2_weight``).

A term of one's own may read the stored targets of ``training.targets`` (the opponent's
reply, the plies to the end, or one registered there) and the network's auxiliary outputs:
docs/tutorials/opponent_reply.md trains the opponent's reply as Wu (2019) does.

Built in besides: ``reply`` (the opponent's reply, with the ResNet's ``reply_head``) and
``score`` (the game's final score, with its ``score_head``): docs/training.md, "Ideas from
the literature".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

from alphazero_jax import plugs
from alphazero_jax.networks import NetworkOutput
from alphazero_jax.registry import WrongShapes, module_of
from alphazero_jax.training import targets as targets_lib
from alphazero_jax.types import Array, Sample

LossFn = Callable[[NetworkOutput, Sample], Array]


class LossTerm(NamedTuple):
    """A registered loss term.

    Attributes:
      name: its name, the key of its weight in ``config.learner.aux_weights``.
      fn: ``fn(output, batch) -> float32[]``, the batch's mean.
      targets: the targets it reads from ``batch.targets`` (``training.targets``).
      outputs: the network's auxiliary outputs it reads from ``output.aux``.
      metric: the name under which the learner logs it.
      always: whether every run's loss has it (AlphaZero's ``policy`` and ``value``, weighed
        by 1 and ``config.learner.value_weight``); the others by ``aux_weights``.
    """

    name: str
    fn: LossFn
    targets: tuple[str, ...]
    outputs: tuple[str, ...]
    metric: str
    always: bool = False


def register(
    name: str,
    fn: LossFn,
    *,
    targets: tuple[str, ...] = (),
    outputs: tuple[str, ...] = (),
    metric: str | None = None,
    always: bool = False,
) -> None:
    """Adds a loss term, so that ``config.learner.aux_weights = {name: weight}`` trains on it.

    Args:
      name: the term's name, an identifier.
      fn: ``fn(output, batch) -> float32[]`` (see the module docstring), pure and jittable.
      targets: the registered targets (``training.targets``) it reads in ``batch.targets``;
        the replay memory stores them for the runs that use the term.
      outputs: the auxiliary outputs it reads in ``output.aux``; a run whose network does
        not produce them is refused before it starts.
      metric: the name it is logged under; ``<name>_loss`` by default.
      always: in every run's loss (the library's ``policy`` and ``value``); a term of one's
        own is weighed by ``config.learner.aux_weights``.

    Raises:
      ValueError: a name taken by another function or not an identifier, or an
        unregistered target.
    """
    for target in targets:
        targets_lib.get(target)
    term = LossTerm(
        name, fn, tuple(targets), tuple(outputs), metric or f"{name}_loss", bool(always)
    )
    plugs.LOSS_TERMS.register(name, term, module=module_of(fn))


def available() -> tuple[str, ...]:
    """The registered loss terms, sorted."""
    return plugs.LOSS_TERMS.available()


def get(name: str) -> LossTerm:
    """The registered term ``name``; ValueError listing the registered ones if none."""
    return plugs.LOSS_TERMS.get(name)


def evaluate(term: LossTerm, output: NetworkOutput, batch: Sample) -> Array:
    """float32[]: the term on a batch.

    Raises:
      WrongShapes: the term returned anything but one number (while tracing).
    """
    value = jnp.asarray(term.fn(output, batch))
    if value.shape != ():
        raise WrongShapes(
            plugs.LOSS_TERMS,
            f"expected one number, float32[] (the batch's mean), got shape {list(value.shape)}.",
            name=term.name,
        )
    return value


def targets_of(names) -> tuple[str, ...]:
    """The targets the terms ``names`` read, each once, sorted."""
    return tuple(sorted({target for name in names for target in get(name).targets}))


def cross_entropy(logits: Array, target: Array) -> Array:
    """float32[]: the batch's mean of ``-sum(target * log_softmax(logits))``; a zero target
    (an illegal move, no reply) contributes 0 even where its log-probability is -inf."""
    log_probs = jax.nn.log_softmax(logits.astype(jnp.float32), axis=-1)
    target = jnp.asarray(target, jnp.float32)
    return jnp.mean(-jnp.sum(jnp.where(target > 0, target * log_probs, 0.0), -1))


def policy_loss(output: NetworkOutput, batch: Sample) -> Array:
    """AlphaZero's policy term: the cross entropy of the logits against the search's policy."""
    return cross_entropy(output.logits, batch.policy)


def value_loss(output: NetworkOutput, batch: Sample) -> Array:
    """AlphaZero's value term: the mean squared error of the value against the outcome."""
    value = output.value.astype(jnp.float32)
    return jnp.mean(jnp.square(value - jnp.asarray(batch.value, jnp.float32)))


def reply_loss(output: NetworkOutput, batch: Sample) -> Array:
    """The opponent's reply (Wu (2019); Clausen (2020)): the cross entropy of the network's
    ``aux["reply"]`` logits (the ResNet's ``reply_head``) against the search's policy at
    the next ply (the target ``reply_policy``); zero where the game ended with the move."""
    return cross_entropy(output.aux["reply"], batch.targets["reply_policy"])


def score_loss(output: NetworkOutput, batch: Sample) -> Array:
    """The final score (Wu (2019)): the mean squared error of the network's ``aux["score"]``
    (the ResNet's ``score_head``) against the game's final score from the mover's view
    (the target ``final_score``: the game record's ``score``)."""
    score = output.aux["score"].astype(jnp.float32)
    return jnp.mean(jnp.square(score - batch.targets["final_score"].astype(jnp.float32)))


register("policy", policy_loss, metric="policy_loss", always=True)
register("value", value_loss, metric="value_loss", always=True)
register("reply", reply_loss, targets=("reply_policy",), outputs=("reply",))
register("score", score_loss, targets=("final_score",), outputs=("score",))
