"""The play API's contract: the bodies the server reads and answers, as pydantic models,
and the JSON Schema of a new game's body, which admits exactly the bodies the server plays.

The answers are models FastAPI checks each answer against and publishes in the OpenAPI
document (``/api/openapi.json``), with every refusal's status and its ``ErrorBody``.

A new game's body is read by ``NewSession`` (the types), then by the server (``games.make``
and ``catalogue.served_spec``), whose refusals say what was expected. Its published schema,
``new_session_schema``, states the same rules: one branch per game (its settings with their
bounds and steps, the rules between settings that ``games.settings_of`` does not state,
``games.record``), and within it one per agent that plays it (its spec as a pattern, its
strength within the server's bounds, the settings it is limited to, its move list in the
game's notation). A body that the schema admits is played; the one rule a schema cannot
state is that ``moves`` be legal from the start (409 otherwise: the body is well formed).
A move (``Move``) is published in the notation of any game (``move_schema``); one that is
not legal in the session's game is a 409. ``tests/play/test_web_schema.py`` holds the
server to both.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from alphazero_jax import agents, games
from alphazero_jax.games import records as game_record
from alphazero_jax.games.records import Region

Side = Literal["first", "second", "none"]
MAX_MOVES_TEXT = 400  # characters of a new game's move list
MAX_MOVE_TEXT = 40  # characters of one move
MAX_NAME_TEXT = 64  # characters of a game's name or a setting's
MAX_AGENT_TEXT = 200  # characters of an agent spec

# What ``str.strip()`` removes around an agent spec: the characters whose ``isspace()`` is
# true (a test checks the list), as the inside of a regex character class.
SPACES = game_record.SPACES
# The schema of a 429's Retry-After header.
RETRY_AFTER = {
    "description": "Seconds after which the request may be asked again.",
    "schema": {"type": "integer", "minimum": 1},
}


# -- requests ------------------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


def _whole(value: object) -> object:
    """A float with no fraction as the int it is: JSON does not tell 4.0 from 4, nor does
    JSON Schema's ``integer``; any other value as it is."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


Count = Annotated[int, BeforeValidator(_whole)]  # an integer, written 4 or 4.0
Name = Annotated[str, Field(max_length=MAX_NAME_TEXT)]


class NewSession(_Strict):
    """A new game's body, as read; ``new_session_schema`` says which the server plays."""

    game: str = Field(max_length=MAX_NAME_TEXT, description="A game of GET /api/games.")
    settings: dict[Name, Count] = Field(default_factory=dict, description="e.g. rows, cols.")
    agent: str = Field(
        default="az:pretrained",
        max_length=MAX_AGENT_TEXT,
        description="An agent spec, e.g. mcts:200.",
    )
    simulations: Count | None = Field(default=None, description="A search's simulations.")
    human: Side = "first"
    moves: str = Field(
        default="", max_length=MAX_MOVES_TEXT, description="A move list to start from."
    )


class Move(_Strict):
    """One move in the notation of the session's game (the schema: of any game's)."""

    move: str = Field(max_length=MAX_MOVE_TEXT, description="One move in the game's notation.")


def published_as(model: type[BaseModel], schema: dict[str, Any]) -> type[BaseModel]:
    """A subclass of ``model`` that reads bodies as ``model`` does and publishes
    ``schema`` as its JSON Schema (under ``model``'s name)."""

    def replace(generated: dict[str, Any], cls: type) -> None:
        del cls
        generated.clear()
        generated.update(schema)

    namespace = {"model_config": ConfigDict(json_schema_extra=replace), "__module__": __name__}
    return type(model.__name__, (model,), namespace)


# -- answers -------------------------------------------------------------------------------


class ErrorBody(BaseModel):
    """Every refusal's body: what was expected, and what was received."""

    error: str


class StrengthInfo(BaseModel):
    name: Literal["simulations", "depth"]
    min: int
    max: int
    default: int


class AgentInfo(BaseModel):
    spec: str
    label: str
    strength: StrengthInfo | None
    only_settings: list[dict[str, int]] | None = Field(
        description="The settings it plays at; null: any."
    )


class SettingInfo(BaseModel):
    default: int
    min: int
    max: int
    step: int


class GameInfo(BaseModel):
    name: str
    title: str
    notation: str = Field(description="How its move lists are written; empty: not said.")
    encodings: list[str] = Field(
        description="Settings that change only what a network sees: the page hides them."
    )
    settings: dict[str, SettingInfo]
    agents: list[AgentInfo]
    solver: list[dict[str, int]] = Field(
        description="The settings at which GET /api/sessions/{id}/verdicts answers."
    )


class Catalogue(BaseModel):
    games: list[GameInfo]
    sides: list[Side]


class Reply(BaseModel):
    move: str
    player: Literal[0, 1]
    value: float | None = Field(description="For the side that moved, in [-1, 1].")
    shares: dict[str, float] | None = Field(description="The search's visit share per move.")


