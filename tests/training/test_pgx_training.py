"""pgx's games train and are judged with no code of their own: each game's generic ``smoke``
preset trains two iterations and its evaluation plays random and greedy by one-ply outcome
(random alone where greedy's one-ply steps of every action would take many minutes; rollout
MCTS in the comparison). Each compiles its rules, search and matches for a minute
or more of 2 cores, so they are ``long``; chess's, shogi's and Go 19x19's compile for many
minutes, so they are ``large`` (``make test-large``)."""

import json
import os
import subprocess
import sys

import pytest
from game_names import marked

from alphazero_jax import configs, games
from alphazero_jax.evaluation import learning_proof
from alphazero_jax.games import pgx_games
from alphazero_jax.training import train

pytest.importorskip("pgx")

NAMES = [pgx_games.PREFIX + spec.env_id for spec in pgx_games.GAMES]


# Greedy steps every action of every position it judges: beyond this many actions (gardner
# chess's 1,225, shogi's 2,187, chess's 4,672, Go 19x19's 362) its games take many minutes
# of two cores, so those games' smoke trainings are judged against random alone.
GREEDY_UP_TO = 200


def _opponents(name):
    return ("random", "greedy") if games.make(name).num_actions <= GREEDY_UP_TO else ("random",)


def _smoke(name):
    config = configs.get_config(name, "smoke")
    config.num_iterations = 2
    # The raw policy (simulations=0) keeps the matches quick to compile; rollout MCTS, whose
    # playouts run to chess's 512-ply cap, is judged in the comparison below.
    config.evaluation.update(
        every=2, games=4, opponents=_opponents(name), num_past=0, simulations=0
    )
    return config


@pytest.mark.parametrize("name", marked(NAMES, default=()))
def test_pgx_game__trains_on_its_generic_preset_and_plays_the_generic_ladder(name, tmp_path):
    config = _smoke(name)
    assert config.selfplay.num_moves == games.make(name).max_num_moves  # every slot finishes
    state = train.train_and_evaluate(config, str(tmp_path))
    assert int(state.iteration) == 2
    with open(os.path.join(tmp_path, "elo.json")) as file:
        elo = json.load(file)
    (judged,) = elo["history"]
    assert set(judged["scores"]) == set(_opponents(name))


def test_generic_ladder__is_the_pgx_games_evaluation():
    for preset in ("cpu", "gpu"):
        config = configs.get_config("pgx_go_9x9", preset)
        assert tuple(config.evaluation.opponents) == learning_proof.GENERIC_BASELINES


@pytest.mark.long
def test_pgx_game__two_arms_compared_on_the_generic_ladder(tmp_path):
    """``alphazero-compare`` on a pgx game: two arms, one seed, judged on the ladder of the
    generic baselines (the first arm's evaluation opponents)."""
    output = tmp_path / "cmp"
    command = [
        sys.executable, "-m", "alphazero_jax.cli.compare", f"--output={output}",
        "--seeds=0", "--iterations=1", "--judges=ladder", "--anchor_games=4",
        "--ladder_games=4", "--anchors=random,greedy,mcts:2",
        "--arm=base=pgx_tic_tac_toe:smoke",
        "--arm=fast=pgx_tic_tac_toe:smoke --config.learner.learning_rate=0.01",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    record = json.loads((output / "record.json").read_text())
    assert {j["unit"].split("/")[0] for j in record["judgements"]} == {"base", "fast"}
    assert json.loads((output / "anchors.json").read_text())
