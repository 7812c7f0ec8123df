"""What an agent kind is: one ``AgentKind`` per kind, defined beside the agent.

``agents.kinds()`` lists the registered ones (``plugs.AGENT_KINDS``); ``from_spec``,
``specs()``, the docs' table (docs/agents.md, ``spec_table``), the entry points' flag help
(``spec_help``) and the play page's catalogue are all derived from it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from alphazero_jax import games
from alphazero_jax.agents._spec_text import MAX_DIGITS, is_count
from alphazero_jax.types import Agent, Game


class SpecError(ValueError):
    """A malformed spec; ``from_spec`` adds the list of valid specs to its message."""


@dataclasses.dataclass(frozen=True)
class Strength:
    """The number that ends a kind's spec: ``name`` (``simulations`` or ``depth``), its
    least value, and its default: ``recorded_fn(game name or None)`` where that returns a
    number (the search a shipped ``agent.json`` records), else ``default``."""

    name: str
    minimum: int
    default: int
    recorded_fn: Callable[[str | None], int | None] | None = None

    def default_for(self, game: str | None = None) -> int:
        """The default strength for the game named ``game`` (None: for no game in
        particular)."""
        recorded = None if self.recorded_fn is None else self.recorded_fn(game)
        return self.default if recorded is None else recorded


@dataclasses.dataclass(frozen=True)
class AgentKind:
    """One kind of agent and its spec.

    Attributes:
      kind: the spec's head, ``minimax`` or ``greedy:path``; ``from_spec`` picks the
        longest kind that the spec starts with (up to a colon or its end).
      grammar: the spec's form, e.g. ``minimax:<depth>``.
      label: a short name for menus.
      description: one line for the docs and help texts.
      parse: ``(game, spec, argument) -> Agent``; ``argument`` is the text after the kind
        and its colon. A ``SpecError`` gets the valid specs appended.
      games: the games it plays (None: every game).
      strength: the number after the colon, where the spec has one the server may bound.
      interactive: whether the play page offers it: it needs no file of the user's and
        answers within seconds.
      example: a spec of this kind that needs no file (None: every one names a file).
      only_settings: ``game name -> settings`` the kind is limited to (None: any).
    """

    kind: str
    grammar: str
    label: str
    description: str
    parse: Callable[[Game, str, str], Agent]
    games: tuple[str, ...] | None = None
    strength: Strength | None = None
    interactive: bool = False
    example: str | None = None
    only_settings: Callable[[str], list[dict[str, int]]] | None = None

    def plays(self, game: str) -> bool:
        """Whether it plays the game named ``game``."""
        return self.games is None or game in self.games

    def spec(self, strength: int | None = None, *, game: str | None = None) -> str:
        """The spec of this kind at ``strength``: the kind alone when it has no strength,
        else ``<kind>:<strength>``, by default its strength's ``default_for(game)``.

        Raises:
          ValueError: a strength for a kind that has none, or one below its minimum.
        """
        if self.strength is None:
            if strength is not None:
                raise ValueError(f"Agent kind {self.kind!r} takes no strength, got {strength}.")
            return self.kind
        if strength is None:
            strength = self.strength.default_for(game)
        elif strength < self.strength.minimum:
            raise ValueError(
                f"{self.strength.name} of {self.kind}: expected an integer >= "
                f"{self.strength.minimum}, got {strength}."
            )
        return f"{self.kind}:{strength}"


def read_count(text: str, *, low: int, high: int) -> int | None:
    """The integer in ``[low, high]`` that ``text`` writes in ASCII digits, leading zeros
    allowed; None for any other text (other digits such as ``"²"`` or ``"١"``, signs,
    spaces, more than ``MAX_DIGITS`` significant digits: ``int`` never sees a long one)."""
    if not text.isascii() or not text.isdigit():
        return None
    significant = text.lstrip("0") or "0"
    if not is_count(significant):
        return None
    value = int(significant)
    return value if low <= value <= high else None


def count(spec: str, text: str, *, minimum: int) -> int:
    """The count ``text`` after a spec's colon; SpecError unless an integer >= ``minimum``."""
    if not is_count(text) or int(text) < minimum:
        raise SpecError(
            f"Agent spec {spec!r}: expected an integer >= {minimum} (at most {MAX_DIGITS} "
            f"digits) after the colon, got {text!r}."
        )
    return int(text)


def no_argument(build: Callable[[Game], Agent]) -> Callable[[Game, str, str], Agent]:
    """The parser of a spec that is its kind alone."""

    def parse(game: Game, spec: str, argument: str) -> Agent:
        if argument:
            raise SpecError(f"Agent spec {spec!r} takes no argument.")
        return build(game)

    return parse


def find(kinds: tuple[AgentKind, ...], spec: str) -> tuple[AgentKind, str] | None:
    """``(kind, argument)`` of the longest of ``kinds`` that ``spec`` starts with, or None."""
    spec = spec.strip()
    matching = [k for k in kinds if spec == k.kind or spec.startswith(k.kind + ":")]
    if not matching:
        return None
    kind = max(matching, key=lambda k: len(k.kind))
    return kind, spec[len(kind.kind) + 1 :]


def spec_table(kinds: tuple[AgentKind, ...]) -> str:
    """The markdown table of ``kinds``: each grammar and description."""
    rows = [f"| `{k.grammar}` | {_games_note(k)}{k.description} |" for k in kinds]
    return "\n".join(["| spec | player |", "| --- | --- |", *rows])


def spec_help(kinds: tuple[AgentKind, ...]) -> str:
    """One line naming every grammar of ``kinds`` (with the games of the limited ones)."""
    names = [k.grammar + (f" ({', '.join(k.games)})" if k.games else "") for k in kinds]
    return "Agent specs: " + ", ".join(names) + "."


def _games_note(kind: AgentKind) -> str:
    if kind.games is None:
        return ""
    return " and ".join(games.record(name).title for name in kind.games) + " only: "