class SessionView(BaseModel):
    id: str
    game: str
    settings: dict[str, int]
    agent: str
    human: Side
    moves: str
    text: str
    board: dict[str, Any] = Field(description="The position as the game's page module draws it.")
    legal_moves: list[str]
    to_move: Literal[0, 1]
    human_to_move: bool
    over: bool
    result: str
    winner: Literal[0, 1] | None
    reply: list[Reply]


class Deleted(BaseModel):
    deleted: str


class Verdicts(BaseModel):
    verdicts: dict[str, Literal["win", "draw", "loss"]] | None = Field(
        description="Each legal column's result with perfect play after it; null: not solved."
    )
    reason: str | None


class WarmUp(BaseModel):
    done: int
    total: int


class Compiling(BaseModel):
    running: list[str]
    queued: int
    done: int


class HeldAgent(BaseModel):
    game: str
    settings: dict[str, int]
    agent: str
    ready: list[int]
    compiling: list[int]


class Stats(BaseModel):
    sessions: int
    warm: bool
    batches: int
    positions: int
    warm_up: WarmUp
    compiling: Compiling
    agents: list[HeldAgent]
    max_agents: int
    evicted: int
    new_agents_waiting: int = Field(description="Requests waiting for their client's turn.")


# -- refusals ------------------------------------------------------------------------------

# Every route: the time limits of a request (``connections.py``: its headers; and
# ``body_limit.BodyLimit``: its body) and the body's size come before any route.
BODY_LIMITS = {
    408: "The request's headers or body did not arrive within the server's header_seconds "
    "or body_seconds.",
    413: "The request body is larger than the server's max_body_bytes.",
}


def refusals(statuses: Mapping[int, str]) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route (FastAPI): each status with its description and the
    ``ErrorBody`` model, the body limits' included."""
    return {
        status: {"model": ErrorBody, "description": description}
        for status, description in sorted({**statuses, **BODY_LIMITS}.items())
    }


# -- the schema of a new game ---------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class AgentRange:
    """An agent kind the server plays, as the schema needs it: its strength's name and
    bounds (None: it has no strength)."""

    kind: agents.AgentKind
    strength: str | None
    low: int
    high: int


def setting_regions(name: str) -> list[Region]:
    """The settings of the game ``name`` that ``games.make`` accepts, as regions whose
    union they are: each setting's bounds and step (``games.settings_of``), split by the
    game's ``joint_rules`` (``games.record``)."""
    box = {
        key: list(range(bound["min"], bound["max"] + 1, bound["step"]))
        for key, bound in games.settings_of(name).items()
    }
    rules = games.record(name).joint_rules
    return [box] if rules is None else rules(box)


def move_schema() -> dict[str, Any]:
    """The schema of one move (``Move.move``): at most ``MAX_MOVE_TEXT`` characters, in the
    notation of one of the games (``games.record(name).move_pattern``), any text where a
    game states none."""
    patterns = [games.record(name).one_move_pattern() for name in games.available()]
    schema = {"type": "string", "maxLength": MAX_MOVE_TEXT, "description": Move.__doc__}
    if None not in patterns:
        schema["pattern"] = "|".join(f"({pattern})" for pattern in patterns)
    return schema


def is_move_text(text: str) -> bool:
    """Whether ``text`` is one move in some game's notation (``move_schema``)."""
    return any(
        game_record.matches(games.record(name).one_move_pattern(), text)
        for name in games.available()
    )


def admits(regions: Iterable[Region], settings: Mapping[str, int], defaults: Mapping) -> bool:
    """Whether ``settings`` (a setting left out takes its default) lie in a region."""
    full = {**defaults, **settings}
    return any(all(full[key] in values for key, values in r.items()) for r in regions)


def _values_schema(values: Sequence[int]) -> dict[str, Any]:
    low, high = values[0], values[-1]
    steps = {b - a for a, b in itertools.pairwise(values)}
    if len(values) == 1:
        return {"type": "integer", "enum": [low]}
    if steps == {1}:
        return {"type": "integer", "minimum": low, "maximum": high}
    if len(steps) == 1 and low % (step := steps.pop()) == 0:
        return {"type": "integer", "minimum": low, "maximum": high, "multipleOf": step}
    return {"type": "integer", "enum": list(values)}


def _settings_schema(regions: Sequence[Region], defaults: Mapping[str, int]) -> dict[str, Any]:
    """Settings in one of ``regions``; a setting left out must have its default there."""
    branches = [
        {
            "type": "object",
            "properties": {key: _values_schema(values) for key, values in region.items()},
            "required": [key for key, values in region.items() if defaults[key] not in values],
            "additionalProperties": False,
        }
        for region in regions
    ]
    return branches[0] if len(branches) == 1 else {"anyOf": branches}


def _escaped(text: str) -> str:
    return "".join("\\" + c if c in r"\^$.|?*+()[]{}/-" else c for c in text)


def count_pattern(low: int, high: int) -> str:
    """A regex of the ASCII integers in ``[low, high]`` (0 <= low <= high), leading zeros
    allowed (``int`` reads them)."""
    if low == 0:
        return "0+" if high == 0 else f"(0+|{count_pattern(1, high)})"
    parts = []
    for digits in range(len(str(low)), len(str(high)) + 1):
        first, last = max(low, 10 ** (digits - 1)), min(high, 10**digits - 1)
        parts += _same_length(str(first), str(last))
    return "0*(" + "|".join(parts) + ")"


