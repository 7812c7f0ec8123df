"""The networks: a registry of network kinds, and the AlphaZero ResNet registered in it.

``make(game, kind=..., **settings)`` builds a registered kind's Flax module, initialises it,
and returns a pure ``apply_fn`` together with the initial variables; no module object
reaches the caller. ``register(name, make_module)`` adds a network of one's own (any Flax
module whose output is policy logits, a value and named auxiliary outputs); the ResNet is
the kind ``"resnet"`` (``make_resnet``, in ``networks.resnet`` with its layout;
``make_network`` builds it), and ``"resnet_any_size"`` (``networks.any_size``) the same trunk
with heads whose variables fit every board size of a game. The value is from the point of
view of the player to move, as are the observations. ``networks.outputs`` holds what a
network returns (``NetworkOutput``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp

from alphazero_jax import plugs
from alphazero_jax.networks.any_size import make_any_size_resnet
from alphazero_jax.networks.outputs import ApplyFn, NetworkOutput, Variables
from alphazero_jax.networks.resnet import (
    ACTIVATIONS,
    COMPUTE_DTYPES,
    NORMALIZATIONS,
    _check_choice,
    flops_per_evaluation,
    make_resnet,
)
from alphazero_jax.registry import module_of
from alphazero_jax.types import Array, Game

__all__ = [
    "ACTIVATIONS",
    "COMPUTE_DTYPES",
    "DEFAULT_KIND",
    "DRAW_MARGIN",
    "NORMALIZATIONS",
    "ApplyFn",
    "NetworkKind",
    "NetworkOutput",
    "Variables",
    "available",
    "factory",
    "flops_per_evaluation",
    "get",
    "make",
    "make_any_size_resnet",
    "make_apply_fn",
    "make_inference_apply_fn",
    "make_network",
    "make_resnet",
    "num_parameters",
    "outcome_label",
    "output_shapes",
    "register",
    "settings_of",
]


class NetworkKind(NamedTuple):
    """A registered network kind: ``make(game, **settings) -> flax.linen.Module``."""

    name: str
    make: Callable[..., nn.Module]


DEFAULT_KIND = "resnet"


def register(name: str, make_module: Callable[..., nn.Module]) -> None:
    """Adds a network of one's own, so that ``make(game, kind=name)`` and training configs
    (``config.network.kind = name``) build it; the ResNet is registered the same way.

    Args:
      name: the kind's name, an identifier.
      make_module: ``make_module(game, *, setting=default, ...) -> flax.linen.Module``: its
        keyword-only arguments with literal defaults are the kind's settings (a run's
        ``config.network`` beside ``kind``). The module's ``__call__(observations, train)``
        maps float32[B, H, W, C] to ``NetworkOutput`` or ``(logits, value)`` or
        ``(logits, value, aux)``: float32[B, A] logits, float32[B] values in [-1, 1] for
        the player to move, and ``aux`` a dict of named auxiliary outputs (``[B, ...]``)
        that loss terms read. Batch statistics, if any, live in ``"batch_stats"``.

    Raises:
      ValueError: a name already taken by another factory, or not an identifier.
    """
    plugs.NETWORKS.register(name, NetworkKind(name, make_module), module=module_of(make_module))


def available() -> tuple[str, ...]:
    """The registered network kinds, sorted."""
    return plugs.NETWORKS.available()


def get(kind: str) -> NetworkKind:
    """The registered network kind ``kind``.

    Raises:
      ValueError: for a kind nobody registered; the message lists those registered.
    """
    return plugs.NETWORKS.get(kind)


def factory(kind: str) -> Callable[..., nn.Module]:
    """The registered factory of ``kind`` (``get(kind).make``)."""
    return get(kind).make


def settings_of(kind: str) -> dict[str, Any]:
    """Each setting of the network ``kind`` with its default, e.g. ``{"channels": 64, ...}``."""
    parameters = inspect.signature(factory(kind)).parameters
    return {
        name: p.default
        for name, p in parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is not inspect.Parameter.empty
    }


def make_apply_fn(game: Game, *, kind: str = DEFAULT_KIND, **settings) -> ApplyFn:
    """The network ``kind``'s apply function for ``game`` (no variables): see ``make``.

    Raises:
      ValueError: for an unknown kind or setting, or a value the kind's factory refuses.
    """
    return _make_apply_fn(game, _module(game, kind, settings))


def make(
    game: Game, *, kind: str = DEFAULT_KIND, key: jax.Array | None = None, **settings
) -> tuple[ApplyFn, Variables]:
    """Builds a registered network for a game and initialises its variables.

    Args:
      game: the game; fixes the observation shape ``(H, W, C)`` and the number of actions.
      kind: one of ``available()``: ``"resnet"`` (``make_resnet``) or one registered.
      key: PRNG key for the initial weights; ``None`` means ``jax.random.key(0)``.
      **settings: the kind's settings (``settings_of(kind)``); the rest keep their defaults.

    Returns:
      ``(apply_fn, variables)``. ``apply_fn(variables, observations, *, train=False)`` maps
      float32[B, H, W, C] observations to ``(NetworkOutput, new_variables)``. With
      ``train=True`` and batch statistics, the batch's statistics normalise and
      ``new_variables["batch_stats"]`` holds the updated running averages; otherwise
      ``new_variables is variables``.

    Raises:
      ValueError: for an unknown kind or setting, a value the kind refuses, or outputs of
        the wrong shapes.
    """
    module = _module(game, kind, settings)
    apply_fn = _make_apply_fn(game, module)
    key = jax.random.key(0) if key is None else key
    dummy = jnp.zeros((1, *tuple(game.observation_shape)), jnp.float32)
    # Eager on purpose: op-by-op kernels are cached across calls, a jitted init is not.
    variables = dict(module.init(key, dummy, train=False))
    output, _ = jax.eval_shape(lambda v: apply_fn(v, dummy), variables)
    _check_output(kind, game, output)
    return apply_fn, variables


def output_shapes(game: Game, *, kind: str = DEFAULT_KIND, **settings) -> NetworkOutput:
    """What the network ``kind`` returns for one position of ``game``, as shapes
    (``jax.ShapeDtypeStruct``): nothing is initialised or computed, so a config's network
    is checked in a moment.

    Raises:
      ValueError: for an unknown kind or setting, a value the kind refuses, or outputs of
        the wrong shapes.
    """
    module = _module(game, kind, settings)
    dummy = jax.ShapeDtypeStruct((1, *tuple(game.observation_shape)), jnp.float32)
    variables = jax.eval_shape(lambda x: module.init(jax.random.key(0), x, train=False), dummy)
    output = jax.eval_shape(
        lambda v, x: _as_output(module.apply(v, x, train=False)), variables, dummy
    )
    _check_output(kind, game, output)
    return output


def make_network(
    game: Game,
    *,
    channels: int = 64,
    blocks: int = 4,
    activation: str = "relu",
    normalization: str = "batch_norm",
    value_hidden: int = 64,
    key: jax.Array | None = None,
) -> tuple[ApplyFn, Variables]:
    """Builds the AlphaZero ResNet for a game and initialises its variables:
    ``make(game, kind="resnet", ...)``; the settings are ``make_resnet``'s.

    Returns:
      ``(apply_fn, variables)`` as ``make``; ``variables`` holds ``"params"`` and, with
      batch norm, ``"batch_stats"``.

    Raises:
      ValueError: for a setting out of range or not among the accepted names.
    """
    return make(
        game,
        kind="resnet",
        key=key,
        channels=channels,
        blocks=blocks,
        activation=activation,
        normalization=normalization,
        value_hidden=value_hidden,
    )


def make_inference_apply_fn(
    game: Game, *, compute_dtype: str, kind: str = DEFAULT_KIND, **settings
) -> ApplyFn:
    """The apply function of the same network (same float32 variables) computing in
    ``compute_dtype``: ``"bfloat16"`` halves the bytes a convolution moves and runs on a
    GPU's or TPU's bfloat16 units; its outputs are float32 again. For inference (search,
    self-play); the learner keeps float32. The kind's factory must take ``compute_dtype``
    (the ResNet's does).

    Raises:
      ValueError: for an unknown dtype, or a kind without a ``compute_dtype`` setting.
    """
    _check_choice("compute_dtype", compute_dtype, COMPUTE_DTYPES)
    if "compute_dtype" not in settings_of(kind):
        raise ValueError(
            f"Network kind {kind!r} has no compute_dtype setting, so it cannot compute in "
            f"{compute_dtype}; keep selfplay.inference_dtype='float32' for it."
        )
    return make_apply_fn(game, kind=kind, compute_dtype=compute_dtype, **settings)


def _module(game: Game, kind: str, settings: dict) -> nn.Module:
    """The kind's module, its settings checked against its factory's signature first."""
    accepted = settings_of(kind)
    unknown = sorted(set(settings) - set(accepted))
    if unknown:
        described = ", ".join(f"{k}={v!r}" for k, v in accepted.items())
        raise ValueError(
            f"Unknown setting(s) {', '.join(unknown)} for network kind {kind!r}; accepted "
            f"settings (with defaults): {described}."
        )
    return factory(kind)(game, **settings)


def _check_output(kind: str, game: Game, output: NetworkOutput) -> None:
    """Raises unless a network's outputs for one position have the library's shapes."""
    logits, value = tuple(output.logits.shape), tuple(output.value.shape)
    if logits != (1, game.num_actions) or value != (1,):
        raise ValueError(
            f"{plugs.NETWORKS.describe(kind)} must return logits [B, A] = "
            f"[1, {game.num_actions}] and value [B] = [1] for one {game.name} position, got "
            f"{list(logits)} and {list(value)}."
        )


def _as_output(output: Any) -> NetworkOutput:
    """A module's output as a float32 ``NetworkOutput`` with a dict of auxiliary outputs."""
    if isinstance(output, NetworkOutput):
        logits, value, aux = output
    elif isinstance(output, tuple) and len(output) in (2, 3):
        logits, value, aux = (*output, {})[:3]
    else:
        raise ValueError(
            "A network must return NetworkOutput, (logits, value) or (logits, value, aux), "
            f"got {type(output).__name__}."
        )
    return NetworkOutput(
        jnp.asarray(logits).astype(jnp.float32), jnp.asarray(value).astype(jnp.float32), dict(aux)
    )


def _make_apply_fn(game: Game, module: nn.Module) -> ApplyFn:
    """A new apply function of ``module``. Whoever jits over it (a training session, an
    agent, an evaluator) holds the function, so that what it compiles is freed with it."""
    observation_shape = tuple(game.observation_shape)

    def apply_fn(
        variables: Variables, observations: Array, *, train: bool = False
    ) -> tuple[NetworkOutput, Variables]:
        observations = jnp.asarray(observations, jnp.float32)
        if observations.ndim != 4 or observations.shape[1:] != observation_shape:
            raise ValueError(
                f"{game.name} network: observations must have shape [B, "
                f"{', '.join(map(str, observation_shape))}] (channels last), got "
                f"{list(observations.shape)}; add a batch axis to a single observation."
            )
        if train and "batch_stats" in variables:
            output, updates = module.apply(
                variables, observations, train=True, mutable=["batch_stats"]
            )
            return _as_output(output), {**variables, "batch_stats": updates["batch_stats"]}
        return _as_output(module.apply(variables, observations, train=False)), variables

    return apply_fn


def num_parameters(variables: Variables) -> int:
    """Counts the scalar weights in ``variables["params"]`` (batch statistics excluded)."""
    return sum(int(leaf.size) for leaf in jax.tree_util.tree_leaves(variables["params"]))


register("resnet", make_resnet)
register("resnet_any_size", make_any_size_resnet)  # one set of variables for every board size

DRAW_MARGIN = 1.0 / 3.0  # |value| up to this reads as a draw.


def outcome_label(value: Array) -> Array:
    """The value head read as an outcome: +1 for a win (> 1/3), -1 for a loss (< -1/3),
    0 for a draw in between."""
    return jnp.where(value > DRAW_MARGIN, 1, jnp.where(value < -DRAW_MARGIN, -1, 0))
