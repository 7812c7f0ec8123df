r"""Play an agent in the terminal (``make play``).

    alphazero-play --game=connect_four [--agent=az:pretrained] \
        [--human=first|second|none] [--simulations=N] [--game_settings=rows=5,cols=6]

Moves in the game's notation (each game's is in ``--game``'s help, from its
``games.record``); ``undo``, ``hint``, ``eval``, ``moves``, ``new`` and ``quit`` at the
prompt. The default agent is the network shipped for the game (``az:pretrained``);
``--simulations`` sets a network's search (-1: the run's own, 0: its raw policy), i.e. its
strength.
"""

from __future__ import annotations

import sys

from absl import flags

from alphazero_jax import agents, games
from alphazero_jax.cli import common as cli


def _games_help() -> str:
    """Each game with its notation (``games.record``)."""
    shown = []
    for name in games.available():
        notation = games.record(name).notation
        shown.append(f"{name} (moves: {notation})" if notation else name)
    return "The game: " + "; ".join(shown) + "."


_GAME = flags.DEFINE_string("game", "connect_four", _games_help())
_SETTINGS = cli.define_game_settings()
_AGENT = flags.DEFINE_string(
    "agent", "az:pretrained", f"The opponent's agent. {agents.spec_help()}"
)
_HUMAN = flags.DEFINE_enum("human", "first", ["first", "second", "none"], "Your side.")
_SIMULATIONS = cli.define_simulations(
    "For an az: agent only; -1 keeps the count its spec gives, if any."
)
_SEED = flags.DEFINE_integer("seed", 0, "The agent's randomness (new games add one).")


def _spec() -> str:
    spec = _AGENT.value.strip()
    if _SIMULATIONS.value < 0:  # the run's own, or the count the spec gives
        return spec
    if not spec.startswith("az:"):
        cli.fail(f"--simulations: expected an az: agent, whose search it sets; got --agent={spec}.")
    path, _ = agents.parse_az(spec)
    return f"az:{path}:{_SIMULATIONS.value}"


def main(argv: list[str]) -> None:
    cli.begin(argv)
    from alphazero_jax.agents import pretrained
    from alphazero_jax.play import session, terminal

    try:
        settings = cli.parse_settings(_SETTINGS.value)
        found = agents.find_kind(_spec())
        if not settings and found and found[0].kind == f"az:{pretrained.SPEC_NAME}":
            settings = pretrained.settings_to_play(_GAME.value)  # where a network ships
            if settings:
                shown = ",".join(f"{name}={value}" for name, value in settings.items())
                print(
                    f"Playing {_GAME.value} at {shown}, where its shipped agent plays "
                    "(--game_settings for other settings, with another --agent)."
                )
        game = games.make(_GAME.value, **settings)
        agent = agents.from_spec(game, _spec())
    except (ValueError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    seeds = iter(range(_SEED.value, sys.maxsize))
    programs = session.make_programs(game, agent)  # every game of this session shares them

    def new_game() -> session.PlaySession:
        return session.PlaySession(
            game, agent, human=_HUMAN.value, seed=next(seeds), programs=programs
        )

    terminal.run(new_game)


def run() -> None:
    """The ``alphazero-play`` console script."""
    cli.run(main, __name__)


if __name__ == "__main__":
    run()
