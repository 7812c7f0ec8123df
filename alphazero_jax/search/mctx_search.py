"""The mctx adapter: a game plus a network become a batched tree search.

The mctx embedding is the batched game State. Conventions (docs/design.md, "Search"):

- the network's value is from the view of the player to move;
- ``recurrent_fn`` returns the reward for the player who just moved, with
  ``discount = -1`` (the next node's value is from the opponent's view), and ``0`` once
  the game is over, where the value is 0 too: nothing below a terminal node counts.
  A per-ply ``discount`` below 1 makes it ``-discount``: a value ``k`` plies away counts
  ``discount**k`` times, so the search prefers the quicker of two wins (and the slower of
  two losses), matching self-play's discounted value targets (``selfplay.episode_targets``);
- illegal actions are masked at the root (``invalid_actions``) and inside the tree (their
  prior logits set to the lowest float), so no NaN appears even when every action is
  illegal (terminal nodes, full boards);
- with ``heuristic_weight`` w above 0 a node is valued ``(1 - w) * network + w * heuristic``
  (the game's heuristic, from the mover's view), as AlphaGo mixed its value network with
  rollouts. Both lie in [-1, 1], and so does the mix. The network's value targets stay
  the plain outcomes; only the search, and through its visits the policy, sees the mix;
- values stay on their natural scale [-1, 1]. mctx's defaults min-max normalise Q over
  each node's visited children, which suits MuZero's unbounded returns but turns tiny
  differences between untrained value estimates into 0-versus-1 gaps, so that a search
  with a fresh network can lock onto its first move and miss a win one ply away.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

import jax
import jax.numpy as jnp
import mctx

from alphazero_jax import memory, plugs
from alphazero_jax.search import policies
from alphazero_jax.search.policies import SearchFn
from alphazero_jax.types import Array, Game, State


def qtransform_alphazero(tree: mctx.Tree, node_index: Array) -> Array:
    """PUCT's value term as in AlphaZero: raw Q in [-1, 1] from the mover's view, and an
    unvisited child valued at its parent's current value (first-play urgency = parent)."""
    qvalues = tree.qvalues(node_index)
    visited = tree.children_visits[node_index] > 0
    return jnp.where(visited, qvalues, tree.node_values[node_index])


def mask_logits(logits: Array, legal_action_mask: Array) -> Array:
    """Sets illegal logits to the lowest float32; all-illegal rows stay finite (uniform)."""
    return jnp.where(legal_action_mask, logits, jnp.finfo(jnp.float32).min)


def _evaluate(
    game: Game, apply_fn: Callable, variables: dict, states: State, heuristic_weight: float
):
    """Masked prior logits and values float32[B, A], float32[B] of batched ``states``; the
    values mix in ``heuristic_weight`` of the game's heuristic."""
    output, _ = apply_fn(variables, jax.vmap(game.observe)(states))
    legal = jax.vmap(game.legal_action_mask)(states)
    value = output.value
    if heuristic_weight:
        heuristic = jax.vmap(game.heuristic)(states)
        value = (1 - heuristic_weight) * value + heuristic_weight * heuristic
    return mask_logits(output.logits, legal), value


def make_root_fn(
    game: Game, apply_fn: Callable, *, heuristic_weight: float = 0.0
) -> Callable[[dict, State], mctx.RootFnOutput]:
    """``root_fn(variables, states[B]) -> mctx.RootFnOutput`` (the embedding is the states)."""

    def root_fn(variables: dict, states: State) -> mctx.RootFnOutput:
        logits, value = _evaluate(game, apply_fn, variables, states, heuristic_weight)
        return mctx.RootFnOutput(prior_logits=logits, value=value, embedding=states)

    return root_fn


def make_recurrent_fn(
    game: Game, apply_fn: Callable, *, discount: float = 1.0, heuristic_weight: float = 0.0
) -> Callable:
    """mctx's ``recurrent_fn(variables, key, action[B], states[B]) -> (output, states)``;
    ``discount`` is the per-ply discount of the next node's value (1: none), and
    ``heuristic_weight`` the game heuristic's share of a node's value (0: none)."""

    def recurrent_fn(variables: dict, key: Array, action: Array, states: State):
        del key  # The games are deterministic.
        next_states = jax.vmap(game.step)(states, action)
        logits, value = _evaluate(game, apply_fn, variables, next_states, heuristic_weight)
        mover = states.current_player
        reward = jnp.take_along_axis(next_states.rewards, mover[:, None], axis=1)[:, 0]
        reward = jnp.where(states.terminal, 0.0, reward)  # Nothing happens after the end.
        over = next_states.terminal
        output = mctx.RecurrentFnOutput(
            reward=reward,
            discount=jnp.where(over, 0.0, -discount),
            prior_logits=logits,
            value=jnp.where(over, 0.0, value),
        )
        return output, next_states

    return recurrent_fn


