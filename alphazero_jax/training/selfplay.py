"""Batched self-play: B game slots advanced together in one ``lax.scan``, a search per move.

A game that ends is replaced at once by a new one in its slot, so every search is spent on
a real position. After ``num_moves`` moves each slot holds some finished games and one
unfinished game at the end; positions of finished games get their value targets from the
outcome, and those of the unfinished one are marked invalid (never trained on).

Self-play is made of parts passed in, each a function (``training.budgets`` and
``training.openings`` hold the built-ins and say what each is):

- a *budget* searches every slot's move and says which positions are kept for training
  (every move in full; a playout cap; more simulations for the youngest games; one's own);
- an *opening* rule chooses each game's first plies (none; a handicap; random plies);
- ``make_move_search`` is the run's search with its move rule, which budgets build at the
  simulations they need: moves are sampled for the first ``num_sampling_moves`` plies of
  each game and chosen greedily after (``search.choose_action``).

With ``root_value_weight`` w above 0, a position's value target is ``(1 - w) * outcome +
w * root value``: the search's value of the position (mctx's root value, mover's view)
mixed into the game's outcome, which is less noisy than the outcome of one game whose
later moves were sampled, and bootstraps like a temporal-difference target.

With ``score_fn`` given (``training.targets.recorder``), a number of each state after its
move is recorded where a game ends (``Trajectory.score``), e.g. the game's final score for
the target ``final_score``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

from alphazero_jax import plugs, search
from alphazero_jax.registry import WrongShapes
from alphazero_jax.training.budgets import BudgetFn, MoveSearchFn, Searched
from alphazero_jax.training.openings import Opening, Start
from alphazero_jax.types import Array, Game, State, Trajectory


def episode_targets(
    ended: Array, first_player_outcome: Array, player: Array, *, discount: float = 1.0
):
    """Value targets and validity of ``[T, B]`` positions played with restarts.

    Args:
      ended: bool[T, B], whether the game ended with the move played at that position.
      first_player_outcome: float32[T, B], the first player's result where ``ended``.
      player: int32[T, B], the player to move at each position.
      discount: per-ply discount: a position ``k`` plies before its game's last move gets
        ``discount**k`` times the outcome (the search's ``discount``; 1: the plain outcome).

    Returns:
      ``(value, valid)``: float32[T, B], each position's (discounted) final outcome from its
      mover's view (0 where invalid), and bool[T, B], True where the position's game ended
      within the ``T`` moves. A position's game ends at the first ``ended`` at or after it.
    """

    def backwards(carry, inputs):
        outcome, has_end = carry
        ended_here, outcome_here, mover = inputs
        outcome = jnp.where(ended_here, outcome_here, discount * outcome)
        has_end = ended_here | has_end
        value = jnp.where(mover == 0, outcome, -outcome)
        return (outcome, has_end), (jnp.where(has_end, value, 0.0), has_end)

    batch = ended.shape[1]
    init = (jnp.zeros(batch, jnp.float32), jnp.zeros(batch, bool))
    _, (value, valid) = jax.lax.scan(
        backwards, init, (ended, first_player_outcome, player), reverse=True
    )
    return value, valid


def make_move_search(
    search_fn: search.SearchFn,
    *,
    policy: str,
    num_sampling_moves: int,
    with_root_value: bool = True,
) -> MoveSearchFn:
    """``search(variables, key, states) -> Searched`` of ``search_fn`` with ``policy``'s move
    rule: the move sampled in each game's first ``num_sampling_moves`` plies, else chosen;
    with ``with_root_value``, the search's value of each root (else zeros: a search without
    a tree, or a run that does not read it).

    ``key`` is the move's key: the search and the choice draw from its first two quarters
    (``jax.random.split(key, 4)``), self-play's opening and restarts from the other two.
    """

    def move_search(variables: dict, key: Array, states: State) -> Searched:
        search_key, choice_key = jax.random.split(key, 4)[:2]
        output = search_fn(variables, search_key, states)
        batch, weights = states.current_player.shape[0], jnp.shape(output.action_weights)
        if len(weights) != 2 or weights[0] != batch:
            raise WrongShapes(
                plugs.SEARCH_POLICIES,
                f"expected action_weights [B, A] with B = {batch}, got {list(weights)}.",
            )
        sampling = states.num_moves < num_sampling_moves
        action = search.choose_action(output, choice_key, policy=policy, sample=sampling)
        if with_root_value:
            root_value = search.root_value(output)
        else:
            root_value = jnp.zeros(batch, jnp.float32)
        return Searched(action, output.action_weights, root_value)

    return move_search


class _Record(NamedTuple):
    """What self-play records of each move of each slot (the scan's output)."""

    observation: Array  # float32[B, H, W, C]
    legal: Array  # bool[B, A]
    policy: Array  # float32[B, A]
    player: Array  # int32[B]
    ended: Array  # bool[B]
    outcome: Array  # float32[B]: the first player's result where ended
    root_value: Array  # float32[B]
    kept: Array  # bool[B]: kept by the budget, and not an opening ply
    score: Array | None  # float32[B] of score_fn, or None


def make_selfplay(
    game: Game,
    budget: BudgetFn,
    *,
    opening: Opening,
    batch_size: int,
    num_moves: int,
    discount: float = 1.0,
    root_value_weight: float = 0.0,
    score_fn: Callable[[State], Array] | None = None,
) -> Callable[[dict, Array], Trajectory]:
    """Builds ``selfplay(variables, key) -> Trajectory`` of ``[num_moves, batch_size]``.

    Args:
      game: the game.
      budget: ``budget(variables, key, states, plies) -> (Searched, keep)``, each move's
        search of every slot (``training.budgets``), e.g. ``budgets.full.make_full(
        search_with, num_simulations=64, batch_size=B)``.
      opening: the rule of each game's first plies (``training.openings``).
      batch_size: game slots played together.
      num_moves: moves per slot. Training wants at least ``game.max_num_moves``, so that
        every slot finishes a game (twice that or more wastes less on the unfinished last
        game); fewer is fine for timing searches.
      discount: the value targets' per-ply discount (``episode_targets``); the search's.
      root_value_weight: the search's root value's share of the value targets, in [0, 1]
        (see the module docstring); 0: the outcome alone.
      score_fn: ``fn(state) -> float32[]`` of each state after its move, recorded where its
        game ends (``Trajectory.score``); None: not recorded.

    Returns:
      The self-play function; the caller jits it.
    """
    for name, value, low in (("batch_size", batch_size, 1), ("num_moves", num_moves, 1)):
        if value < low:
            raise ValueError(f"{name} must be >= {low}, got {value}.")
    if not 0 <= root_value_weight <= 1:
        raise ValueError(f"root_value_weight must be in [0, 1], got {root_value_weight}.")

    def new_games(key: Array) -> tuple[State, Start]:
        init_key = jax.random.split(key, 3)[0]  # the opening draws from the same key
        states = jax.vmap(game.init)(jax.random.split(init_key, batch_size))
        return states, opening.start(key, batch_size)

    def move(variables: dict, games: tuple[State, Start], key: Array):
        states, start = games
        random_key, reset_key = jax.random.split(key, 4)[2:]
        plies = states.num_moves - start.plies  # negative in the opening
        searched, keep = budget(variables, key, states, plies)
        _check_searched(searched, keep, batch_size, game.num_actions)
        legal = jax.vmap(game.legal_action_mask)(states)
        action = opening.play(start, random_key, states, legal, searched.action)
        _check_actions(action, batch_size)
        moved = jax.vmap(game.step)(states, action)
        record = _Record(
            jax.vmap(game.observe)(states),
            legal,
            searched.policy,
            states.current_player,
            moved.terminal,
            moved.rewards[:, 0],
            searched.root_value,
            jnp.broadcast_to(keep, (batch_size,)) & (plies >= 0),
            None if score_fn is None else jax.vmap(score_fn)(moved),
        )
        return _restart(moved.terminal, new_games(reset_key), (moved, start)), record

    def selfplay(variables: dict, key: Array) -> Trajectory:
        init_key, moves_key = jax.random.split(key)
        keys = jax.random.split(moves_key, num_moves)
        _, record = jax.lax.scan(lambda s, k: move(variables, s, k), new_games(init_key), keys)
        return _trajectory(record, discount=discount, root_value_weight=root_value_weight)

    return selfplay


def _trajectory(record: _Record, *, discount: float, root_value_weight: float) -> Trajectory:
    """The ``[T, B]`` trajectory of a scan's records: each position's value target and
    whether it is trained on (its game ended within the T moves, the budget kept it, and it
    is no opening ply)."""
    value, valid = episode_targets(record.ended, record.outcome, record.player, discount=discount)
    valid = valid & record.kept
    if root_value_weight:
        value = (1 - root_value_weight) * value + root_value_weight * record.root_value
    score = record.score
    return Trajectory(
        observation=record.observation,
        legal_action_mask=record.legal,
        policy=record.policy,
        player=record.player,
        ended=record.ended,
        valid=valid,
        value=jnp.where(valid, value, 0.0),
        outcome=jnp.where(record.ended, record.outcome, 0.0),
        score=None if score is None else jnp.where(record.ended, score, 0.0),
    )


def _check_searched(searched, keep, batch_size: int, num_actions: int) -> None:
    """Raises ``WrongShapes`` unless a budget returned ``(Searched, keep)`` of B slots."""
    shapes = None
    if isinstance(searched, Searched):
        shapes = tuple(tuple(jnp.shape(x)) for x in (*searched, keep))
    expected = ((batch_size,), (batch_size, num_actions), (batch_size,))
    if shapes is None or shapes[:3] != expected or shapes[3] not in ((), (batch_size,)):
        got = "not a Searched" if shapes is None else ", ".join(map(str, map(list, shapes)))
        raise WrongShapes(
            plugs.BUDGETS,
            f"expected (Searched(action [B], policy [B, A], root_value [B]), keep [] or [B]) "
            f"with B = {batch_size}, A = {num_actions}; got {got}.",
        )


def _check_actions(action: Array, batch_size: int) -> None:
    """Raises ``WrongShapes`` unless an opening rule played a move for each of B slots."""
    if jnp.shape(action) != (batch_size,):
        raise WrongShapes(
            plugs.OPENINGS, f"expected actions [B] = [{batch_size}], got {list(jnp.shape(action))}."
        )


def _restart(ended: Array, fresh, old):
    """``old`` with each slot whose game ``ended`` (bool[B]) replaced by ``fresh``'s."""
    return jax.tree.map(
        lambda new, kept: jnp.where(ended.reshape((-1,) + (1,) * (kept.ndim - 1)), new, kept),
        fresh,
        old,
    )


def shard(play: Callable[[dict, Array], Trajectory], mesh: Mesh, axis_name: str):
    """Runs ``play`` on every device of ``mesh`` at once, each with its own key.

    Args:
      play: a per-device ``selfplay(variables, key) -> Trajectory`` (its batch is one
        device's share).
      mesh: a one-axis mesh over the devices.
      axis_name: the mesh's axis, along which the Trajectory's batch axis is split.

    Returns:
      ``selfplay(variables, key) -> Trajectory`` over all devices' games; variables are
      replicated.
    """
    num_devices = mesh.devices.size
    sharded = jax.shard_map(
        lambda variables, keys: play(variables, keys[0]),
        mesh=mesh,
        in_specs=(P(), P(axis_name)),
        out_specs=P(None, axis_name),
        check_vma=False,  # mctx's internal while_loop fails the varying-axes check
    )
    return lambda variables, key: sharded(variables, jax.random.split(key, num_devices))
