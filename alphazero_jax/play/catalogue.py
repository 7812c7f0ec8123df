"""What a play server offers: its games and their settings, the agents that play each and
their strengths (``catalogue``: ``GET /api/games``), and the check of a request's agent
against them (``served_spec``), whose refusal is a ``BadRequest``.

Agents are the kinds of ``server_config.interactive_kinds()`` a server plays (``served_kinds``),
each for the games it plays, at a strength of at most ``strongest``. The catalogue's
``solver`` lists the settings at which the verdicts route answers (``verdicts.solvable``).
"""

from __future__ import annotations

from typing import Any

from alphazero_jax import agents, games
from alphazero_jax.agents import registry
from alphazero_jax.play import contract
from alphazero_jax.play.server_config import ServerConfig, interactive_kinds
from alphazero_jax.play.session import SIDES
from alphazero_jax.play.verdicts import solver_settings
from alphazero_jax.types import Game

DEFAULT_AGENT = "az:pretrained"  # what a new game plays when its body names no agent


class BadRequest(ValueError):
    """A request the server cannot serve as asked (a game's settings, an agent, a move
    list); the message says what was expected."""


def served_kinds(config: ServerConfig) -> tuple[agents.AgentKind, ...]:
    """The kinds of ``interactive_kinds()`` the server plays (``config.agent_kinds``), in order."""
    wanted = config.agent_kinds
    return tuple(kind for kind in interactive_kinds() if wanted is None or kind.kind in wanted)


def strongest(config: ServerConfig, kind: agents.AgentKind) -> int:
    """The largest strength a client may ask of ``kind`` (one with a strength)."""
    return config.max_simulations if kind.strength.name == "simulations" else config.max_depth


def served_spec(
    config: ServerConfig,
    spec: str,
    simulations: int | None,
    *,
    game: str | None = None,
    settings: dict[str, int] | None = None,
) -> str:
    """The spec of an agent the server plays (for ``game``, when given, at its ``settings``,
    when given), with its strength (``simulations`` replaces a search's); BadRequest for
    any other."""
    spec, kinds = spec.strip(), served_kinds(config)
    found = agents.find_kind(spec, kinds)
    if found is None:
        raise BadRequest(
            f"agent: expected one of {', '.join(k.kind for k in kinds)} (with "
            f"':<strength>' where it has one), got {_shown(spec)}. Agents from files (az:<run>) "
            "are not served.",
        )
    kind, argument = found
    name, strength = kind.kind, kind.strength
    if game is not None and not kind.plays(game):
        raise BadRequest(f"agent: {name} plays {', '.join(kind.games)} only, not {game}.")
    if game is not None and settings is not None and kind.only_settings is not None:
        allowed = kind.only_settings(game)
        if not allowed:
            raise BadRequest(
                f"agent: {name} plays {game} at no settings yet; GET /api/games lists the "
                "agents that play it."
            )
        if settings not in allowed:

            def shown(one):
                return ",".join(f"{key}={value}" for key, value in one.items()) or "no settings"

            where = " or ".join(shown(one) for one in allowed)
            raise BadRequest(f"agent: {name} plays {game} at {where} only, not {shown(settings)}.")
    if strength is None:
        if argument or simulations is not None:
            raise BadRequest(f"agent {name!r} takes no strength, got {_shown(spec)}.")
        return kind.spec()
    if simulations is not None:
        if strength.name != "simulations":
            raise BadRequest(f"simulations: {name} has a {strength.name}, not simulations.")
        argument = str(simulations)
    low, high = strength.minimum, strongest(config, kind)
    if not argument:
        return kind.spec(game=game)
    value = registry.read_count(argument, low=low, high=high)
    if value is None:
        raise BadRequest(
            f"{strength.name} of {name}: expected an integer in [{low}, {high}], "
            f"got {_shown(argument)}.",
        )
    return kind.spec(value)


def _shown(text: str, most: int = 40) -> str:
    """``text`` as a message quotes it: its first ``most`` characters, and its length
    when longer (a refusal stays one short line)."""
    if len(text) <= most:
        return repr(text)
    return f"{text[:most]!r}... ({len(text)} characters)"


def _plays_somewhere(kind: agents.AgentKind, game: str) -> bool:
    """Whether ``kind`` plays the game ``game`` at some settings."""
    return kind.plays(game) and (kind.only_settings is None or bool(kind.only_settings(game)))


def catalogue(config: ServerConfig) -> dict[str, Any]:
    """``GET /api/games``: each game with its settings' bounds, the agents that play it and
    the settings at which the solver answers; the human's sides. An agent limited to settings
    at which it plays none of a game (``az:pretrained`` where no network ships for it) is not
    listed for that game."""
    listed = []
    for name in games.available():
        kinds = []
        for kind in [k for k in served_kinds(config) if _plays_somewhere(k, name)]:
            described = {"spec": kind.kind, "label": kind.label, "strength": None}
            if kind.strength:
                described["strength"] = {
                    "name": kind.strength.name,
                    "min": kind.strength.minimum,
                    "max": strongest(config, kind),
                    "default": kind.strength.default_for(name),
                }
            only = kind.only_settings
            described["only_settings"] = None if only is None else only(name)
            kinds.append(described)
        record = games.record(name)
        listed.append(
            {
                "name": name,
                "title": record.title,
                "notation": record.notation,
                "encodings": list(record.encodings),
                "settings": games.settings_of(name),
                "agents": kinds,
                "solver": solver_settings(name),
            }
        )
    return {"games": listed, "sides": list(SIDES)}


def new_session_model(config: ServerConfig) -> type[contract.NewSession]:
    """``contract.NewSession``, published with the schema of the bodies this server plays."""
    ranges = [
        contract.AgentRange(
            kind,
            None if kind.strength is None else kind.strength.name,
            0 if kind.strength is None else kind.strength.minimum,
            0 if kind.strength is None else strongest(config, kind),
        )
        for kind in served_kinds(config)
    ]
    schema = contract.new_session_schema(ranges, default_agent=DEFAULT_AGENT)
    return contract.published_as(contract.NewSession, schema)


def describe(game: Game, spec: str) -> str:
    """An agent as the status names it: "Connect Four (rows 6, cols 7, connect 4), mcts:50",
    or for a game with no settings "Go 9x9 (pgx), mcts:50"."""
    settings = dict(game.settings)
    shown = ", ".join(f"{name} {value}" for name, value in settings.items())
    return f"{games.record(game.name).title}{f' ({shown})' if shown else ''}, {spec}"