def _digits(low: int, high: int) -> str:
    return str(low) if low == high else f"[{low}-{high}]"


def _same_length(low: str, high: str) -> list[str]:
    """Regexes of the numbers from ``low`` to ``high``, both of one length."""
    if len(low) == 1:
        return [_digits(int(low), int(high))]
    if low[0] == high[0]:
        return [low[0] + rest for rest in _same_length(low[1:], high[1:])]
    nines, zeros = "9" * (len(low) - 1), "0" * (len(low) - 1)
    parts = [low[0] + rest for rest in _same_length(low[1:], nines)]
    if int(high[0]) - int(low[0]) > 1:
        middle = _digits(int(low[0]) + 1, int(high[0]) - 1)
        parts.append(middle + "[0-9]" * (len(low) - 1))
    return parts + [high[0] + rest for rest in _same_length(zeros, high[1:])]


def _spec_pattern(kind: str, argument: str | None) -> str:
    """A spec of ``kind`` with an optional ``:argument`` (a regex; None: none), spaces
    around it allowed (the server strips them)."""
    space = f"[{SPACES}]*"
    tail = "(:)?" if argument is None else f"(:({argument})?)?"
    return f"^{space}{_escaped(kind)}{tail}{space}$"


def _agent_branches(agent: AgentRange, settings: dict[str, Any], *, required: list[str]):
    """The bodies that play ``agent``: its spec with a strength in range (or a simulations
    field in range, which replaces the spec's own), at ``settings``; ``required``: the
    fields such a body must have."""
    strength = None if agent.strength is None else count_pattern(agent.low, agent.high)
    own = {
        "properties": {
            "agent": {"type": "string", "pattern": _spec_pattern(agent.kind.kind, strength)},
            "simulations": {"type": "null"},
            "settings": settings,
        },
        "required": required,
    }
    if agent.strength != "simulations":
        return [own]
    given = {
        "properties": {
            "agent": {"type": "string", "pattern": _spec_pattern(agent.kind.kind, r"[\s\S]*")},
            "simulations": {"type": "integer", "minimum": agent.low, "maximum": agent.high},
            "settings": settings,
        },
        "required": [*required, "simulations"],
    }
    return [own, given]


def _moves_schema(name: str) -> dict[str, Any]:
    """A move list of the game ``name`` in its notation (any text where it states none)."""
    record = games.record(name)
    schema = {"type": "string", "maxLength": MAX_MOVES_TEXT, "default": ""}
    pattern = record.moves_pattern()
    if pattern is not None:
        schema["pattern"] = pattern
    if record.notation:
        schema["description"] = f"{record.title}: {record.notation}."
    return schema


def new_session_schema(ranges: Sequence[AgentRange], *, default_agent: str) -> dict[str, Any]:
    """The JSON Schema of the ``POST /api/sessions`` bodies the server plays.

    Args:
      ranges: the agents the server plays, with their strengths' bounds; a spec is matched
        to the longest kind it starts with, so no kind with a simulations strength may be
        the start of another kind.
      default_agent: the kind the server plays when a body names none.
    """
    names = [r.kind.kind for r in ranges]
    for r in ranges:
        taken = [other for other in names if other.startswith(r.kind.kind + ":")]
        if r.strength == "simulations" and taken:
            raise ValueError(
                f"Agent kind {r.kind.kind!r} takes any text with simulations, but the kinds "
                f"{taken} start with it; the schema cannot tell them apart."
            )
    per_game = []
    for name in games.available():
        defaults = {key: bound["default"] for key, bound in games.settings_of(name).items()}
        regions = setting_regions(name)
        branches = []
        for r in [r for r in ranges if r.kind.plays(name)]:
            only = None if r.kind.only_settings is None else r.kind.only_settings(name)
            where = regions if only is None else [{k: [v] for k, v in o.items()} for o in only]
            if where:
                required = [] if r.kind.kind == default_agent else ["agent"]
                required += [] if admits(where, {}, defaults) else ["settings"]
                settings = _settings_schema(where, defaults)
                branches += _agent_branches(r, settings, required=required)
        per_game.append(
            {
                "type": "object",
                "properties": {
                    "game": {"const": name},
                    "settings": {"type": "object"},
                    "agent": {"type": "string", "maxLength": MAX_AGENT_TEXT},
                    "simulations": {"type": ["integer", "null"]},
                    "human": {"enum": ["first", "second", "none"], "default": "first"},
                    "moves": _moves_schema(name),
                },
                "required": ["game"],
                "additionalProperties": False,
                "anyOf": branches,
            }
        )
    return {
        "title": "NewSession",
        "description": (
            "A new game: its settings (absent ones take their defaults), the agent (absent: "
            f"{default_agent}) with its strength, the human's side, and moves to start from, "
            "which must be legal (the one rule this schema cannot state)."
        ),
        "type": "object",
        "oneOf": per_game,
    }
