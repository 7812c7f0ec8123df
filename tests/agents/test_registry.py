"""``agents.kinds()`` (the registry ``plugs.AGENT_KINDS``) is the one source of the agent
kinds: the README's table, the flag help, ``from_spec`` and the play page's catalogue all
agree with it."""

import dataclasses
import pathlib
import subprocess
import sys

import jax
import jax.numpy as jnp
import pytest
from fastapi.testclient import TestClient

from alphazero_jax import agents, games
from alphazero_jax.agents import pretrained
from alphazero_jax.play.catalogue import served_spec
from alphazero_jax.play.routes import create_app
from alphazero_jax.play.server_config import ServerConfig
from alphazero_jax.types import Agent

ROOT = pathlib.Path(__file__).parents[2]
AGENTS_PAGE = ROOT / "docs" / "agents.md"  # the spec table, from agents.spec_table()


def test_kinds__are_unique_and_their_grammar_starts_with_the_kind():
    names = [kind.kind for kind in agents.kinds()]
    assert len(names) == len(set(names))
    for kind in agents.kinds():
        assert kind.grammar == kind.kind or kind.grammar.startswith(
            (kind.kind + ":", kind.kind + "[")
        )
    assert agents.specs() == tuple(kind.grammar for kind in agents.kinds())


def test_agents_page__holds_the_generated_spec_table():
    assert agents.spec_table() in AGENTS_PAGE.read_text()


def test_spec_help__names_every_grammar():
    help_text = agents.spec_help()
    assert all(kind.grammar in help_text for kind in agents.kinds())


@pytest.mark.parametrize("kind", agents.kinds(), ids=lambda kind: kind.kind)
def test_from_spec__builds_every_kinds_example(kind):
    if kind.example is None:
        pytest.skip(f"every {kind.kind} spec names a file")
    name = kind.games[0] if kind.games else "tic_tac_toe"
    game = games.make(name)
    assert agents.find_kind(kind.example)[0] is kind
    assert agents.from_spec(game, kind.example).name.startswith(kind.kind)


def test_find_kind__takes_the_longest_kind():
    assert agents.find_kind("greedy:path")[0].kind == "greedy:path"
    assert agents.find_kind(" az:pretrained:8 ")[0].kind == "az:pretrained"
    assert agents.find_kind("az:runs/x:8") == (agents.find_kind("az")[0], "runs/x:8")
    assert agents.find_kind("greedyy") is None


def test_agent_kind_spec__is_the_kind_then_its_strength_or_the_games_default():
    def parse(game, spec, argument):
        raise NotImplementedError

    recorded = {"connect_four": 32}.get  # as a shipped agent.json records its simulations
    searched = agents.AgentKind(
        "deep", "deep:<depth>", "Deep", "", parse, strength=agents.Strength("depth", 1, 4, recorded)
    )
    assert searched.spec(7) == "deep:7" and searched.spec(1) == "deep:1"
    assert searched.spec() == "deep:4" and searched.spec(game="othello") == "deep:4"
    assert searched.spec(game="connect_four") == "deep:32"
    assert searched.spec(5, game="connect_four") == "deep:5"
    with pytest.raises(ValueError, match="expected an integer >= 1, got 0"):
        searched.spec(0)
    plain = agents.AgentKind("plain", "plain", "Plain", "", parse)
    assert plain.spec() == "plain" and plain.spec(game="othello") == "plain"
    with pytest.raises(ValueError, match="takes no strength"):
        plain.spec(3)
    assert agents.find_kind("minimax")[0].spec() == "minimax:4"  # Strength("depth", 1, 4)
    assert agents.find_kind("mcts")[0].spec(50) == "mcts:50"
    assert agents.find_kind("greedy:flips")[0].spec() == "greedy:flips"


def test_web_catalogue__lists_the_interactive_kinds_of_each_game():
    with TestClient(create_app(ServerConfig())) as client:
        listed = client.get("/api/games").json()["games"]
    strongest_first = [kind for kind in reversed(agents.kinds()) if kind.interactive]
    for described in listed:
        name = described["name"]
        # A kind limited to settings lists none of a game it plays at none of (az:pretrained
        # where no network ships for the game).
        expected = [
            kind
            for kind in strongest_first
            if kind.plays(name) and (kind.only_settings is None or kind.only_settings(name))
        ]
        assert [a["spec"] for a in described["agents"]] == [k.kind for k in expected]
        for agent, kind in zip(described["agents"], expected, strict=True):
            assert agent["label"] == kind.label
            if kind.strength is None:
                assert agent["strength"] is None
            else:
                assert agent["strength"]["default"] == kind.strength.default_for(name)


def test_web_catalogue__the_shipped_networks_default_is_their_agent_json():
    shipped = next(k for k in agents.kinds() if k.kind == "az:pretrained")
    for name in games.available():
        if pretrained.shipped(name):
            recorded = pretrained.recorded_simulations(name)
            assert shipped.strength.default_for(name) == recorded
            assert served_spec(ServerConfig(), "az:pretrained", None, game=name) == (
                f"az:pretrained:{recorded}"
            )


@pytest.mark.parametrize(
    "module, flag",
    [
        ("alphazero_jax.cli.evaluate", "agents"),
        ("experiments.play", "agent"),
        ("alphazero_jax.cli.judge.agents", "agents"),
    ],
)
def test_entry_points__flag_help_is_the_generated_help(module, flag):
    # One process per entry point: their flags would clash in one.
    script = (
        f"import importlib; from absl import flags; importlib.import_module({module!r}); "
        f"print(flags.FLAGS[{flag!r}].help)"
    )
    printed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert printed.strip().endswith(agents.spec_help())


def test_register__an_agent_kind_of_one_s_own_is_built_from_its_spec_and_listed():
    def first_legal(game):
        def act_fn(params, key, states):
            del params, key
            legal = jax.vmap(game.legal_action_mask)(states)
            return jnp.argmax(legal, axis=-1).astype(jnp.int32)

        return Agent(name="first", act_fn=act_fn)

    kind = agents.AgentKind(
        kind="first",
        grammar="first",
        label="First legal move",
        description="the first legal move, always.",
        parse=agents.registry.no_argument(first_legal),
    )
    agents.register(kind)
    assert agents.kinds()[-1] is kind and "first" in agents.specs()
    game = games.make("tic_tac_toe")
    agent = agents.from_spec(game, "first")
    states = games.replay_batch(game, [[0]])
    assert int(agent.act_fn(None, jax.random.key(0), states)[0]) == 1  # square 0 is taken
    with pytest.raises(ValueError, match="The agent kind name 'first' is taken by"):
        agents.register(dataclasses.replace(kind, parse=agents.registry.no_argument(first_legal)))
