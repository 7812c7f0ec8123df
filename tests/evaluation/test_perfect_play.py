"""Judging agents against perfect play: the shipped labels, the mistake arithmetic on
hand-made labels, the solver agent, the benchmark entry point and the training metric."""

import json
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alphazero_jax import agents, configs, games
from alphazero_jax.evaluation import perfect_play
from alphazero_jax.solvers import benchmark_sets, pons
from alphazero_jax.solvers import connect_four as solver
from alphazero_jax.training import train
from alphazero_jax.types import Agent
from experiments.data import label_pons

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GAME = games.make("connect_four")

# Three positions from Test_L3_R1 (End-Easy) with made-up labels, to count by hand.
_POSITIONS = [pons.Position("1", 1), pons.Position("2", 0), pons.Position("3", -1)]
_HAND_LINES = ["1 WDL.WDL", "2 DLLLLLD", "3 LLLLLLL"]


def _hand_labels():
    return perfect_play.parse_labels("Test_L3_R1", _POSITIONS, _HAND_LINES)


def test_parse_labels__packs_outcomes_and_best_moves():
    labels = _hand_labels()
    assert labels.moves == ("1", "2", "3")
    assert labels.outcomes[0].tolist() == [1, 0, -1, -2, 1, 0, -1]  # '.': a full column
    assert labels.best.tolist() == [1, 0, -1]
    assert labels.legal[0].tolist() == [True, True, True, False, True, True, True]
    assert labels.take(2).moves == ("1", "2")
    # Position 1 can be lost by a draw, 2 by a loss; in 3 every move loses alike.
    assert labels.mistake_possible.tolist() == [True, True, False]
    kept = labels.where(labels.mistake_possible)
    assert kept.moves == ("1", "2") and kept.outcomes.tolist() == labels.outcomes[:2].tolist()


def test_mistakes__counted_by_hand():
    labels = _hand_labels()
    # Position 1 (best: win): column 0 wins, 1 draws (mistake), 3 is full (mistake).
    # Position 2 (best: draw): column 0 draws, 1 loses (mistake). Position 3: all lose.
    cases = {(0, 0, 0): [0, 0, 0], (1, 1, 5): [1, 1, 0], (3, 6, 2): [1, 0, 0], (4, 0, 7): [0, 0, 1]}
    for actions, expected in cases.items():
        assert perfect_play.mistakes(labels, np.array(actions)).astype(int).tolist() == expected
    # The value head: > 1/3 reads a win, < -1/3 a loss, a draw in between.
    values = np.array([0.5, 0.2, -0.2])
    assert perfect_play.value_correct(labels, values).tolist() == [True, True, False]


def test_set_result__rate_and_wilson_interval_by_hand():
    result = perfect_play.SetResult("Test_L2_R2", positions=10, mistakes=3, value_correct=7)
    assert result.mistake_rate == 0.3 and result.value_accuracy == 0.7
    # Wilson, z = 1.959964 (z^2 = 3.841459): centre (0.3 + 0.192073) / 1.384146 = 0.355504,
    # half-width 1.959964 / 1.384146 * sqrt(0.021 + 0.009604) = 0.247717.
    low, high = result.interval()
    assert low == pytest.approx(0.107787, abs=1e-5) and high == pytest.approx(0.603221, abs=1e-5)
    assert result.as_dict()["title"] == "Middle-Medium"


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["1 WDL"], "expected '<moves> <7 characters"),
        (["1 WDLxWDL"], "expected '<moves> <7 characters"),
        (["44 WWWWWWW"], "44 is not in Test_L3_R1"),
        (["2 WLLLLLL"], "best move of 2 is a win, but Test_L3_R1 scores the position 0, a draw"),
    ],
)
def test_parse_labels__rejects_bad_lines(lines, message):
    with pytest.raises(ValueError, match=message):
        perfect_play.parse_labels("Test_L3_R1", _POSITIONS, lines)


def test_benchmark__hand_made_labels_with_a_leftmost_player():
    def leftmost(params, key, states):
        del params, key
        return jnp.argmax(jax.vmap(GAME.legal_action_mask)(states), axis=-1).astype(jnp.int32)

    labels = _hand_labels()  # "1", "2", "3": every column has room, column 0 is legal

    def values(states):
        return jnp.full(states.terminal.shape, 0.9)  # reads "win" everywhere

    (result,) = perfect_play.benchmark(
        GAME,
        Agent("leftmost", leftmost),
        [labels],
        key=jax.random.key(0),
        value_fn=values,
        batch_size=2,  # two batches, the second padded
    )
    # Column 0: a win where a win is best, a draw where a draw is best, a loss where all
    # lose: no mistakes. The value reads "win": right only in the first position.
    assert (result.positions, result.mistakes, result.value_correct) == (3, 0, 1)


