"""Nim with three heaps, as an alphazero_jax game: take any number of objects from one heap;
whoever takes the last object wins."""

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from alphazero_jax.types import Game, Symmetry

HEAPS = (3, 5, 7)  # the starting heaps
MOST = max(HEAPS)  # an action takes 1..MOST objects from one heap
NUM_ACTIONS = len(HEAPS) * MOST  # action = heap * MOST + (taken - 1)
LETTERS = "abc"


@struct.dataclass
class State:
    heaps: jnp.ndarray  # int8[3], objects left in each heap
    current_player: jnp.ndarray  # int32[], 0 or 1
    terminal: jnp.ndarray  # bool[]
    rewards: jnp.ndarray  # float32[2], the outcome for each player once over
    num_moves: jnp.ndarray  # int32[]


def init(key):
    del key  # Nim always starts the same way.
    return State(
        heaps=jnp.array(HEAPS, jnp.int8),
        current_player=jnp.int32(0),
        terminal=jnp.bool_(False),
        rewards=jnp.zeros(2, jnp.float32),
        num_moves=jnp.int32(0),
    )


def legal_action_mask(state):
    taken = jnp.arange(1, MOST + 1)
    legal = taken[None, :] <= state.heaps[:, None]  # [heap, taken - 1]
    return legal.reshape(-1) & ~state.terminal


def step(state, action):
    action = jnp.asarray(action, jnp.int32)
    inside = (action >= 0) & (action < NUM_ACTIONS)
    action = jnp.clip(action, 0, NUM_ACTIONS - 1)
    legal = inside & legal_action_mask(state)[action]
    heap, taken = action // MOST, (action % MOST + 1).astype(jnp.int8)
    heaps = jnp.where(legal, state.heaps.at[heap].add(-taken), state.heaps)
    # The mover wins by taking the last object, and loses by an illegal move.
    over = ~legal | (heaps.sum() == 0)
    mover = jnp.where(legal, 1.0, -1.0)
    rewards = jnp.where(state.current_player == 0, 1.0, -1.0) * jnp.array([mover, -mover])
    played = State(
        heaps=heaps,
        current_player=1 - state.current_player,
        terminal=over,
        rewards=jnp.where(over, rewards, 0.0).astype(jnp.float32),
        num_moves=state.num_moves + 1,
    )
    # A finished game stays as it is.
    return jax.tree.map(lambda old, new: jnp.where(state.terminal, old, new), state, played)


def observe(state):
    filled = jnp.arange(MOST)[None, :] < state.heaps[:, None]  # [heap, object]
    return filled.astype(jnp.float32)[:, :, None]  # float32[3, 7, 1]


def heuristic(state):
    """Exact for Nim (Bouton's theorem): the mover wins iff the heaps' xor is not zero; at
    the end, the mover has lost (the last object was taken by the other side)."""
    xor = state.heaps[0] ^ state.heaps[1] ^ state.heaps[2]
    live = jnp.where(xor != 0, 0.5, -0.5)
    return jnp.where(state.terminal, state.rewards[state.current_player], live)


def action_to_text(action, state=None):
    return f"{LETTERS[action // MOST]}{action % MOST + 1}"  # "b2": take 2 from heap b


def actions_from_text(text, state=None):
    actions = []
    for index, word in enumerate(text.split()):
        if len(word) != 2 or word[0] not in LETTERS or not "1" <= word[1] <= str(MOST):
            raise ValueError(f"move {index + 1}, {word!r}: expected a heap a-c and a count 1-7")
        actions.append(LETTERS.index(word[0]) * MOST + int(word[1]) - 1)
    return actions


def actions_to_text(actions, state=None):
    return " ".join(action_to_text(int(a)) for a in actions)


def to_text(state):
    heaps = np.asarray(state.heaps)
    return "\n".join(f"{LETTERS[i]} {'|' * n}" for i, n in enumerate(heaps))


def make() -> Game:
    identity = Symmetry("identity", lambda observation: observation, np.arange(NUM_ACTIONS))
    return Game(
        name="nim",
        num_actions=NUM_ACTIONS,
        observation_shape=(len(HEAPS), MOST, 1),
        max_num_moves=sum(HEAPS),
        settings=(),
        init=init,
        step=step,
        observe=observe,
        legal_action_mask=legal_action_mask,
        heuristic=heuristic,
        symmetries=(identity,),
        to_text=to_text,
        action_to_text=action_to_text,
        actions_from_text=actions_from_text,
        actions_to_text=actions_to_text,
        to_json=lambda state: {"heaps": [int(n) for n in np.asarray(state.heaps)]},
    )
