"""Matches between two agents, played as one batch of games on the device.

Half of the games have agent A move first, the other half agent B. Every game of a batch
starts together and turns alternate (a pass is a move too), so at each ply A moves in one
half and B in the other: each agent evaluates exactly half of the batch per ply, and the
whole match is one ``lax.while_loop`` that stops when every game is over. ``make_match``
builds the jitted match of two agents; a caller that plays them again holds it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from alphazero_jax import search
from alphazero_jax.evaluation import elo
from alphazero_jax.types import Agent, Game, PRNGKey


class Record(NamedTuple):
    """Wins, draws and losses of one side."""

    wins: int
    draws: int
    losses: int

    @property
    def num_games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Points per game: a win 1, a draw 1/2."""
        return (self.wins + self.draws / 2) / max(self.num_games, 1)

    @property
    def text(self) -> str:
        return f"+{self.wins} ={self.draws} -{self.losses}"

    def reversed(self) -> Record:
        """The same games from the other side."""
        return Record(self.losses, self.draws, self.wins)

    def plus(self, other: Record) -> Record:
        """The record of both sets of games."""
        return Record(*(a + b for a, b in zip(self, other)))


class MatchResult(NamedTuple):
    """The outcome of a match from ``player``'s (agent A's) view.

    Attributes:
      player: agent A's name.
      opponent: agent B's name.
      total: A's record over all games.
      as_first: A's record in the games where A moved first.
      as_second: A's record in the games where B moved first.
      mean_length: the average number of moves per game.
    """

    player: str
    opponent: str
    total: Record
    as_first: Record
    as_second: Record
    mean_length: float

    @property
    def score(self) -> float:
        return self.total.score

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """A Wilson score interval for A's expected score (a draw counts as half a win,
        which makes the interval a little conservative)."""
        return elo.wilson_interval(self.total.score, self.total.num_games, confidence=confidence)

    def summary(self) -> str:
        low, high = self.interval()
        return (
            f"{self.player} vs {self.opponent}: {self.total.text}, score {self.score:.3f} "
            f"[{low:.3f}, {high:.3f}]; moving first {self.as_first.text}, "
            f"second {self.as_second.text}"
        )

    def pair_result(self) -> elo.PairResult:
        """The result in the form the Elo fit takes."""
        return elo.PairResult(self.player, self.opponent, *self.total)


class Match(NamedTuple):
    """A jitted match between two ``act_fn`` functions, built once by ``make_match`` and
    held by whoever plays them more than once (an evaluator, a training loop), so that
    their games compile once; its programs are freed with it.

    ``run(params_a, params_b, key, *, batch_size, opening_moves)`` returns agent A's
    rewards float32[batch_size] (A first in the first half) and the games' lengths
    int32[batch_size]; it compiles once per ``batch_size`` and ``opening_moves``.
    """

    act_a: Callable
    act_b: Callable
    run: Callable


def make_match(game: Game, act_a: Callable, act_b: Callable) -> Match:
    """The ``Match`` of ``act_a`` (agent A) against ``act_b`` on ``game``."""

    def match(params_a, params_b, key: PRNGKey, *, batch_size: int, opening_moves: int):
        return _play_batch(game, act_a, act_b, params_a, params_b, key, batch_size, opening_moves)

    return Match(act_a, act_b, jax.jit(match, static_argnames=("batch_size", "opening_moves")))