def test_shipped_labels__agree_with_the_published_scores_and_our_solver():
    for set_name in pons.SETS:
        labels = perfect_play.load_labels(set_name)  # checks best outcome == sign(score)
        assert list(labels.moves) == [p.moves for p in pons.load(set_name)]  # all of it
    # The solver recomputes a sample of them (the quick sets; the rest by label_pons --check).
    for set_name in ("Test_L3_R1", "Test_L2_R1", "Test_L2_R2"):
        labels = perfect_play.load_labels(set_name)
        for index in range(0, 1000, 125):
            expected = "".join("WDL."[[1, 0, -1, -2].index(o)] for o in labels.outcomes[index])
            assert label_pons.label(labels.moves[index]) == expected


def test_solver_agent__makes_no_mistakes_and_exact_wins_fastest():
    labels = perfect_play.load_labels("Test_L2_R2").take(20)
    results = perfect_play.benchmark(
        GAME, agents.from_spec(GAME, "solver"), [labels], key=jax.random.key(0)
    )
    assert results[0].mistakes == 0
    exact = agents.from_spec(GAME, "solver:exact")
    states = perfect_play.states_of(GAME, labels.take(8))
    moves = np.asarray(jax.jit(exact.act_fn)(None, jax.random.key(1), states))
    for text, move in zip(labels.moves, moves):
        scores = solver.move_scores(text)
        assert scores[move] == max(s for s in scores if s is not None), text


def test_solver_agent__works_under_vmap_and_on_smaller_boards():
    game = games.make("connect_four", rows=4, cols=5)
    agent = agents.from_spec(game, "solver:exact")
    # X holds columns 1-3 of the bottom row and O the cells above them: X's fastest win
    # is column 4 (index 3) now.
    states = games.replay_batch(game, [game.actions_from_text("112233")] * 4)
    batched = jax.tree.map(lambda x: x.reshape(2, 2, *x.shape[1:]), states)
    moves = jax.jit(jax.vmap(lambda s: agent.act(jax.random.key(0), s)))(batched)
    assert np.asarray(moves).tolist() == [[3, 3], [3, 3]]


@pytest.mark.parametrize(
    ("game", "spec", "message"),
    [
        (GAME, "solver:fast", "expected solver or solver:exact"),
        (games.make("tic_tac_toe"), "solver", "plays Connect Four with four in a row"),
        (games.make("connect_four", connect=3), "solver", "four in a row"),
        (games.make("connect_four", rows=10, cols=10), "solver", "rows=10, cols=10"),
    ],
)
def test_solver_agent__bad_specs_and_games(game, spec, message):
    with pytest.raises(ValueError, match=message):
        agents.from_spec(game, spec)


@pytest.mark.long
def test_benchmark_c4__prints_and_writes_the_table(tmp_path):
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    command = [
        sys.executable,
        "-m",
        "alphazero_jax.cli.judge",
        "agents",
        "--agents=random,solver",
        "--sets=Test_L3_R1,Random_Play",
        "--positions=20",
        f"--output={tmp_path}",
    ]
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "| agent | End-Easy (20) | Random-Play (20) |" in done.stdout
    # Wilson upper bound for 0/20, on both sets.
    assert "| solver | 0.0% [0.0%, 16.1%] | 0.0% [0.0%, 16.1%] |" in done.stdout
    with open(tmp_path / "mistakes.json") as file:
        records = json.load(file)
    assert records["solver"][0]["mistakes"] == 0 and records["random"][0]["positions"] == 20


def _smoke_config(num_iterations):
    config = configs.get_config("connect_four", "smoke")
    config.num_iterations = num_iterations
    config.evaluation.update(
        every=2,
        games=4,
        opponents=("random",),
        num_past=0,
        simulations=0,
        perfect_play_positions=10,
    )
    return config