def tree_bytes(game: Game, num_simulations: int) -> int:
    """Bytes of the mctx tree of one position's search of ``num_simulations``: its
    ``num_simulations + 1`` nodes, each a State and per-action arrays (six of ``A`` int32 or
    float32, five scalars), counted twice (the search's loop carries a copy)."""
    return (num_simulations + 1) * _node_bytes(game)


def _node_bytes(game: Game) -> int:
    """A tree node's bytes, twice: a State and six per-action and five scalar arrays."""
    return 2 * (memory.state_bytes(game) + 4 * (6 * game.num_actions + 5))


def check_simulations(
    game: Game, num_simulations: int, *, batch_size: int = 1, name: str | None = None
) -> None:
    """Raises ``memory.MemoryBoundError`` unless searches of ``num_simulations`` for
    ``batch_size`` positions at a time fit this machine's memory (``memory.budget_bytes``);
    the message says the largest number of simulations that does. ``name``: what asked for
    them (an agent's spec), for the message."""
    node = batch_size * _node_bytes(game)
    memory.check(
        f"{name or f'{num_simulations:,} simulations'}|for its search tree "
        f"({batch_size:,} position{'s' * (batch_size > 1)} at a time)",
        num_simulations,
        bytes_per_unit=node,
        fixed=node,  # the root
    )


# Settings a policy turns off to play rather than self-play (its root noise), when it has them.
_NOISE = ("dirichlet_fraction", "gumbel_scale")
# Play-time overrides: config.search key -> the setting it replaces when above 0.
PLAY_OVERRIDES = {"play_c_puct": "c_puct", "play_value_scale": "value_scale"}


def search_settings(config_search: Mapping, *, play: bool) -> dict:
    """``make_search``'s keyword arguments from a run's ``config.search``.

    For self-play (``play=False``) they are the config's as written. To play
    (``play=True``: agents, evaluations) the root noise is off (``dirichlet_fraction`` and
    ``gumbel_scale`` 0, which a policy of one's own may take too), and each play-time
    override of ``PLAY_OVERRIDES`` that is above 0 replaces its setting: ``play_c_puct``
    PUCT's ``c_puct``, ``play_value_scale`` Gumbel's ``value_scale``. Self-play explores to
    learn, play exploits what was learnt. The overrides are no arguments of ``make_search``
    either way.
    """
    settings = dict(config_search)
    overrides = {key: settings.pop(key, 0.0) for key in PLAY_OVERRIDES}
    if play:
        settings.update(dict.fromkeys(_NOISE, 0.0))
        for key, value in overrides.items():
            if value:
                settings[PLAY_OVERRIDES[key]] = value
    return settings


def make_search(game: Game, apply_fn: Callable, *, policy: str = "puct", **settings) -> SearchFn:
    """Builds ``search(variables, key, states[B]) -> mctx.PolicyOutput`` of a registered
    search policy (``search.register``).

    Args:
      game: the game; its batched State is the tree's embedding.
      apply_fn: the network's apply function (``networks.make``).
      policy: a registered policy: ``"puct"`` (``make_puct``: ``mctx.muzero_policy``,
        AlphaZero's PUCT with Dirichlet noise at the root; its ``action`` is sampled from
        the visit counts), ``"gumbel"`` (``make_gumbel``: ``mctx.gumbel_muzero_policy``; its
        ``action`` is the sequential-halving choice) or one of one's own.
      **settings: the policy's keyword settings (``search.policies.settings_of(policy)``);
        those it leaves out keep its factory's defaults. A built-in policy's setting that
        this policy does not take (a run's ``config.search`` holds PUCT's and Gumbel's
        both) is dropped.

    Returns:
      The search function; the caller jits it. Its ``action_weights`` is the policy
      target: visit frequencies for PUCT, the improved policy for Gumbel.

    Raises:
      ValueError: an unknown policy (the message lists those registered), a setting the
        policy does not take, or one out of range.
    """
    factory = policies.get(policy).make
    accepted = policies.settings_of(policy)
    unknown = sorted(set(settings) - set(accepted) - built_in_settings())
    if unknown:
        described = ", ".join(f"{k}={v!r}" for k, v in accepted.items())
        raise ValueError(
            f"Unknown setting(s) {', '.join(unknown)} for search policy {policy!r}; accepted "
            f"settings (with defaults): {described}."
        )
    settings = {**accepted, **{k: v for k, v in settings.items() if k in accepted}}
    num_simulations = settings["num_simulations"]
    if not isinstance(num_simulations, int) or num_simulations < 1:
        raise ValueError(f"num_simulations must be an int >= 1, got {num_simulations!r}.")
    check_simulations(game, num_simulations)
    if not 0 < settings["discount"] <= 1:
        raise ValueError(f"discount must be in (0, 1], got {settings['discount']!r}.")
    if not 0 <= settings["heuristic_weight"] <= 1:
        raise ValueError(
            f"heuristic_weight must be in [0, 1], got {settings['heuristic_weight']!r}."
        )
    return factory(game, apply_fn, **settings)


def _invalid_actions(game: Game, states: State) -> Array:
    """bool[B, A] for mctx: the illegal moves. A finished game has no legal move; its
    (ignored) search sees all moves as legal rather than none, which keeps every statistic
    finite."""
    legal = jax.vmap(game.legal_action_mask)(states)
    return ~legal & legal.any(axis=-1, keepdims=True)


