"""Shared records of the library: the game contract, its symmetries and the agent contract.

A game is a bundle of pure, unbatched functions plus static metadata, in the spirit of
optax's ``GradientTransformation``. Everything that runs per move (``init``, ``step``,
``observe``, ``legal_action_mask``, ``heuristic``) is a pure JAX function that jits and
vmaps; the host helpers (text in and out) are plain Python and never traced.

Every game's ``State`` is a ``flax.struct.dataclass`` that offers, as fields or as
properties computed from compact fields:

- ``current_player: int32[]`` -- 0 for the first player, 1 for the second;
- ``terminal: bool[]``;
- ``rewards: float32[2]`` -- the final outcome for each player, zero until the end;
- ``num_moves: int32[]`` -- moves played so far (a pass counts as a move).

States are kept small (integer bitboards, int8 planes) because mctx stores one per tree
node. Observations are never cached in a State.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import numpy as np

Array = jax.Array
PRNGKey = jax.Array
State = Any  # A game's own flax.struct.dataclass; see the module docstring.


class Symmetry(NamedTuple):
    """One symmetry of a board: how it maps observations and action distributions.

    Attributes:
      name: a short label, e.g. ``"mirror"`` or ``"rot90"``.
      transform_observation: maps ``float32[H, W, C]`` (or a batch ``[..., H, W, C]``) to
        the observation of the transformed position.
      action_permutation: ``int32[A]`` such that ``policy[..., action_permutation]`` is the
        action distribution of the transformed position (it is its own kind of gather: entry
        ``i`` names the original action that becomes action ``i``). Actions with no spatial
        meaning, such as a pass, map to themselves.
    """

    name: str
    transform_observation: Callable[[Array], Array]
    action_permutation: np.ndarray


class Game(NamedTuple):
    """A two-player, zero-sum, perfect-information game as pure functions.

    Metadata:

    - name: the registry name, e.g. ``"connect_four"``.
    - num_actions: ``A``, the size of the action space (a pass or a wall is an action too).
    - observation_shape: ``(H, W, C)``, channels last.
    - max_num_moves: an upper bound on the moves of any game (sizes scans); a game that
      needs a move cap ends in a draw when it reaches it.
    - settings: the keyword arguments that made this game as ``(name, value)`` pairs, so
      that a Game stays hashable: ``games.make(game.name, **dict(game.settings))``.

    Pure functions (unbatched; the caller vmaps and jits):

    - init: ``(key) -> State``, the starting position.
    - step: ``(state, action: int32[]) -> State``. A terminal state is returned unchanged;
      an illegal action ends the game as a loss for the mover.
    - observe: ``(state) -> float32[H, W, C]`` from the point of view of the player to move.
    - legal_action_mask: ``(state) -> bool[A]``, True where legal (all False when terminal).
    - heuristic: ``(state) -> float32[]`` in ``[-1, 1]`` from the mover's view, used by the
      greedy and minimax baselines; exact (``+1/0/-1`` for the mover) on terminal states.

    Symmetries:

    - symmetries: the board's symmetries, the identity first.

    Host helpers (plain Python, never traced):

    - to_text: ``(state) -> str``, an ASCII picture of the position.
    - action_to_text: ``(action: int, state=None) -> str``, the action's name when played
      in ``state``, e.g. ``"4"`` for Connect Four's 4th column.
    - actions_from_text: ``(text: str, state=None) -> list[int]``, parses a move list
      written in the game's notation and played from ``state`` (raises ``ValueError``
      naming the offending move and its index).
    - actions_to_text: ``(actions: Sequence[int], state=None) -> str``, the inverse; a
      position is serialised as the move list that reaches it from the start.

    ``state`` defaults to the starting position. Most games name an action the same in
    every position and ignore it; Quoridor's pawn actions are relative to the pawn (a
    step north) while their names are squares, so its names depend on the position.

    - to_json: ``(state) -> dict``, the position for a front end to draw, as plain JSON
      values (the game's own shape; for grid games ``{"rows", "cols", "cells"}`` with
      ``cells[r][c]`` 0 empty, 1 first player's, 2 second player's, top row first). With
      ``cell_moves[r][c]`` too, the move a click on that cell plays, the play page draws a
      game it has no module for as a board of clickable cells (its other moves, a pass, as
      buttons beside it); without, as its ``to_text`` and a button per legal move.

    Games compare and hash by identity (they hold functions and NumPy tables), so a Game
    can key a cache or be a static argument of ``jax.jit``; ``games.make`` returns the same
    object for the same settings.
    """

    name: str
    num_actions: int
    observation_shape: tuple[int, int, int]
    max_num_moves: int
    settings: tuple[tuple[str, Any], ...]
    init: Callable[[PRNGKey], State]
    step: Callable[[State, Array], State]
    observe: Callable[[State], Array]
    legal_action_mask: Callable[[State], Array]
    heuristic: Callable[[State], Array]
    symmetries: tuple[Symmetry, ...]
    to_text: Callable[[State], str]
    action_to_text: Callable[..., str]
    actions_from_text: Callable[..., list[int]]
    actions_to_text: Callable[..., str]
    to_json: Callable[[State], dict[str, Any]]
    explain_illegal: Callable[[State, int], str] | None = None

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    def __hash__(self) -> int:
        return id(self)


class Trajectory(NamedTuple):
    """What self-play records, time-major: ``[T, B, ...]`` for T moves of B games.

    Attributes:
      observation: float32[T, B, H, W, C], from the view of the player to move.
      legal_action_mask: bool[T, B, A].
      policy: float32[T, B, A], the search's visit distribution (the policy target).
      player: int32[T, B], the player to move.
      ended: bool[T, B], True where the move played from this position ended its game
        (the slot then starts a new game).
      valid: bool[T, B], True where the position's game ended within the T moves (and,
        with playout-cap randomisation, its search was a full one): only those positions
        have a value target and are trained on.
      value: float32[T, B], the final outcome from ``player``'s view (the value target);
        zero where not ``valid``.
      outcome: float32[T, B], the first player's result (1, 0 or -1) where ``ended``, 0
        elsewhere: the games' results, whatever the value targets mix in or leave out.
      score: float32[T, B], the game's final score (its game record's ``score``, first player's
        view) where ``ended``, 0 elsewhere; None unless self-play was given a score.
    """

    observation: Array
    legal_action_mask: Array
    policy: Array
    player: Array
    ended: Array
    valid: Array
    value: Array
    outcome: Array
    score: Array | None = None


class Sample(NamedTuple):
    """Training examples, batch-major: ``[N, ...]``.

    Attributes:
      observation: float32[N, H, W, C].
      policy: float32[N, A], target distribution (zero on illegal actions).
      value: float32[N], target outcome in [-1, 1] from the mover's view.
      targets: further targets by name, ``[N, ...]`` (``training.targets``: the opponent's
        reply, the plies to the end, ...), those the run's loss terms read; empty else.
    """

    observation: Array
    policy: Array
    value: Array
    targets: dict[str, Array] = {}  # noqa: RUF012  (a pytree field; never mutated)


class Analysis(NamedTuple):
    """What an agent with a value and a search makes of a batch of positions.

    Attributes:
      action: int32[B], the move it plays.
      value: float32[B], its value of the position for the side to move, in [-1, 1].
      shares: float32[B, A], its search's visit share of each move (for a network playing
        without search, its policy).
    """

    action: Array
    value: Array
    shares: Array


class Agent(NamedTuple):
    """A player: picks one move for each state of a batch.

    ``act_fn(params, key, states[B]) -> int32[B]`` is pure and jittable; it must return
    some action (any) for a finished game, whose move is ignored. Whatever changes between
    calls (a network's variables) is ``params``, passed as an argument, so that an arena
    compiled once can serve new parameters; settings (depth, simulations) are closed over.

    Attributes:
      name: the spec that built it, e.g. ``"minimax:4"``; used in tables and ladders.
      act_fn: the move function.
      params: a pytree of arrays for ``act_fn`` (``None`` for the baselines).
      analyse_fn: for agents with a value and a search (networks),
        ``analyse_fn(params, key, states[B]) -> Analysis`` whose action is ``act_fn``'s;
        None for the others.
    """

    name: str
    act_fn: Callable[[Any, PRNGKey, State], Array]
    params: Any = None
    analyse_fn: Callable[[Any, PRNGKey, State], Analysis] | None = None

    def act(self, key: PRNGKey, states: State) -> Array:
        """int32[B]: the moves for ``states[B]``."""
        return self.act_fn(self.params, key, states)
