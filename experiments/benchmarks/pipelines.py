"""The self-play pipelines that ``experiments.benchmarks.selfplay`` times, in a module
without flags, so that a test can import them beside other benchmarks' flags: the
library's search and self-play over a mesh (``pipeline``), and a network that costs
nothing (``no_network``), whose pipeline's time is the search's and the game's alone."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alphazero_jax import networks, search
from alphazero_jax.training import budgets, openings, selfplay
from alphazero_jax.types import Game


def no_network(game: Game):
    """An apply function of the network's outputs that costs nothing: uniform priors and
    zero values (its only work a slice of the observations, which keeps them an input)."""

    def apply_fn(variables, observations, train=False):
        del train
        values = jnp.zeros_like(observations[:, 0, 0, 0])
        logits = jnp.zeros((observations.shape[0], game.num_actions)) + values[:, None]
        return networks.NetworkOutput(logits, values, {}), variables

    return apply_fn


def pipeline(game, apply_fn, mesh, *, policy, batch, moves, simulations):
    """Jitted ``play(variables, key)``: ``batch`` games (split over ``mesh``) of ``moves``
    plies each, every move searched by ``policy`` with ``simulations`` and sampled."""
    search_fn = search.make_search(game, apply_fn, policy=policy, num_simulations=simulations)
    batch_size = batch // mesh.devices.size
    move_search = selfplay.make_move_search(
        search_fn, policy=policy, num_sampling_moves=moves, with_root_value=False
    )
    budget = budgets.full.make_full(
        lambda n: move_search, num_simulations=simulations, batch_size=batch_size
    )
    play = selfplay.make_selfplay(
        game,
        budget,
        opening=openings.make("none", game),
        batch_size=batch_size,
        num_moves=moves,
    )
    return jax.jit(selfplay.shard(play, mesh, "batch"))
