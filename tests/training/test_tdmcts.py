"""TD-MCTS training (Swayne (2020)): exact resume of a stopped run, the agent spec built from
a run's table, and a trained table beating its untrained self at Tic-Tac-Toe."""

import os

import jax
import numpy as np
import pytest

from alphazero_jax import agents, games
from alphazero_jax.evaluation import arena
from alphazero_jax.training import run_logging
from alphazero_jax.training import tdmcts as training

TTT = games.make("tic_tac_toe")


def _config(**overrides):
    config = training.default_config()
    config.update(
        num_simulations=10,
        opponent="self",
        tournament_opponent="random",
        episodes=200,
        tournament_every=100,
        tournament_games=10,
        batch_size=50,
        capacity=2**14,
    )
    config.update(overrides)
    return config


def _history(workdir):
    records = run_logging.read_metrics(workdir)
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    workdir = str(tmp_path_factory.mktemp("tdmcts") / "run")
    state = training.train(_config(), workdir)
    return workdir, state


@pytest.mark.long
def test_training__resumes_exactly(trained, tmp_path):
    workdir, state = trained
    # Stopped after 100 episodes (its checkpoint), then restarted to 200.
    interrupted = str(tmp_path / "interrupted")
    training.train(_config(episodes=100), interrupted)
    resumed = training.train(_config(), interrupted)
    jax.tree.map(np.testing.assert_array_equal, resumed, state)
    assert _history(interrupted) == _history(workdir)
    assert [r["episodes"] for r in _history(workdir)] == [0, 100, 200]
    assert os.path.exists(os.path.join(workdir, training.PLOT_FILE))
    with pytest.raises(ValueError, match="other settings"):
        training.train(_config(gamma=0.5), interrupted)


# The trained table's tests share its 200 episodes of training (about 16 s of two cores):
# make test-long runs them.
@pytest.mark.long
def test_spec__builds_a_trained_agent_from_its_run(trained):
    workdir, state = trained
    trained_agent = agents.from_spec(TTT, f"tdmcts:10:{workdir}")
    jax.tree.map(np.testing.assert_array_equal, trained_agent.params, state["table"])
    with pytest.raises(ValueError, match="played tic_tac_toe, not connect_four"):
        agents.from_spec(games.make("connect_four"), f"tdmcts:10:{workdir}")


@pytest.mark.long
def test_trained_table__beats_its_untrained_self(trained):
    workdir, _ = trained
    # 200 games of self-play with 10 simulations a move fill the table; then trained and
    # untrained play with 3 simulations, 200 games, each side first in half. Measured:
    # +144 =8 -48 (score 0.74); untrained against itself would score 0.5.
    result = arena.play(
        TTT,
        agents.from_spec(TTT, f"tdmcts:3:{workdir}"),
        agents.from_spec(TTT, "tdmcts:3"),
        num_games=200,
        key=jax.random.key(0),
    )
    wins, _, losses = result.total
    assert result.score >= 0.62, result.summary()
    assert wins >= 2 * losses, result.summary()