def make_puct(
    game: Game,
    apply_fn: Callable,
    *,
    num_simulations: int = 64,
    dirichlet_alpha: float = 0.3,
    dirichlet_fraction: float = 0.25,
    c_puct: float = 1.25,
    c_puct_base: float = 19652.0,
    discount: float = 1.0,
    heuristic_weight: float = 0.0,
) -> SearchFn:
    """The ``"puct"`` search policy: ``mctx.muzero_policy`` with AlphaZero's PUCT, Dirichlet
    noise at the root and ``qtransform_alphazero``.

    Args:
      game: the game; its batched State is the tree's embedding.
      apply_fn: the network's apply function.
      num_simulations: simulations per search (a static int, >= 1).
      dirichlet_alpha: the root noise's concentration.
      dirichlet_fraction: the root noise's weight (0 disables the noise).
      c_puct: the exploration constant (mctx's ``pb_c_init``).
      c_puct_base: the visit-count scale of the constant's growth (mctx's ``pb_c_base``).
      discount: per-ply discount of values, in (0, 1]; 1 (AlphaZero's) values every win
        alike, below 1 the search prefers quicker wins. Use the value targets' discount.
      heuristic_weight: the game heuristic's share of every node's value, in [0, 1]; 0
        (AlphaZero's) values nodes by the network alone.
    """
    return _mctx_search(
        game,
        apply_fn,
        functools.partial(
            mctx.muzero_policy,
            dirichlet_alpha=dirichlet_alpha,
            dirichlet_fraction=dirichlet_fraction,
            pb_c_init=c_puct,
            pb_c_base=c_puct_base,
            qtransform=qtransform_alphazero,
        ),
        num_simulations=num_simulations,
        discount=discount,
        heuristic_weight=heuristic_weight,
    )


def make_gumbel(
    game: Game,
    apply_fn: Callable,
    *,
    num_simulations: int = 64,
    max_num_considered_actions: int = 16,
    gumbel_scale: float = 1.0,
    value_scale: float = 0.1,
    maxvisit_init: float = 50.0,
    discount: float = 1.0,
    heuristic_weight: float = 0.0,
) -> SearchFn:
    """The ``"gumbel"`` search policy: ``mctx.gumbel_muzero_policy`` with Q completed by the
    mixed value, unscaled; arguments as ``make_puct``'s, and

    Args:
      max_num_considered_actions: the root candidates of sequential halving.
      gumbel_scale: the Gumbel noise's scale (0 makes the search deterministic).
      value_scale, maxvisit_init: the monotone transform of a completed Q before it is
        added to the prior's logits, ``sigma(q) = (maxvisit_init + max_b N(b)) *
        value_scale * q`` (Danihelka et al., 2022; mctx's defaults 0.1 and 50). The
        larger they are, the more the search's values outweigh the prior, both in the
        move chosen and in the improved policy.
    """
    return _mctx_search(
        game,
        apply_fn,
        functools.partial(
            mctx.gumbel_muzero_policy,
            max_num_considered_actions=max_num_considered_actions,
            gumbel_scale=gumbel_scale,
            qtransform=functools.partial(
                mctx.qtransform_completed_by_mix_value,
                value_scale=value_scale,
                maxvisit_init=maxvisit_init,
                rescale_values=False,
            ),
        ),
        num_simulations=num_simulations,
        discount=discount,
        heuristic_weight=heuristic_weight,
    )


def _mctx_search(
    game, apply_fn, run, *, num_simulations: int, discount: float, heuristic_weight: float
) -> SearchFn:
    """``search(variables, key, states)`` of one of mctx's policies (``run``)."""
    root_fn = make_root_fn(game, apply_fn, heuristic_weight=heuristic_weight)
    recurrent_fn = make_recurrent_fn(
        game, apply_fn, discount=discount, heuristic_weight=heuristic_weight
    )

    def search(variables: dict, key: Array, states: State) -> mctx.PolicyOutput:
        return run(
            params=variables,
            rng_key=key,
            root=root_fn(variables, states),
            recurrent_fn=recurrent_fn,
            num_simulations=num_simulations,
            invalid_actions=_invalid_actions(game, states),
        )

    return search


policies.register("puct", make_puct, choose=policies.choose_by_visits, page="puct")
policies.register("gumbel", make_gumbel, choose=policies.choose_by_halving, page="gumbel")


def built_in_settings() -> set[str]:
    """The settings of every built-in search policy: a run's ``config.search`` holds them
    all, whichever policy it chose."""
    registry = plugs.SEARCH_POLICIES
    return {
        key
        for name in registry.available()
        if registry.is_built_in(name)
        for key in policies.settings_of(name)
    }


def root_value(output: mctx.PolicyOutput) -> Array:
    """float32[B]: the search's value of each root position, from its mover's view."""
    return output.search_tree.node_values[:, mctx.Tree.ROOT_INDEX]