def _play_batch(game, act_a, act_b, params_a, params_b, key, batch_size, opening_moves):
    """One batch of games, A first in the first half: ``(rewards_a, lengths)``."""
    half = batch_size // 2

    def opening(ply, key, a_first, moves_a_first, moves_b_first):
        """Random moves for the first plies, the same in game i of both halves."""
        random = search.uniform_choice(key, jax.vmap(game.legal_action_mask)(a_first))
        early = ply < opening_moves
        return jnp.where(early, random, moves_a_first), jnp.where(early, random, moves_b_first)

    def select(condition, x, y):
        return jax.tree.map(lambda u, v: jnp.where(condition, u, v), x, y)

    init_key, play_key = jax.random.split(key)
    states = jax.vmap(game.init)(jax.random.split(init_key, batch_size))
    a_first = jax.tree.map(lambda x: x[:half], states)  # A is player 0 here...
    b_first = jax.tree.map(lambda x: x[half:], states)  # ...and player 1 here.

    def body(carry):
        ply, a_first, b_first = carry
        a_to_move = ply % 2 == 0  # in a_first; in b_first the other way round
        key_a, key_b = jax.random.split(jax.random.fold_in(play_key, ply))
        moves_a = act_a(params_a, key_a, select(a_to_move, a_first, b_first))
        moves_b = act_b(params_b, key_b, select(a_to_move, b_first, a_first))
        actions_a_first = jnp.where(a_to_move, moves_a, moves_b)
        actions_b_first = jnp.where(a_to_move, moves_b, moves_a)
        if opening_moves:
            opening_key = jax.random.fold_in(init_key, ply)
            actions_a_first, actions_b_first = opening(
                ply, opening_key, a_first, actions_a_first, actions_b_first
            )
        a_first = jax.vmap(game.step)(a_first, actions_a_first)
        b_first = jax.vmap(game.step)(b_first, actions_b_first)
        return ply + 1, a_first, b_first

    def going(carry):
        ply, a_first, b_first = carry
        live = ~(a_first.terminal.all() & b_first.terminal.all())
        return live & (ply < game.max_num_moves)

    _, a_first, b_first = jax.lax.while_loop(going, body, (jnp.int32(0), a_first, b_first))
    rewards = jnp.concatenate([a_first.rewards[:, 0], b_first.rewards[:, 1]])
    lengths = jnp.concatenate([a_first.num_moves, b_first.num_moves])
    return rewards, lengths


def play(
    game: Game,
    agent_a: Agent,
    agent_b: Agent,
    *,
    num_games: int,
    key: PRNGKey,
    batch_size: int | None = None,
    opening_moves: int = 0,
    match: Match | None = None,
) -> MatchResult:
    """Plays ``num_games`` games of ``agent_a`` against ``agent_b``.

    Args:
      game: the game.
      agent_a: the agent whose results are reported.
      agent_b: its opponent.
      num_games: an even number of games; A moves first in half of them.
      key: the match's randomness: the same key replays the same games.
      batch_size: games played at once (an even divisor of ``num_games``; default all).
        Every batch has the same shape, so the match compiles once.
      opening_moves: plies played uniformly at random at the start of every game, the
        same in each pair of games with colours swapped; this varies the games between
        deterministic agents (which would otherwise replay two games over and over)
        without favouring either side.
      match: ``make_match(game, agent_a.act_fn, agent_b.act_fn)``, held by a caller that
        plays these agents again so that it compiles once; None: made for this call.

    Returns:
      A's wins, draws and losses, overall and by colour.

    Raises:
      ValueError: bad counts, or a ``match`` made for other ``act_fn`` functions.
    """
    batch_size = num_games if batch_size is None else batch_size
    if not isinstance(num_games, int) or num_games < 2 or num_games % 2:
        raise ValueError(f"num_games must be an even int >= 2, got {num_games!r}.")
    if not isinstance(batch_size, int) or batch_size < 2 or batch_size % 2:
        raise ValueError(f"batch_size must be an even int >= 2, got {batch_size!r}.")
    if num_games % batch_size:
        raise ValueError(f"batch_size {batch_size} must divide num_games {num_games}.")
    if not isinstance(opening_moves, int) or opening_moves < 0:
        raise ValueError(f"opening_moves must be an int >= 0, got {opening_moves!r}.")
    if match is None:
        match = make_match(game, agent_a.act_fn, agent_b.act_fn)
    elif match.act_a is not agent_a.act_fn or match.act_b is not agent_b.act_fn:
        raise ValueError(
            f"The match given was made for other agents than {agent_a.name} and "
            f"{agent_b.name}; pass make_match(game, agent_a.act_fn, agent_b.act_fn)."
        )
    rewards, lengths = [], []
    for batch_key in jax.random.split(key, num_games // batch_size):
        played = match.run(
            agent_a.params,
            agent_b.params,
            batch_key,
            batch_size=batch_size,
            opening_moves=opening_moves,
        )
        batch_rewards, batch_lengths = jax.device_get(played)
        rewards.append(batch_rewards.reshape(2, -1))
        lengths.append(batch_lengths)
    rewards = np.concatenate(rewards, axis=1)  # [colour, games]: A first, then B first
    return MatchResult(
        player=agent_a.name,
        opponent=agent_b.name,
        total=_record(rewards),
        as_first=_record(rewards[0]),
        as_second=_record(rewards[1]),
        mean_length=float(np.mean(np.concatenate(lengths))),
    )


def _record(rewards: np.ndarray) -> Record:
    return Record(int((rewards > 0).sum()), int((rewards == 0).sum()), int((rewards < 0).sum()))
