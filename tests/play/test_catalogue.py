"""What the server offers (``play/catalogue.py``, ``play/server_config.py``): the spec it plays
for each agent and strength, and the config's checks."""

from __future__ import annotations

import pytest

from alphazero_jax.play.catalogue import served_spec
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
