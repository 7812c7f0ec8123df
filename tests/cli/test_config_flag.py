"""``--config``'s help names each game with its presets, read from the registry: every preset
that ``alphazero-train --help`` names exists, and every one that exists is named."""

import os
import re
import subprocess
import sys

from game_names import DEFAULT

from alphazero_jax import configs
from alphazero_jax.cli import config_flag

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _named(help_text: str) -> dict[str, list[str]]:
    """``game -> presets`` as ``presets_help``'s text lists them."""
    return {
        game: presets.split(", ")
        for game, presets in re.findall(r"(\w+): ([\w, ]+?)(?=;|$)", help_text)
    }


def test_presets_help__names_exactly_the_registered_presets_of_every_game():
    named = _named(config_flag.presets_help())
    assert set(named) == set(configs.available())
    for game, presets in named.items():
        assert presets == list(configs.presets(game)), game
        for preset in presets if game in DEFAULT else ():  # pgx's others: test_configs.py
            configs.get_config(game, preset)  # a preset named here builds


def test_presets_help__a_made_up_text_reads_back():
    assert _named("a: default, cpu; b: smoke") == {"a": ["default", "cpu"], "b": ["smoke"]}


def test_train_help__lists_the_presets_of_every_game():
    done = subprocess.run(
        [sys.executable, "-m", "alphazero_jax.cli.train", "--help"],
        cwd=REPO,
        env=dict(os.environ, JAX_PLATFORMS="cpu"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())  # absl wraps the help's lines
    assert config_flag.presets_help() in text
