"""The learner: AlphaZero's loss, an optax optimiser with a schedule, and the update step.

Loss (AlphaZero): ``value_weight * mean((v - z)^2) + mean(-sum(pi * log_softmax(logits)))
+ l2_weight * 0.5 * sum(kernel^2)``, plus any further registered loss terms, each times its
weight (``training.losses``). ``make_update`` returns a pure, un-jitted
``update(state, batch)``; the caller jits it once, donating the state::

  update = jax.jit(make_update(apply_fn, optimizer, l2_weight=1e-4), donate_argnums=0)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

import flax
import jax
import jax.numpy as jnp
import numpy as np
import optax

from alphazero_jax.networks import ApplyFn, Variables, outcome_label
from alphazero_jax.training import losses
from alphazero_jax.types import Array, Sample

OPTIMIZERS = ("adam", "sgd")
SCHEDULES = ("constant", "cosine", "step")


@flax.struct.dataclass
class TrainState:
    """Everything the update changes.

    Attributes:
      variables: Flax variables, ``{"params": ..., "batch_stats": ...}`` (no batch
        statistics without batch norm).
      opt_state: the optimiser's state for ``variables["params"]``.
      step: int32[], updates applied so far.
    """

    variables: Variables
    opt_state: optax.OptState
    step: Array


def make_schedule(
    *,
    learning_rate: float = 1e-3,
    schedule: str = "constant",
    warmup_steps: int = 0,
    total_steps: int = 1,
    decay_rate: float = 0.1,
    decay_steps: tuple[int, ...] = (),
) -> optax.Schedule:
    """Builds a learning-rate schedule: a linear warmup from 0, then the named shape.

    Args:
      learning_rate: the peak rate, > 0.
      schedule: ``"constant"``; ``"cosine"``, decaying from the peak at ``warmup_steps``
        to 0 at ``total_steps``; or ``"step"``, multiplying by ``decay_rate`` at each of
        ``decay_steps``.
      warmup_steps: steps of the linear ramp from 0 to ``learning_rate``, >= 0.
      total_steps: the step at which ``"cosine"`` reaches 0 (> ``warmup_steps``); unused
        by the other schedules.
      decay_rate: the factor of ``"step"``, > 0.
      decay_steps: the (absolute) steps at which ``"step"`` multiplies, each >= 0.

    Returns:
      ``schedule(step: int[]) -> float32[]``, pure and jittable.

    Raises:
      ValueError: for an unknown schedule or a setting out of range.
    """
    where = "make_schedule"
    _check_choice(where, "schedule", schedule, SCHEDULES)
    _check_number(where, "learning_rate", learning_rate, lambda x: x > 0, "a number > 0")
    _check_int(where, "warmup_steps", warmup_steps, 0)
    _check_int(where, "total_steps", total_steps, 1)
    _check_number(where, "decay_rate", decay_rate, lambda x: x > 0, "a number > 0")
    if not isinstance(decay_steps, tuple | list):
        raise ValueError(f"{where}: decay_steps must be a tuple of ints, got {decay_steps!r}.")
    for step in decay_steps:
        _check_int(where, "each of decay_steps", step, 0)
    if schedule == "cosine" and total_steps <= warmup_steps:
        raise ValueError(
            f"make_schedule: the cosine schedule needs total_steps > warmup_steps, got "
            f"total_steps={total_steps} and warmup_steps={warmup_steps}."
        )
    decay = _make_decay(
        schedule,
        warmup_steps=warmup_steps,
        total_steps=total_steps,
        decay_rate=decay_rate,
        decay_steps=tuple(decay_steps),
    )

    def schedule_fn(step: Array) -> Array:
        step = jnp.asarray(step, jnp.float32)
        warmup = jnp.minimum(1.0, step / warmup_steps) if warmup_steps else 1.0
        return jnp.asarray(learning_rate * warmup * decay(step), jnp.float32)

    return schedule_fn


def _make_decay(
    schedule: str,
    *,
    warmup_steps: int,
    total_steps: int,
    decay_rate: float,
    decay_steps: tuple[int, ...],
) -> Callable[[Array], Array]:
    """The multiplier of the peak rate as a function of the (float32) step, warmup aside."""
    if schedule == "cosine":

        def cosine(step: Array) -> Array:
            progress = (step - warmup_steps) / (total_steps - warmup_steps)
            return 0.5 * (1.0 + jnp.cos(math.pi * jnp.clip(progress, 0.0, 1.0)))

        return cosine
    if schedule == "step":
        boundaries = np.asarray(decay_steps, np.float32)
        return lambda step: decay_rate ** jnp.sum(step >= boundaries).astype(jnp.float32)
    return jnp.ones_like


def make_optimizer(
    schedule: optax.Schedule, *, name: str = "adam", momentum: float = 0.9
) -> optax.GradientTransformation:
    """Builds Adam or SGD with Nesterov momentum, driven by a learning-rate schedule.

    Args:
      schedule: the learning rate per update, e.g. from ``make_schedule``.
      name: ``"adam"`` or ``"sgd"`` (Nesterov momentum ``momentum``).
      momentum: SGD's momentum in [0, 1); unused by Adam.

    Returns:
      The optax transformation. Its schedule counts its own updates from 0, so it agrees
      with ``schedule(state.step)`` for a state from ``init_train_state``.

    Raises:
      ValueError: for an unknown name or a momentum out of range.
    """
    _check_choice("make_optimizer", "name", name, OPTIMIZERS)
    _check_number(
        "make_optimizer", "momentum", momentum, lambda x: 0 <= x < 1, "a number in [0, 1)"
    )
    if name == "sgd":
        return optax.sgd(schedule, momentum=momentum, nesterov=True)
    return optax.adam(schedule)


def init_train_state(variables: Variables, optimizer: optax.GradientTransformation) -> TrainState:
    """Starts training from the network's variables: a fresh optimiser state, step 0."""
    return TrainState(
        variables=variables,
        opt_state=optimizer.init(variables["params"]),
        step=jnp.zeros((), jnp.int32),
    )


