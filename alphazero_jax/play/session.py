"""One game between a person and an agent (or two agents), kept on the host.

``PlaySession`` holds the moves and the positions they lead to; every change goes through
it and checks first, so a refused move leaves the game as it was, and the refusal's type
says why (``GameOver``, ``NotYourTurn``, ``IllegalMove``, ``NothingToUndo``: each a
``MoveError``). The jitted functions a game runs (a step, the facts of a position, the
agent's analysis of a batch of one) are a ``Programs``, made by ``make_programs`` and held
by whoever plays several games of the same agent (the terminal's loop, a server's agent
pool), so that a new game compiles nothing. Front ends only read and call the session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import numpy as np

from alphazero_jax.types import Agent, Analysis, Game, State

SIDES = ("first", "second", "none")  # the human's side; "none": the agent plays both


class MoveError(ValueError):
    """A move refused, with the reason; the session is unchanged. Raised as one of its
    subclasses, which say why."""


class GameOver(MoveError):
    """The game is over: nothing can be played or analysed."""


class NotYourTurn(MoveError):
    """The other side is to move (or the agent plays both sides)."""


class IllegalMove(MoveError):
    """A move (or a pasted move list) that is malformed, not one move, or not legal."""


class NothingToUndo(MoveError):
    """No move of the human's to take back."""


class AgentMove(NamedTuple):
    """An agent's move with what its search made of the position before it."""

    action: int
    move: str  # in the game's notation
    value: float | None  # for the side that moved, in [-1, 1]; None: the agent has none
    shares: dict[str, float] | None  # visit share of each legal move


class _Facts(NamedTuple):
    """What the session reads of a position, fetched to the host once per position."""

    terminal: bool
    player: int
    rewards: np.ndarray  # float32[2]
    legal: np.ndarray  # bool[A]


class Programs(NamedTuple):
    """The jitted functions of games of ``game`` against ``agent`` (``make_programs``);
    each compiles on its first call, and its programs are freed with it."""

    game: Game
    agent: Agent
    step: Callable  # (state, action) -> (next state, its facts), one device call
    facts: Callable  # state -> its facts
    analyse: Callable  # (params, key, states[1]) -> Analysis (``analysis_fn``)


def make_programs(game: Game, agent: Agent) -> Programs:
    """The ``Programs`` of games of ``game`` against ``agent``; whoever plays several
    games holds them and passes them to each ``PlaySession``."""

    def step(state: State, action: int) -> tuple[State, tuple]:
        state = game.step(state, action)
        return state, _facts_of(game, state)

    def facts(state: State) -> tuple:
        return _facts_of(game, state)

    analyse = analysis_fn(agent)

    def analysed(params, key: jax.Array, states: State) -> Analysis:  # a function of its own
        return analyse(params, key, states)

    return Programs(game, agent, jax.jit(step), jax.jit(facts), jax.jit(analysed))


def _facts_of(game: Game, state: State) -> tuple:
    return state.terminal, state.current_player, state.rewards, game.legal_action_mask(state)


def _fetched(facts: tuple) -> _Facts:
    terminal, player, rewards, legal = jax.device_get(facts)
    return _Facts(bool(terminal), int(player), np.asarray(rewards), np.asarray(legal))


def _one(state: State) -> State:
    return jax.tree.map(lambda x: x[None], state)


def analysis_fn(agent: Agent) -> Callable:
    """``(params, key, states) -> Analysis`` of ``agent``: its ``analyse_fn``, or only the
    actions of its ``act_fn`` (``value`` and ``shares`` None) when it has none. Unjitted:
    whoever calls it often jits it once and keeps it (``make_programs``, a
    ``batching.Batcher``)."""
    analyse_fn, act_fn = agent.analyse_fn, agent.act_fn
    if analyse_fn is not None:
        return analyse_fn

    def actions_only(params, key: jax.Array, states: State) -> Analysis:
        return Analysis(act_fn(params, key, states), None, None)

    return actions_only


