"""The baselines of the literature: random, greedy, alpha-beta minimax and rollout MCTS.

Each builder returns an ``Agent`` whose ``act_fn(params, key, states[B])`` is pure and
jittable; ties are broken uniformly at random (``search.uniform_choice``). The searches
themselves live in ``search``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alphazero_jax.agents import registry
from alphazero_jax.games import othello, quoridor
from alphazero_jax.search import alphabeta, rollout_mcts
from alphazero_jax.search.choice import uniform_choice
from alphazero_jax.types import Agent, Array, Game, PRNGKey, State


def random_agent(game: Game) -> Agent:
    """Uniformly random legal moves."""

    def act_fn(params: None, key: PRNGKey, states: State) -> Array:
        del params
        return uniform_choice(key, jax.vmap(game.legal_action_mask)(states))

    return Agent("random", act_fn)


def greedy_agent(game: Game) -> Agent:
    """One ply of lookahead: an immediate win if there is one, else the move after which
    the heuristic is best for the mover (a one-ply ``minimax``, ties broken at random)."""
    return minimax_agent(game, depth=1, name="greedy")


def most_flips_agent(game: Game) -> Agent:
    """The classic greedy Othello player: the placement that flips the most discs (ties
    broken at random), or the pass when it must. Othello only."""
    if game.name != othello.NAME:
        raise ValueError(
            f"Agent spec 'greedy:flips' plays Othello: expected game 'othello', got "
            f"{game.name!r}; use 'greedy'."
        )
    actions = jnp.arange(game.num_actions, dtype=jnp.int32)

    def discs_after(state: State) -> Array:
        children = jax.vmap(game.step, in_axes=(None, 0))(state, actions)
        return othello.count_discs(children)[:, state.current_player]

    def act_fn(params: None, key: PRNGKey, states: State) -> Array:
        del params
        legal = jax.vmap(game.legal_action_mask)(states)
        discs = jnp.where(legal, jax.vmap(discs_after)(states), -1)
        return uniform_choice(key, legal & (discs == discs.max(axis=-1, keepdims=True)))

    return Agent("greedy:flips", act_fn)


def shortest_path_move(state: State, key: PRNGKey) -> Array:
    """int32[]: the greedy Quoridor move for one state. While the mover has at least
    as many walls in hand as the opponent it steps along a shortest path to its goal;
    otherwise it places the wall that lengthens the opponent's shortest path the most (if
    one does; else it steps). Ties are broken uniformly at random with ``key``."""
    player = state.current_player
    own_walls, other_walls = state.walls_left[player], state.walls_left[1 - player]
    pawn_legal = state.legal[: quoridor.NUM_PAWN_ACTIONS]
    distance = jnp.where(pawn_legal, quoridor.pawn_distances(state), quoridor.FAR)
    step_scores = jnp.where(pawn_legal & (distance == distance.min()), 1.0, 0.0)
    before, after = quoridor.opponent_distances(state)
    wall_legal = state.legal[quoridor.NUM_PAWN_ACTIONS :]
    gain = jnp.where(wall_legal, after - before, -1)
    wall_scores = jnp.where(wall_legal & (gain == gain.max()), 1.0, 0.0)
    walling = (own_walls < other_walls) & (gain.max() > 0)
    scores = jnp.concatenate(
        [jnp.where(walling, 0.0, step_scores), jnp.where(walling, wall_scores, 0.0)]
    )
    scores = jnp.where(jnp.any(scores > 0), scores, state.legal.astype(jnp.float32))
    return jax.random.categorical(key, jnp.log(scores)).astype(jnp.int32)


def shortest_path_agent(game: Game) -> Agent:
    """The greedy Quoridor player (``shortest_path_move``): it steps along a
    shortest path to its goal while it has at least as many walls in hand as the opponent,
    else it places the wall that lengthens the opponent's shortest path the most. Quoridor
    only."""
    if game.name != quoridor.NAME:
        raise ValueError(
            f"Agent spec 'greedy:path' plays Quoridor: expected game 'quoridor', got "
            f"{game.name!r}; use 'greedy'."
        )

    def act_fn(params: None, key: PRNGKey, states: State) -> Array:
        del params
        keys = jax.random.split(key, states.current_player.shape[0])
        return jax.vmap(shortest_path_move)(states, keys)

    return Agent("greedy:path", act_fn)


def minimax_agent(game: Game, *, depth: int, name: str | None = None) -> Agent:
    """Alpha-beta ``depth`` plies deep on the game's heuristic (``search.alphabeta``), drawing
    uniformly among the moves of equal best value; finished games get move 0."""
    negamax = jax.vmap(alphabeta.make_negamax(game, depth=depth))

    def act_fn(params: None, key: PRNGKey, states: State) -> Array:
        del params
        values, legal = negamax(states)
        return uniform_choice(key, alphabeta.best_moves(values, legal))

    return Agent(name or MINIMAX.spec(depth), act_fn)


def mcts_agent(game: Game, *, num_simulations: int) -> Agent:
    """UCT with uniform priors and random playouts; see ``search.rollout_mcts``."""
    act_fn = rollout_mcts.make_rollout_mcts(game, num_simulations=num_simulations)
    return Agent(MCTS.spec(num_simulations), act_fn)


def _minimax(game: Game, spec: str, argument: str) -> Agent:
    depth = registry.count(spec, argument, minimum=1)
    try:
        return minimax_agent(game, depth=depth)
    except ValueError as error:  # deeper than the game's longest game
        raise registry.SpecError(f"Agent spec {spec!r}: {error}") from None


def _mcts(game: Game, spec: str, argument: str) -> Agent:
    return mcts_agent(game, num_simulations=registry.count(spec, argument, minimum=1))


MINIMAX = registry.AgentKind(
    "minimax",
    "minimax:<depth>",
    "Alpha-beta on a heuristic",
    "alpha-beta `<depth>` plies deep on the game's heuristic, exact at game ends, faster wins "
    "first, random among equal moves",
    _minimax,
    strength=registry.Strength("depth", 1, 4),
    interactive=True,
    example="minimax:2",
)
MCTS = registry.AgentKind(
    "mcts",
    "mcts:<simulations>",
    "MCTS with random playouts",
    "UCT with uniform priors and one random playout per new node, `<simulations>` a move (mctx)",
    _mcts,
    strength=registry.Strength("simulations", 1, 400),
    interactive=True,
    example="mcts:8",
)

KINDS = (  # weakest first, roughly: the play page offers them in the reverse order
    registry.AgentKind(
        "random",
        "random",
        "Random",
        "uniform over the legal moves",
        registry.no_argument(random_agent),
        interactive=True,
        example="random",
    ),
    registry.AgentKind(
        "greedy",
        "greedy",
        "Greedy",
        "an immediate win if there is one, else the move with the best heuristic after it",
        registry.no_argument(greedy_agent),
        interactive=True,
        example="greedy",
    ),
    registry.AgentKind(
        "greedy:flips",
        "greedy:flips",
        "Greedy (most flips)",
        "the move that flips the most discs (the classic greedy Othello player)",
        registry.no_argument(most_flips_agent),
        games=(othello.NAME,),
        interactive=True,
        example="greedy:flips",
    ),
    MINIMAX,
    MCTS,
    registry.AgentKind(
        "greedy:path",
        "greedy:path",
        "Greedy (shortest path, walls back)",
        "walks a shortest path to its goal row; walls back when behind on walls",
        registry.no_argument(shortest_path_agent),
        games=(quoridor.NAME,),
        interactive=True,  # after mcts: its random playouts take seconds a move on 9x9
        example="greedy:path",
    ),
)
