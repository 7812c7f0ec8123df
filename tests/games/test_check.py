"""``games.check_game`` refuses a game that breaks the contract, naming the rule broken.

Each broken game is a real one (Tic-Tac-Toe, small and quick to compile) with one function
or piece of metadata swapped out; that all registered games pass is the conformance test's.
"""

import re
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import struct

from alphazero_jax import games
from alphazero_jax.types import Symmetry

NUM_GAMES = 16


@pytest.fixture(scope="module")
def game():
    return games.make("tic_tac_toe")


def _refused(game, pattern: str) -> str:
    """Runs check_game on a broken game; returns its one-line message, which must match."""
    with pytest.raises(games.GameContractError) as raised:
        games.check_game(game, num_games=NUM_GAMES)
    message = str(raised.value)
    assert "\n" not in message
    assert re.search(pattern, message), message
    return message


@struct.dataclass
class _Rewarded:
    """A Tic-Tac-Toe state whose rewards come from ``rewards_fn`` of the real ones."""

    inner: Any
    rewards_fn: Any = struct.field(pytree_node=False)

    current_player = property(lambda self: self.inner.current_player)
    terminal = property(lambda self: self.inner.terminal)
    num_moves = property(lambda self: self.inner.num_moves)
    rewards = property(lambda self: self.rewards_fn(self.inner.rewards, self.inner.terminal))


def _with_rewards(game, rewards_fn):
    """The game with the rewards ``rewards_fn(rewards, terminal)`` in place of its own."""

    def inner(state):
        return None if state is None else state.inner

    return game._replace(
        init=lambda key: _Rewarded(game.init(key), rewards_fn),
        step=lambda state, action: _Rewarded(game.step(state.inner, action), rewards_fn),
        observe=lambda state: game.observe(state.inner),
        legal_action_mask=lambda state: game.legal_action_mask(state.inner),
        heuristic=lambda state: game.heuristic(state.inner),
        to_text=lambda state: game.to_text(state.inner),
        to_json=lambda state: game.to_json(state.inner),
        action_to_text=lambda action, state=None: game.action_to_text(action, inner(state)),
        actions_from_text=lambda text, state=None: game.actions_from_text(text, inner(state)),
    )


def _flip_lr(x):
    return x[..., :, ::-1, :]


def test_check_game__refuses_a_step_that_does_not_jit(game):
    def step(state, action):
        if action == 0:  # Python `if` on a traced value
            return state
        return game.step(state, action)

    _refused(game._replace(step=step), r"tic_tac_toe: step must trace under jit: .*Tracer")


def test_check_game__refuses_a_heuristic_that_does_not_vmap(game):
    def heuristic(state):
        shape = jax.ShapeDtypeStruct((), jnp.float32)
        return jax.pure_callback(lambda v: np.float32(v), shape, game.heuristic(state))

    _refused(game._replace(heuristic=heuristic), r"heuristic must jit and vmap: .*vmap")


def test_check_game__refuses_a_step_that_changes_the_state_dtypes(game):
    def step(state, action):
        after = game.step(state, action)
        return after.replace(winner=after.winner.astype(jnp.int32))

    _refused(
        game._replace(step=step),
        r"step must return a State like its input \(else jit traces again\): "
        r"expected State\.winner int8\[\], received int32\[\]",
    )


def test_check_game__refuses_an_observation_of_the_wrong_shape(game):
    observe = lambda state: game.observe(state).reshape(9, 2)  # noqa: E731
    _refused(
        game._replace(observe=observe),
        r"the shape and dtype of observe: expected float32\[3,3,2\], received float32\[9,2\]",
    )


def test_check_game__refuses_an_observation_of_ints(game):
    observe = lambda state: game.observe(state).astype(jnp.int32)  # noqa: E731
    _refused(game._replace(observe=observe), r"expected float32\[3,3,2\], received int32\[3,3,2\]")


def test_check_game__refuses_a_state_field_of_the_wrong_dtype(game):
    init = lambda key: game.init(key).replace(num_moves=jnp.int16(0))  # noqa: E731
    _refused(
        game._replace(init=init),
        r"the shape and dtype of State\.num_moves: expected int32\[\], received int16\[\]",
    )


def test_check_game__refuses_a_mask_of_int8(game):
    mask = lambda state: game.legal_action_mask(state).astype(jnp.int8)  # noqa: E731
    _refused(
        game._replace(legal_action_mask=mask),
        r"the shape and dtype of legal_action_mask: expected bool\[9\], received int8\[9\]",
    )


def test_check_game__refuses_a_mask_not_empty_at_the_end(game):
    mask = lambda state: game.legal_action_mask(state) | state.terminal  # noqa: E731
    _refused(
        game._replace(legal_action_mask=mask),
        r"legal_action_mask must be empty exactly when terminal: .*"
        r"received 9 legal actions with terminal=True",
    )


def test_check_game__refuses_a_game_longer_than_max_num_moves(game):
    _refused(
        game._replace(max_num_moves=4),
        r"random games must end within max_num_moves: expected every game over after 4 moves",
    )


