"""Batched self-play: B game slots advanced together in one ``lax.scan``, a search per move.

A game that ends is replaced at once by a new one in its slot, so every search is spent on
a real position. After ``num_moves`` moves each slot holds some finished games and one
unfinished game at the end; positions of finished games get their value targets from the
outcome, and those of the unfinished one are marked invalid (never trained on). Moves are
sampled for the first ``num_sampling_moves`` plies of each game and chosen greedily after
(``search.choose_action``).

With ``handicap_moves`` above 0, one side of each game (a coin flip) plays its first ``n``
moves uniformly at random, ``n`` drawn per game from 0 to ``handicap_moves``. The search
still runs and is still the policy target at those positions, and the values are the
game's real outcome; what changes is which positions the replay buffer holds. A network
trained on its own play alone never sees, say, a Quoridor board fenced by a random
player's scattered walls, and misjudges it (docs/results/quoridor_5x5.md).

With ``root_value_weight`` w above 0, a position's value target is ``(1 - w) * outcome +
w * root value``: the search's value of the position (mctx's root value, mover's view)
mixed into the game's outcome, which is less noisy than the outcome of one game whose
later moves were sampled, and bootstraps like a temporal-difference target.

With ``random_opening_plies`` k above 0, each game starts from a random position: its
first ``n`` plies, ``n`` drawn per game from 0 to k, are uniform random legal moves of both
sides, as AlphaZero.jl's GPU redesign starts its games from random 0-2-ply positions
(AlphaZero.jl issue #217 (2024)). Unlike the handicap, the positions of those plies are not
trained on: the game is taken to start after them, so no value target follows a move the
search did not choose, and no policy target is a position's search whose move was thrown
away. The search still runs there (the slots move together), a cost of k/2 plies a game.

With ``score_fn`` given (``training.scores``), each game's final score is recorded where
it ends (``Trajectory.score``), for the score-like target ``final_score``.

Playout-cap randomisation (Wu (2019), KataGo): with ``fast_search_fn`` given, each move
is searched in full with probability ``full_search_probability`` and otherwise by the
cheaper ``fast_search_fn``; only fully searched positions are kept for training (their
policy targets come from the full search), so a compute budget plays more games, and so
gets more independent outcomes, for the same number of policy targets. One coin per move
decides for all B slots, so a move runs one search, not both.

A budget by ply: with ``early_search_fn`` given, each move the ``early_slots`` slots whose
games are the youngest (the fewest plies since their random opening, ``earliest_slots``)
are searched by it, typically with more simulations, and the others by ``search_fn``. Games
restart in their slots, so the slots are at different plies and no one search budget is
the batch's; a fixed number of them keeps every shape static, and each move costs the same:
two searches, of ``early_slots`` and of ``B - early_slots`` positions. Slots in their random
opening rank last, since those positions' searches are not kept.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

from alphazero_jax import search
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


def earliest_slots(num_moves: Array, opening: Array, count: int) -> tuple[Array, Array]:
    """The ``count`` slots whose games are the youngest, and the others.

    Args:
      num_moves: int32[B], the plies played in each slot's game.
      opening: int32[B], the random opening plies of each slot's game (0: none).
      count: how many slots to choose, from 0 to B.

    Returns:
      ``(early, late)``: int32[count] and int32[B - count] slot indices. A slot ranks by its
      plies since its opening, ``num_moves - opening``, fewest first, a slot still in its
      opening last, ties by the lower index.
    """
    plies = num_moves - opening
    rank = jnp.where(plies < 0, jnp.iinfo(jnp.int32).max, plies)
    order = jnp.argsort(rank, stable=True).astype(jnp.int32)
    return order[:count], order[count:]


def make_selfplay(
    game: Game,
    search_fn: search.SearchFn,
    *,
    policy: str,
    batch_size: int,
    num_moves: int,
    num_sampling_moves: int,
    discount: float = 1.0,
    handicap_moves: int = 0,
    root_value_weight: float = 0.0,
    fast_search_fn: search.SearchFn | None = None,
    full_search_probability: float = 1.0,
    random_opening_plies: int = 0,
    score_fn: Callable[[State], Array] | None = None,
    early_search_fn: search.SearchFn | None = None,
    early_slots: int = 0,
) -> Callable[[dict, Array], Trajectory]:
    """Builds ``selfplay(variables, key) -> Trajectory`` of ``[num_moves, batch_size]``.

    Args:
      game: the game.
      search_fn: ``search.make_search``'s function.
      policy: the search's registered policy (``"puct"``, ``"gumbel"`` or one's own,
        ``search.register``), whose rule reads a move from its output.
      batch_size: game slots played together.
      num_moves: moves per slot. Training wants at least ``game.max_num_moves``, so that
        every slot finishes a game (twice that or more wastes less on the unfinished last
        game); fewer is fine for timing searches.
      num_sampling_moves: plies (from the start of each game) whose move is sampled from the
        search; later moves are greedy. 0 makes every move greedy.
      discount: the value targets' per-ply discount (``episode_targets``); the search's.
      handicap_moves: the most opening moves that one side of a game plays at random (see
        the module docstring); 0: every move is the search's.
      root_value_weight: the search's root value's share of the value targets, in [0, 1]
        (see the module docstring); 0: the outcome alone.
      fast_search_fn: playout-cap randomisation's cheap search (see the module
        docstring), e.g. ``search_fn``'s settings with fewer simulations; None: every move
        searched by ``search_fn``.
      full_search_probability: with ``fast_search_fn``, the chance in (0, 1] that a move is
        searched in full (and its position kept for training).
      random_opening_plies: the most plies that open a game with uniform random moves, not
        trained on (see the module docstring); 0: none.
      score_fn: ``score(state) -> float32[]``, a finished game's score from the first
        player's view (``training.scores.make``), recorded in ``Trajectory.score``; None:
        not recorded.
      early_search_fn: the search of the youngest games' slots, a budget by ply (see the
        module docstring), e.g. ``search_fn``'s settings with more simulations; None: every
        slot searched alike.
      early_slots: with ``early_search_fn``, the slots it searches each move, from 1 to
        below ``batch_size``.

    Returns:
      The self-play function; the caller jits it.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}.")
    if num_moves < 1:
        raise ValueError(f"num_moves must be >= 1, got {num_moves}.")
    if num_sampling_moves < 0:
        raise ValueError(f"num_sampling_moves must be >= 0, got {num_sampling_moves}.")
    if handicap_moves < 0:
        raise ValueError(f"handicap_moves must be >= 0, got {handicap_moves}.")
    if random_opening_plies < 0:
        raise ValueError(f"random_opening_plies must be >= 0, got {random_opening_plies}.")
    if not 0 <= root_value_weight <= 1:
        raise ValueError(f"root_value_weight must be in [0, 1], got {root_value_weight}.")
    if not 0 < full_search_probability <= 1:
        raise ValueError(
            f"full_search_probability must be in (0, 1], got {full_search_probability}."
        )

    if early_search_fn is not None:
        if not 1 <= early_slots < batch_size:
            raise ValueError(
                f"early_slots must be from 1 to below batch_size={batch_size} with "
                f"early_search_fn, got {early_slots}."
            )
        if fast_search_fn is not None:
            raise ValueError(
                "early_search_fn and fast_search_fn cannot go together: a move would need "
                "four searches; use one budget rule."
            )

    def new_games(key: Array) -> tuple[State, Array, Array, Array]:
        """B new games, each with its handicapped side, its number of random moves and its
        number of random opening plies."""
        init_key, side_key, moves_key = jax.random.split(key, 3)
        states = jax.vmap(game.init)(jax.random.split(init_key, batch_size))
        side = jax.random.randint(side_key, (batch_size,), 0, 2, dtype=jnp.int32)
        moves = jax.random.randint(moves_key, (batch_size,), 0, handicap_moves + 1, jnp.int32)
        opening = jnp.zeros((batch_size,), jnp.int32)
        if random_opening_plies:  # its own key, so that runs without it draw as before
            opening_key = jax.random.fold_in(key, 1)
            opening = jax.random.randint(
                opening_key, (batch_size,), 0, random_opening_plies + 1, jnp.int32
            )
        return states, side, moves, opening

    def searched(fn, variables, search_key, choice_key, states):
        """The move, policy target and (if used) root value of ``fn``'s search."""
        output = fn(variables, search_key, states)
        sampling = states.num_moves < num_sampling_moves
        action = search.choose_action(output, choice_key, policy=policy, sample=sampling)
        root_value = search.root_value(output) if root_value_weight else None
        return action, output.action_weights, root_value

    def by_age(variables, search_key, choice_key, states, opening):
        """``searched`` of the youngest games' slots with ``early_search_fn`` and of the
        others with ``search_fn``, put back in slot order."""
        early, late = earliest_slots(states.num_moves, opening, early_slots)
        back = jnp.argsort(jnp.concatenate([early, late]))  # slot order from early + late

        def of(slots):
            return jax.tree.map(lambda x: x[slots], states)

        young = searched(
            early_search_fn,
            variables,
            jax.random.fold_in(search_key, 1),
            jax.random.fold_in(choice_key, 1),
            of(early),
        )
        old = searched(search_fn, variables, search_key, choice_key, of(late))
        return tuple(
            None if a is None else jnp.concatenate([a, b])[back]
            for a, b in zip(young, old, strict=True)
        )

    def move(variables: dict, games: tuple[State, Array, Array, Array], key: Array):
        states, side, moves, opening = games
        search_key, choice_key, random_key, reset_key = jax.random.split(key, 4)
        args = (variables, search_key, choice_key, states)
        if early_search_fn is not None:
            full = jnp.bool_(True)
            action, weights, root_value = by_age(*args, opening)
        elif fast_search_fn is None:
            full = jnp.bool_(True)
            action, weights, root_value = searched(search_fn, *args)
        else:  # the searches' trees differ in size: cond returns only what is recorded
            full = jax.random.bernoulli(jax.random.fold_in(key, 1), full_search_probability)
            full_search = functools.partial(searched, search_fn)
            action, weights, root_value = jax.lax.cond(
                full, full_search, functools.partial(searched, fast_search_fn), *args
            )
        legal = jax.vmap(game.legal_action_mask)(states)
        if handicap_moves:  # the side's first `moves` moves fall in the first 2 * moves plies
            at_random = (states.current_player == side) & (states.num_moves < 2 * moves)
            action = jnp.where(at_random, search.uniform_choice(random_key, legal), action)
        in_opening = states.num_moves < opening  # all False without random openings
        if random_opening_plies:
            opening_choice = search.uniform_choice(jax.random.fold_in(random_key, 1), legal)
            action = jnp.where(in_opening, opening_choice, action)
        moved = jax.vmap(game.step)(states, action)
        score = jax.vmap(score_fn)(moved) if score_fn is not None else None
        record = (
            jax.vmap(game.observe)(states),
            legal,
            weights,
            states.current_player,
            moved.terminal,
            moved.rewards[:, 0],
            root_value,
            full,
            in_opening,
            score,
        )
        restarted = jax.tree.map(
            lambda fresh, old: jnp.where(
                moved.terminal.reshape((-1,) + (1,) * (old.ndim - 1)), fresh, old
            ),
            new_games(reset_key),
            (moved, side, moves, opening),
        )
        return restarted, record

    def selfplay(variables: dict, key: Array) -> Trajectory:
        init_key, moves_key = jax.random.split(key)
        keys = jax.random.split(moves_key, num_moves)
        _, records = jax.lax.scan(lambda s, k: move(variables, s, k), new_games(init_key), keys)
        observation, legal, policy_target, player, ended, outcome, root_value, full = records[:8]
        in_opening, score = records[8:]
        value, valid = episode_targets(ended, outcome, player, discount=discount)
        valid = valid & full[:, None]  # fast-searched positions are not trained on
        valid = valid & ~in_opening  # nor a random opening's
        if root_value_weight:
            value = (1 - root_value_weight) * value + root_value_weight * root_value
        value = jnp.where(valid, value, 0.0)
        return Trajectory(
            observation=observation,
            legal_action_mask=legal,
            policy=policy_target,
            player=player,
            ended=ended,
            valid=valid,
            value=value,
            outcome=jnp.where(ended, outcome, 0.0),
            score=None if score is None else jnp.where(ended, score, 0.0),
        )

    return selfplay


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