@pytest.mark.long
def test_training__judges_the_network_against_perfect_play_at_each_evaluation(tmp_path):
    workdir = str(tmp_path / "run")
    train.train_and_evaluate(_smoke_config(2), workdir)
    with open(os.path.join(workdir, "elo.json")) as file:
        (record,) = json.load(file)["history"]
    judged = record["perfect_play"]
    assert list(judged) == ["Test_L3_R1", "Test_L2_R2", "Random_Play"]  # the default sets
    for result in judged.values():
        assert result["positions"] == 10 and 0 <= result["mistakes"] <= 10
        assert 0 <= result["value_accuracy"] <= 1
    with open(os.path.join(workdir, "perfect_play.png"), "rb") as file:
        assert file.read(8) == b"\x89PNG\r\n\x1a\n"

    # Every saved checkpoint of the run, judged afterwards.
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    command = [
        sys.executable,
        "-m",
        "alphazero_jax.cli.judge",
        "checkpoints",
        f"--workdir={workdir}",
        "--sets=Test_L3_R1",
        "--positions=10",
    ]
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with open(os.path.join(workdir, "perfect_play_checkpoints.json")) as file:
        (checkpoint,) = json.load(file)
    assert checkpoint["iteration"] == 2 and checkpoint["seconds"] > 0  # the run's time
    assert os.path.exists(os.path.join(workdir, "perfect_play_checkpoints.png"))

    # Judged runs drawn together (here the same run under two labels).
    output = tmp_path / "compare"
    command[3:] = [
        "curves",
        f"--workdir=a={workdir},{workdir}",
        f"--output={output}",
    ]
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rate = f"{checkpoint['perfect_play']['Test_L3_R1']['mistake_rate']:.1%}"
    minutes = f"{checkpoint['seconds'] / 60:.1f}"
    table = (output / "mistake_curves.md").read_text()
    assert "| run | iteration | minutes | End-Easy |" in table
    assert (
        f"| a | 2 | {minutes} | {rate} |" in table and f"| run | 2 | {minutes} | {rate} |" in table
    )
    assert (output / "mistake_curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("game", "sets", "every", "message"),
    [
        ("tic_tac_toe", ("Test_L3_R1",), 2, "perfect-play sets are 6x7 Connect Four"),
        (
            "connect_four",
            ("Test_L9",),
            2,
            r"perfect_play_sets must be a non-empty list of perfect-play sets from "
            r"\('Test_L3_R1', .*'Random_Play'\), got \('Test_L9',\)",
        ),
    ],
)
def test_training__bad_perfect_play_settings_fail_before_training(
    tmp_path, game, sets, every, message
):

    config = configs.get_config(game, "smoke")
    config.evaluation.update(every=every, perfect_play_positions=10, perfect_play_sets=sets)
    with pytest.raises(ValueError, match=message):
        train.train_and_evaluate(config, str(tmp_path / "run"))
    assert not (tmp_path / "run").exists()


def test_training__evaluation_every_0_turns_perfect_play_off_too():
    config = _smoke_config(2)
    config.evaluation.every = 0
    assert train.build(config).evaluator is None


def test_training__configs_written_before_perfect_play_keep_it_off():
    import ml_collections

    config = _smoke_config(2).to_dict()
    del config["evaluation"]["perfect_play_positions"], config["evaluation"]["perfect_play_sets"]
    components = train.build(ml_collections.ConfigDict(config))
    assert components.evaluator.perfect_play == () and components.evaluator.value_fn is None


def test_mcnemar_p__by_hand():
    assert perfect_play.mcnemar_p(0, 0) == 1.0
    assert perfect_play.mcnemar_p(6, 0) == perfect_play.mcnemar_p(0, 6) == 2 / 64
    # 5 against 1: 2 x (1 + 6) / 64.
    assert perfect_play.mcnemar_p(5, 1) == 14 / 64
    assert perfect_play.mcnemar_p(2, 2) == 1.0  # 2 x 11/16, capped


def test_choose_labels__every_set_by_default_cut_to_the_first_positions_and_unknown_named():
    every = perfect_play.choose_labels()
    assert [one.set_name for one in every] == list(benchmark_sets.SETS)
    (cut,) = perfect_play.choose_labels(["Random_Play"], positions=3)
    assert cut.moves == every[-1].moves[:3]
    with pytest.raises(ValueError, match=r"unknown sets \['Test_L9'\]; expected some of"):
        perfect_play.choose_labels(["Random_Play", "Test_L9"])


def test_curves_table__a_row_per_run_and_checkpoint_in_order_and_blank_for_a_missing_set():
    def record(iteration, rate, seconds=None, set_name="Test_L3_R1"):
        title = benchmark_sets.SETS[set_name]
        judged = {set_name: {"title": title, "mistake_rate": rate}}
        record = {"iteration": iteration, "perfect_play": judged}
        return record if seconds is None else dict(record, seconds=seconds)

    table = perfect_play.curves_table(
        {
            "a": [record(4, 0.25, 120.0), record(2, 0.5, 60.0)],
            "b": [record(2, 0.125, set_name="Random_Play")],
        }
    )
    assert table.splitlines() == [
        "| run | iteration | minutes | End-Easy | Random-Play |",
        "| --- | ---: | ---: | ---: | ---: |",
        "| a | 2 | 1.0 | 50.0% |  |",
        "| a | 4 | 2.0 | 25.0% |  |",
        "| b | 2 | ? |  | 12.5% |",
    ]
