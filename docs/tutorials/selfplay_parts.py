"""A self-play budget and an opening rule of one's own, registered as ``"skip_opening"`` and
``"book"``.

- The budget ``skip_opening`` searches every move with the run's simulations, as the
  built-in ``full`` does, but keeps no position before ply ``skip_plies`` of each game for
  training: the first plies of a network's own games repeat themselves most, and their
  targets crowd the replay memory.
- The opening ``book`` starts each game from a position of a book of move lists (one
  drawn per game, uniformly), a curriculum of starts written in the game's own notation;
  the book's plies are played but never trained on, as the built-in ``random`` opening's.
"""

import jax
import jax.numpy as jnp
import numpy as np

from alphazero_jax.training import budgets, openings


def make_skip_opening(search_with, *, num_simulations: int, batch_size: int, skip_plies: int = 2):
    """Every move searched with ``num_simulations``; positions before ply ``skip_plies`` of
    each game (counted after its opening) are not kept."""
    del batch_size  # every slot alike
    if skip_plies < 0:
        raise ValueError(f"skip_plies must be >= 0, got {skip_plies}.")
    search = search_with(num_simulations)

    def budget(variables, key, states, plies):
        return search(variables, key, states), plies >= skip_plies

    return budget


def make_book(game, *, book: str = "b2;a1 b2;c3 b2"):
    """Each game opens with one of the move lists of ``book`` (separated by ``;``, in the
    game's notation), drawn uniformly per game; its plies are not trained on."""
    lines = [game.actions_from_text(line) for line in book.split(";")]
    if not lines or not all(lines):
        raise ValueError(f"book must hold move lists separated by ';', got {book!r}.")
    longest = max(len(line) for line in lines)
    table = np.zeros((len(lines), longest), np.int32)  # each line's moves, padded
    for row, line in enumerate(lines):
        table[row, : len(line)] = line
    lengths = np.array([len(line) for line in lines], np.int32)

    def start(key, batch_size):
        line = jax.random.randint(jax.random.fold_in(key, 2), (batch_size,), 0, len(lines))
        return openings.Start(plies=jnp.asarray(lengths)[line], data=line)

    def play(start, key, states, legal_action_mask, action):
        del key, legal_action_mask
        ply = jnp.minimum(states.num_moves, longest - 1)
        scripted = jnp.asarray(table)[start.data, ply]
        return jnp.where(states.num_moves < start.plies, scripted, action)

    return openings.Opening(start, play)


budgets.register("skip_opening", make_skip_opening)
openings.register("book", make_book)