def loss_fn(
    params: Variables,
    variables: Variables,
    apply_fn: ApplyFn,
    batch: Sample,
    *,
    l2_weight: float,
    value_weight: float = 1.0,
    aux_weights: tuple[tuple[str, float], ...] = (),
    train: bool = True,
) -> tuple[Array, tuple[dict[str, Array], Variables]]:
    """AlphaZero's loss on a batch: value MSE + policy cross-entropy + L2 on kernels, plus
    the weighted loss terms ``aux_weights`` names (``training.losses``).

    Args:
      params: the weights to differentiate; they replace ``variables["params"]``.
      variables: the network's variables (batch statistics are read from here).
      apply_fn: the network, from ``networks.make``.
      batch: observation float32[N, H, W, C], policy float32[N, A] (target distribution),
        value float32[N] (target outcome in [-1, 1], mover's view), and the targets the
        terms of ``aux_weights`` read (``batch.targets``).
      l2_weight: weight of ``0.5 * sum(kernel^2)`` over every param named ``kernel``.
      value_weight: weight of the value MSE (the ``value`` loss term).
      aux_weights: ``(name, weight)`` of each further registered loss term.
      train: run the network in training mode (batch statistics, updated running averages).

    Returns:
      ``(loss, (metrics, new_variables))``: loss float32[]; metrics float32[] scalars
      ``loss``, ``value_loss``, ``policy_loss``, ``l2``, ``policy_entropy`` and
      ``value_sign_accuracy`` (predicted and target outcome agree as win, draw
      (``|x| <= 1/3``) or loss), and each further term's metric (``<name>_loss``);
      ``new_variables`` is what ``apply_fn`` returned (with ``params``).
    """
    output, new_variables = apply_fn(
        {**variables, "params": params}, batch.observation, train=train
    )
    logits = output.logits.astype(jnp.float32)
    value = output.value.astype(jnp.float32)
    target_value = jnp.asarray(batch.value, jnp.float32)
    _check_targets(logits, value, jnp.asarray(batch.policy), target_value)

    terms = {name: losses.get(name) for name in ("policy", "value", *dict(aux_weights))}
    values = {name: losses.evaluate(term, output, batch) for name, term in terms.items()}
    l2 = _kernel_l2(params)
    loss = value_weight * values["value"] + values["policy"] + l2_weight * l2
    for name, weight in aux_weights:
        loss = loss + weight * values[name]

    log_probs = jax.nn.log_softmax(logits, axis=-1)
    probs = jnp.exp(log_probs)
    entropy = -jnp.sum(jnp.where(probs > 0, probs * log_probs, 0.0), axis=-1)
    agree = outcome_label(value) == outcome_label(target_value)
    metrics = {
        "loss": loss,
        **{terms[name].metric: values[name] for name in terms},
        "l2": l2,
        "policy_entropy": jnp.mean(entropy),
        "value_sign_accuracy": jnp.mean(agree.astype(jnp.float32)),
    }
    metrics = jax.lax.stop_gradient({k: v.astype(jnp.float32) for k, v in metrics.items()})
    return loss, (metrics, new_variables)