def test_check_game__refuses_a_step_that_never_changes_the_state(game):
    step = lambda state, action: state  # noqa: E731
    _refused(game._replace(step=step), r"step must change a live state: .*the same state")


def test_check_game__refuses_a_step_that_ignores_its_action(game):
    def step(state, action):  # plays the first legal move, whatever it is asked to play
        del action
        return game.step(state, jnp.argmax(game.legal_action_mask(state)))

    _refused(game._replace(step=step), r"an illegal action must end the game as a loss")


def test_check_game__refuses_a_step_that_changes_a_terminal_state(game):
    def step(state, action):  # plays on after the end
        return game.step(state.replace(terminal=jnp.bool_(False)), action)

    _refused(game._replace(step=step), r"step must return a terminal state unchanged")


def test_check_game__refuses_an_illegal_action_that_is_not_a_loss(game):
    def step(state, action):  # an illegal action leaves the state as it is
        legal = game.legal_action_mask(state)[jnp.clip(action, 0, 8)] & (action >= 0) & (action < 9)
        after = game.step(state, action)
        return jax.tree.map(lambda new, old: jnp.where(legal, new, old), after, state)

    _refused(
        game._replace(step=step),
        r"an illegal action must end the game as a loss for the mover: .*terminal=False",
    )


def test_check_game__refuses_rewards_that_are_not_zero_sum(game):
    broken = _with_rewards(game, lambda rewards, terminal: jnp.abs(rewards))
    _refused(broken, r"rewards must be zero-sum: .*received \[1\.0, 1\.0\]")


def test_check_game__refuses_rewards_of_two(game):
    broken = _with_rewards(game, lambda rewards, terminal: 2 * rewards)
    _refused(broken, r"rewards must be -1, 0 or \+1: .*received \[(-)?2\.0, (-)?2\.0\]")


def test_check_game__refuses_rewards_before_the_end(game):
    broken = _with_rewards(
        game,
        lambda rewards, terminal: jnp.where(terminal[..., None], rewards, jnp.array([1.0, -1.0])),
    )
    _refused(broken, r"rewards must be zero before the end: .*received \[1\.0, -1\.0\] \(ply 0")


def test_check_game__refuses_a_heuristic_of_three(game):
    heuristic = lambda state: jnp.float32(3.0)  # noqa: E731
    _refused(
        game._replace(heuristic=heuristic),
        r"heuristic must be inside \(-1, 1\) before the end: .*received 3\.0",
    )


def test_check_game__refuses_a_heuristic_not_exact_at_the_end(game):
    heuristic = lambda state: jnp.float32(0.5)  # noqa: E731
    _refused(
        game._replace(heuristic=heuristic),
        r"heuristic must be exact at the end: .*received 0\.5 where the reward is",
    )


def test_check_game__refuses_a_permutation_with_a_repeated_index(game):
    perm = np.array([0, 0, 2, 3, 4, 5, 6, 7, 8], np.int32)
    symmetries = (*game.symmetries[:1], Symmetry("flip_lr", _flip_lr, perm))
    _refused(
        game._replace(symmetries=symmetries),
        r"the action_permutation of symmetry 'flip_lr': expected a permutation of "
        r"range\(num_actions\), received \[0, 0, 2",
    )


def test_check_game__refuses_symmetries_without_the_identity_first(game):
    _refused(game._replace(symmetries=game.symmetries[1:]), r"symmetries\[0\]: .*identity")


def test_check_game__refuses_a_symmetry_that_mirrors_the_board_but_not_the_actions(game):
    unmoved = np.arange(9, dtype=np.int32)
    symmetries = (*game.symmetries[:1], Symmetry("flip_lr", _flip_lr, unmoved))
    _refused(
        game._replace(symmetries=symmetries),
        r"symmetry 'flip_lr' must commute with play: "
        r"expected observe\(transformed play\) == transform\(observe\(play\)\)",
    )


def test_check_game__refuses_actions_from_text_off_by_one(game):
    def actions_from_text(text, state=None):
        return [action + 1 for action in game.actions_from_text(text, state)]

    _refused(
        game._replace(actions_from_text=actions_from_text),
        r"actions_from_text must read what actions_to_text writes: "
        r"expected \[(\d)\] at index 0, received \[\d\]",
    )


def test_check_game__refuses_a_picture_that_is_not_text(game):
    to_text = lambda state: game.to_json(state)  # noqa: E731
    _refused(game._replace(to_text=to_text), r"to_text must draw the position: expected a str")


def test_check_game__refuses_json_that_is_not_plain(game):
    to_json = lambda state: {"cells": np.zeros((3, 3), np.int8)}  # noqa: E731
    _refused(game._replace(to_json=to_json), r"to_json must return plain JSON")


def test_check_game__says_what_it_tried(game):
    report = games.check_game(game, num_games=NUM_GAMES)
    assert report.num_games == NUM_GAMES
    assert 0 < report.num_positions <= NUM_GAMES * game.max_num_moves
    assert report.num_illegal_moves > 0
    assert report.symmetries_played[0] == "identity" and len(report.symmetries_played) == 8
    assert 5 <= len(report.longest_game) <= 9
    assert games.replay(game, report.longest_game).terminal
