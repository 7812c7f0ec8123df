"""What the server offers (``play/catalogue.py``, ``play/server_config.py``): the spec it plays
for each agent and strength, and the config's checks."""

from __future__ import annotations

import re

import pytest

from alphazero_jax import games
from alphazero_jax.games import tic_tac_toe
from alphazero_jax.play import contract
from alphazero_jax.play.catalogue import catalogue, new_session_model, served_spec
from alphazero_jax.play.server_config import ServerConfig


@pytest.mark.parametrize(
    ("spec", "simulations", "served"),
    [
        ("az:pretrained", None, "az:pretrained:32"),
        ("az:pretrained", 0, "az:pretrained:0"),
        ("az:pretrained:64", None, "az:pretrained:64"),
        ("mcts", 50, "mcts:50"),
        ("minimax:3", None, "minimax:3"),
        (" greedy ", None, "greedy"),
        ("greedy:path", None, "greedy:path"),
    ],
)
def test_served_specs(spec, simulations, served):
    assert served_spec(ServerConfig(), spec, simulations) == served


def test_config_is_checked():
    with pytest.raises(ValueError, match="ascending"):
        ServerConfig(batch_sizes=(4, 1))
    with pytest.raises(ValueError, match="max_sessions >= 1"):
        ServerConfig(max_sessions=0)


@pytest.fixture
def own_game(monkeypatch):
    """A researcher's game (Tic-Tac-Toe on a square board under its own name), with its
    record, registered for the test alone (conftest's fixture unregisters it after)."""

    def make(*, size: int = 4):
        return tic_tac_toe.make(rows=size, cols=size, connect=3)._replace(name="square_cells")

    record = games.GameRecord(
        limits={"size": (4, 5)}, notation="cells, e.g. b2", move_pattern="[a-eA-E][1-5]"
    )
    games.register("square_cells", make, record=record)
    return make


def test_a_registered_games_record_is_what_the_catalogue_and_the_schema_say(own_game):
    assert games.record("square_cells").title == "Square Cells"  # from its name
    listed = {g["name"]: g for g in catalogue(ServerConfig(agent_kinds=("random",)))["games"]}
    shown = listed["square_cells"]
    assert (shown["title"], shown["notation"], shown["encodings"]) == (
        "Square Cells",
        "cells, e.g. b2",
        [],
    )
    assert shown["settings"] == {"size": {"default": 4, "min": 4, "max": 5, "step": 1}}
    schema = new_session_model(ServerConfig(agent_kinds=("random",))).model_json_schema()
    (branch,) = [b for b in schema["oneOf"] if b["properties"]["game"] == {"const": "square_cells"}]
    moves = re.compile(branch["properties"]["moves"]["pattern"])
    assert moves.fullmatch("b2, c3 e5") and not moves.fullmatch("b2c3")
    assert contract.is_move_text(" e5 ")


def test_register__takes_limits_as_before_but_not_twice(own_game):
    games.register("square_cells_too", own_game, limits={"size": (4, 4)})
    assert games.settings_of("square_cells_too")["size"]["max"] == 4
    assert games.record("square_cells_too").notation == ""  # any game satisfies the defaults
    with pytest.raises(ValueError, match="limits once, as limits= or in its record"):
        games.register(
            "square_cells_three",
            own_game,
            limits={"size": (4, 4)},
            record=games.GameRecord(limits={"size": (4, 4)}),
        )