def make_update(
    apply_fn: ApplyFn,
    optimizer: optax.GradientTransformation,
    *,
    l2_weight: float = 1e-4,
    value_weight: float = 1.0,
    aux_weights: tuple[tuple[str, float], ...] = (),
    schedule: optax.Schedule | None = None,
) -> Callable[[TrainState, Sample], tuple[TrainState, dict[str, Array]]]:
    """Builds one gradient step on ``loss_fn``.

    Args:
      apply_fn: the network, from ``networks.make``.
      optimizer: the optax transformation the state was initialised with.
      l2_weight: weight of the L2 penalty on kernels.
      value_weight: weight of the value MSE.
      aux_weights: ``(name, weight)`` of each further registered loss term
        (``training.losses``); the batches must carry the targets they read.
      schedule: the optimiser's learning-rate schedule; when given, the metrics report
        ``learning_rate = schedule(state.step)``, the rate this step uses.

    Returns:
      A pure, un-jitted ``update(state, batch) -> (new_state, metrics)``; metrics are the
      float32[] scalars of ``loss_fn`` plus ``grad_norm`` (and ``learning_rate``). Jit it
      with ``jax.jit(update, donate_argnums=0)``.

    Raises:
      ValueError: an unregistered loss term (the message lists those registered).
    """
    aux_weights = tuple((name, float(weight)) for name, weight in aux_weights)
    for name, _ in aux_weights:
        losses.get(name)
    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)

    def update(state: TrainState, batch: Sample) -> tuple[TrainState, dict[str, Array]]:
        params = state.variables["params"]
        (_, (metrics, new_variables)), grads = grad_fn(
            params,
            state.variables,
            apply_fn,
            batch,
            l2_weight=l2_weight,
            value_weight=value_weight,
            aux_weights=aux_weights,
        )
        updates, opt_state = optimizer.update(grads, state.opt_state, params)
        variables = {**new_variables, "params": optax.apply_updates(params, updates)}
        metrics = {**metrics, "grad_norm": optax.tree.norm(grads).astype(jnp.float32)}
        if schedule is not None:
            metrics["learning_rate"] = jnp.asarray(schedule(state.step), jnp.float32)
        new_state = TrainState(variables=variables, opt_state=opt_state, step=state.step + 1)
        return new_state, metrics

    return update


def _kernel_l2(params: Variables) -> Array:
    """0.5 * the sum of squares of every param named ``kernel`` (not biases, not norms)."""
    leaves = jax.tree_util.tree_leaves_with_path(params)
    squares = [
        jnp.sum(jnp.square(leaf.astype(jnp.float32)))
        for path, leaf in leaves
        if path and getattr(path[-1], "key", None) == "kernel"
    ]
    return 0.5 * sum(squares, jnp.zeros((), jnp.float32))


def _check_targets(logits: Array, value: Array, policy: Array, target: Array) -> None:
    """Raises if the targets would broadcast against the predictions instead of matching."""
    if policy.shape != logits.shape or target.shape != value.shape:
        raise ValueError(
            f"loss_fn: the batch's policy and value must have the shapes of the network's "
            f"logits {list(logits.shape)} and value {list(value.shape)} ([N, A] and [N]), got "
            f"{list(policy.shape)} and {list(target.shape)}."
        )


def _check_choice(where: str, name: str, value: object, accepted: tuple[str, ...]) -> None:
    if value not in accepted:
        raise ValueError(
            f"{where}: {name} must be one of {', '.join(map(repr, accepted))}, got {value!r}."
        )


def _check_int(where: str, name: str, value: object, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{where}: {name} must be an integer >= {low}, got {value!r}.")


def _check_number(
    where: str, name: str, value: object, condition: Callable[[float], bool], expected: str
) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not condition(value):
        raise ValueError(f"{where}: {name} must be {expected}, got {value!r}.")