class PlaySession:
    """A game of ``game`` against ``agent``; the human plays ``human`` (see ``SIDES``).

    Args:
      game: the game.
      agent: the opponent (``agents.from_spec``).
      human: ``"first"``, ``"second"`` or ``"none"`` (the agent plays both sides).
      seed: the agent's randomness (ties, sampling); the same seed replays the same game.
      programs: ``make_programs(game, agent)``, held by a caller that plays several games
        so that they compile once; None: made for this session.
    """

    def __init__(
        self,
        game: Game,
        agent: Agent,
        *,
        human: str = "first",
        seed: int = 0,
        programs: Programs | None = None,
    ):
        if human not in SIDES:
            raise ValueError(f"human must be one of {SIDES}, got {human!r}.")
        programs = make_programs(game, agent) if programs is None else programs
        if (programs.game.name, programs.game.settings) != (game.name, game.settings) or (
            programs.agent.act_fn is not agent.act_fn
        ):
            raise ValueError(
                f"The programs given were made for {programs.agent.name} on "
                f"{programs.game.name}, not {agent.name} on {game.name}; pass "
                "make_programs(game, agent)."
            )
        self.game, self.agent, self.human, self.programs = game, agent, human, programs
        self._key = jax.random.key(seed)
        self.actions: list[int] = []
        self._states: list[State] = [game.init(jax.random.key(0))]
        self._facts: list[_Facts] = [_fetched(programs.facts(self._states[0]))]

    # -- reading -------------------------------------------------------------------------

    @property
    def state(self) -> State:
        return self._states[-1]

    @property
    def over(self) -> bool:
        return self._facts[-1].terminal

    @property
    def player(self) -> int:
        """The side to move: 0 moves first."""
        return self._facts[-1].player

    @property
    def human_to_move(self) -> bool:
        return not self.over and self.human != "none" and self.player == SIDES.index(self.human)

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self._facts[-1].legal)]

    def legal_moves(self) -> list[str]:
        return [self.game.action_to_text(a, self.state) for a in self.legal_actions()]

    def move_names(self) -> list[str]:
        """Each move played so far in the game's notation (a name may depend on its
        position: a Quoridor pawn move names its square)."""
        return [self.game.action_to_text(a, s) for a, s in zip(self.actions, self._states)]

    def moves_text(self) -> str:
        """The game so far as a move list in the game's notation."""
        return self.game.actions_to_text(self.actions)

    def board_text(self) -> str:
        return self.game.to_text(self.state)

    @property
    def winner(self) -> int | None:
        """The side that won (0 moved first), or None for a draw or a game not over."""
        rewards = self._facts[-1].rewards
        if not self.over or rewards[0] == rewards[1]:
            return None
        return 0 if rewards[0] > rewards[1] else 1

    def result_text(self) -> str:
        """Who won, from the human's view when there is one ("You win", "The agent wins",
        "Draw"), else by side ("First player wins"); "" while playing."""
        if not self.over:
            return ""
        if self.winner is None:
            return "Draw"
        if self.human == "none":
            return f"{('First', 'Second')[self.winner]} player wins"
        return "You win" if self.winner == SIDES.index(self.human) else "The agent wins"

    # -- changing ------------------------------------------------------------------------

    def play(self, text: str) -> int:
        """Plays the human's move written in the game's notation; returns its action.

        Raises:
          NotYourTurn: the agent plays both sides, or it is its turn.
          GameOver: the game is over.
          IllegalMove: not one move, malformed, or illegal; the message says what was
            expected.
        """
        self.check_human_move()
        try:
            actions = self.game.actions_from_text(text.strip(), self.state)
        except ValueError as error:
            raise IllegalMove(f"{error} Legal moves: {', '.join(self.legal_moves())}.") from error
        if len(actions) != 1:
            raise IllegalMove(
                f"Expected one move, got {len(actions)} in {text!r}. "
                f"Legal moves: {', '.join(self.legal_moves())}."
            )
        if actions[0] not in self.legal_actions():
            explain = self.game.explain_illegal
            reason = explain(self.state, actions[0]) if explain else ""
            raise IllegalMove(
                f"{self.game.action_to_text(actions[0], self.state)} is not legal here"
                f"{': ' + reason if reason else ''}. "
                f"Legal moves: {', '.join(self.legal_moves())}."
            )
        self._push(actions[0])
        return actions[0]

    def check_human_move(self) -> None:
        """Raises what ``play`` raises when the human may not move now: NotYourTurn (the
        agent plays both sides, or is to move) or GameOver."""
        if self.human == "none":
            raise NotYourTurn("The agent plays both sides in this session; no moves.")
        if self.over:
            raise GameOver(f"The game is over ({self.result_text()}); start a new one.")
        if not self.human_to_move:
            raise NotYourTurn("It is the agent's turn, not yours.")

    def check_agent_move(self) -> None:
        """Raises what ``agent_move`` raises when the agent may not move now: GameOver or
        NotYourTurn (the human is to move); a caller checks before it searches."""
        self.check_analysable()
        if self.human_to_move:
            raise NotYourTurn("It is your turn, not the agent's.")

    def check_analysable(self) -> None:
        """Raises GameOver when the game is over (nothing to analyse)."""
        if self.over:
            raise GameOver(f"The game is over ({self.result_text()}).")

    def agent_move(self, computed: Analysis | None = None) -> AgentMove:
        """Plays the agent's move (its turn, or any side with ``human="none"``).

        Args:
          computed: the agent's analysis of this position on a batch of one, made by the
            caller (a server that batches the searches of many sessions); None: search now.

        Raises:
          GameOver, NotYourTurn: as ``check_agent_move``.
        """
        self.check_agent_move()
        analysed = self.analyse(computed)
        self._push(analysed.action)
        return analysed

    def analyse(self, computed: Analysis | None = None) -> AgentMove:
        """The agent's move for the side to move, without playing it (a hint), with its
        value and visit shares when it has a search. ``computed``: as in ``agent_move``.

        Raises:
          GameOver: the game is over.
        """
        self.check_analysable()
        if computed is None:
            searched = self.programs.analyse(self.agent.params, self.search_key(), _one(self.state))
            computed = jax.device_get(searched)
        return self._described(int(computed.action[0]), computed)

    def search_key(self) -> jax.Array:
        """The agent's key for the position now (one per ply, so a game replays)."""
        return jax.random.fold_in(self._key, len(self.actions))

    def undo(self) -> list[int]:
        """Takes back the human's last move and the agent's reply to it; returns the
        actions taken back (oldest first). With ``human="none"`` takes back one move.

        Raises:
          NothingToUndo: no move of the human's to take back.
        """
        if self.human == "none":
            count = min(1, len(self.actions))
        else:
            mine = [i for i in range(len(self.actions)) if i % 2 == SIDES.index(self.human)]
            count = len(self.actions) - mine[-1] if mine else 0
        if not count:
            raise NothingToUndo("Nothing to take back.")
        taken = self.actions[-count:]
        del self.actions[-count:], self._states[-count:], self._facts[-count:]
        return taken

    def set_moves(self, text: str) -> None:
        """Replaces the game with the move list ``text`` (a pasted position).

        Raises:
          IllegalMove: a malformed or illegal move, or moves after the end; the game is
            unchanged.
        """
        try:
            actions = self.game.actions_from_text(text.strip()) if text.strip() else []
        except ValueError as error:
            raise IllegalMove(str(error)) from error
        states, facts = [self._states[0]], [self._facts[0]]
        for index, action in enumerate(actions):
            if not facts[-1].legal[action]:
                raise IllegalMove(
                    f"Move {index + 1} ({self.game.action_to_text(action, states[-1])}) is not "
                    "legal there."
                )
            state, fact = self.programs.step(states[-1], action)
            states.append(state)
            facts.append(_fetched(fact))
        self.actions, self._states, self._facts = list(actions), states, facts

    def _push(self, action: int) -> None:
        state, facts = self.programs.step(self.state, action)
        self._states.append(state)
        self._facts.append(_fetched(facts))
        self.actions.append(action)

    def _described(self, action: int, analysis: Analysis) -> AgentMove:
        move = self.game.action_to_text(action, self.state)
        if analysis.shares is None:
            return AgentMove(action, move, None, None)
        shares = np.asarray(analysis.shares[0])
        named = {
            self.game.action_to_text(a, self.state): float(shares[a]) for a in self.legal_actions()
        }
        return AgentMove(action, move, float(analysis.value[0]), named)
