"""Evaluation helpers for the proof scripts: a trained network's moves (greedy search or raw
policy), its results against a random player, and its value accuracy on Pons' sets."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alphazero_jax import games, learner, pons, search


def _search_settings(run, simulations: int) -> dict:
    settings = dict(run.config.search)
    settings.update(dirichlet_fraction=0.0, gumbel_scale=0.0)  # evaluation: no noise
    if simulations:
        settings["num_simulations"] = simulations
    return settings


def describe_search(run, simulations: int) -> str:
    settings = _search_settings(run, simulations)
    return f"{settings['policy']}, {settings['num_simulations']} simulations"


def _greedy_search(run, simulations: int):
    settings = _search_settings(run, simulations)
    search_fn = search.make_search(run.game, run.apply_fn, **settings)

    def moves(variables, key, states):
        search_key, choice_key = jax.random.split(key)
        output = search_fn(variables, search_key, states)
        greedy = jnp.zeros_like(states.terminal)
        return search.choose_action(output, choice_key, policy=settings["policy"], sample=greedy)

    return moves


def search_moves(run, states, key, simulations: int = 0):
    """int32[B]: the greedy move of a noise-free search from each state."""
    return jax.jit(_greedy_search(run, simulations))(run.variables, key, states)


def raw_policy_moves(run, states):
    """int32[B]: the legal move with the highest policy logit."""
    observations = jax.vmap(run.game.observe)(states)
    output, _ = run.apply_fn(run.variables, observations)
    legal = jax.vmap(run.game.legal_action_mask)(states)
    return jnp.argmax(search.mask_logits(output.logits, legal), axis=-1)


def play_random(run, num_games: int, key, simulations: int = 0) -> dict[str, float]:
    """Win, draw and loss rates of greedy search against uniform random moves; the network
    is the first player in even-numbered games."""
    game, moves = run.game, _greedy_search(run, simulations)
    agent_player = jnp.arange(num_games) % 2

    @jax.jit
    def play(variables, key):
        def move(states, key):
            search_key, random_key = jax.random.split(key)
            legal = jax.vmap(game.legal_action_mask)(states)
            random_moves = jax.random.categorical(random_key, jnp.where(legal, 0.0, -1e9))
            chosen = moves(variables, search_key, states)
            action = jnp.where(states.current_player == agent_player, chosen, random_moves)
            return jax.vmap(game.step)(states, action), None

        states = jax.vmap(game.init)(jax.random.split(key, num_games))
        keys = jax.random.split(key, game.max_num_moves)
        final, _ = jax.lax.scan(move, states, keys)
        return jnp.take_along_axis(final.rewards, agent_player[:, None], axis=1)[:, 0]

    score = np.asarray(play(run.variables, key))
    return {
        "win": float(np.mean(score > 0)),
        "draw": float(np.mean(score == 0)),
        "loss": float(np.mean(score < 0)),
    }


def pons_value_accuracy(run, set_name: str) -> dict[str, float]:
    """The value head against the exact outcome (the sign of Pons' score) of each position.

    ``three_way``: win/draw/loss read as the learner's ``value_sign_accuracy`` does
    (``learner.outcome_label``); ``decisive_sign``: the sign of the value on the positions
    that are not draws.
    """
    positions = pons.load(set_name)
    game = run.game
    states = games.replay_batch(game, [game.actions_from_text(p.moves) for p in positions])
    output, _ = jax.jit(run.apply_fn)(run.variables, jax.vmap(game.observe)(states))
    value = np.asarray(output.value)
    label = np.sign([p.score for p in positions])
    predicted = np.asarray(learner.outcome_label(value))
    decisive = label != 0
    return {
        "three_way": float(np.mean(predicted == label)),
        "decisive_sign": float(np.mean(np.sign(value[decisive]) == label[decisive])),
    }
