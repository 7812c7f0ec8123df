"""Round robins, their cross table and files, the ladder's plot, and the evaluate entry point."""

import csv
import json
import os
import subprocess
import sys

import jax
import pytest

from alphazero_jax import agents, games
from alphazero_jax.evaluation import elo, tournament
from alphazero_jax.evaluation.arena import MatchResult, Record
from alphazero_jax.training import plots

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SPECS = ("random", "greedy", "minimax:2")


@pytest.fixture(scope="module")
def played():
    """A 20-games-per-pair round robin on Tic-Tac-Toe, with the on_result calls it made."""
    game = games.make("tic_tac_toe")
    players = [agents.from_spec(game, spec) for spec in SPECS]
    calls = []
    results = tournament.round_robin(
        game,
        players,
        num_games=20,
        key=jax.random.key(0),
        batch_size=10,
        on_result=lambda result, seconds: calls.append((result, seconds)),
    )
    return game, players, results, calls


def _match(player, opponent, first, second, mean_length=7.0):
    total = Record(*(a + b for a, b in zip(first, second)))
    return MatchResult(player, opponent, total, Record(*first), Record(*second), mean_length)


# Hand-made matches: A scores (7 + 1/2) / 10 = 75% against B; C scores 1/2 against A.
HAND_RESULTS = [
    _match("A", "B", first=(4, 1, 0), second=(3, 0, 2)),
    _match("C", "A", first=(0, 2, 0), second=(0, 0, 0)),
]


def _ladder(results):
    return elo.fit_ladder([r.pair_result() for r in results], anchor="random")


# --- round_robin ----------------------------------------------------------------------------


def test_round_robin__plays_every_pair_once(played):
    _, _, results, _ = played
    pairs = [(r.player, r.opponent) for r in results]
    assert pairs == [("random", "greedy"), ("random", "minimax:2"), ("greedy", "minimax:2")]


def test_round_robin__counts_every_game_of_each_colour(played):
    _, _, results, _ = played
    for result in results:
        assert result.total.num_games == 20
        assert result.as_first.num_games == result.as_second.num_games == 10
        assert result.total == Record(*(a + b for a, b in zip(result.as_first, result.as_second)))


def test_round_robin__calls_on_result_after_each_match(played):
    _, _, results, calls = played
    assert [result for result, _ in calls] == results
    assert all(seconds > 0 for _, seconds in calls)


def test_round_robin__same_key_replays_the_same_games(played):
    game, players, results, _ = played
    again = tournament.round_robin(
        game, players, num_games=20, key=jax.random.key(0), batch_size=10
    )
    assert again == results


def test_round_robin__rejects_duplicate_names(played):
    game, players, _, _ = played
    with pytest.raises(ValueError, match="distinct names"):
        tournament.round_robin(game, [players[0], players[0]], num_games=2, key=jax.random.key(0))


# --- results_table --------------------------------------------------------------------------


def test_results_table__contains_every_name(played):
    _, players, results, _ = played
    table = tournament.results_table([p.name for p in players], results)
    for spec in SPECS:
        assert spec in table


def test_results_table__shows_hand_computed_scores_from_both_sides():
    lines = tournament.results_table(["A", "B", "C"], HAND_RESULTS).splitlines()
    row_a, row_b, row_c = lines[1:4]
    # A: 75% vs B (7/1/2), 50% vs C (0/2/0); total (7.5 + 1) / 12.
    assert row_a.split()[:9] == ["1", "A", "-", "75.0%", "7/1/2", "50.0%", "0/2/0", "70.8%"]
    assert row_b.split() == ["2", "B", "25.0%", "2/1/7", "-", ".", "25.0%"]
    assert row_c.split() == ["3", "C", "50.0%", "0/2/0", ".", "-", "50.0%"]


# --- write_results --------------------------------------------------------------------------


def test_write_results__writes_one_csv_row_per_match_and_the_ladder(tmp_path):
    results = [*HAND_RESULTS, _match("random", "A", first=(1, 0, 4), second=(0, 0, 5))]
    ladder = _ladder(results)
    info = {"game": "tic_tac_toe", "settings": {}, "games_per_pair": 10, "seed": 3}
    tournament.write_results(str(tmp_path / "out"), results, ladder, settings=info)
    with open(tmp_path / "out" / "results.csv") as file:
        rows = list(csv.DictReader(file))
    assert [(row["player"], row["opponent"]) for row in rows] == [
        ("A", "B"),
        ("C", "A"),
        ("random", "A"),
    ]
    first = rows[0]
    assert (first["wins"], first["draws"], first["losses"]) == ("7", "1", "2")
    assert (first["first_wins"], first["first_draws"], first["first_losses"]) == ("4", "1", "0")
    assert (first["second_wins"], first["second_draws"], first["second_losses"]) == ("3", "0", "2")
    assert float(first["score"]) == 0.75
    assert float(first["ci_low"]) < 0.75 < float(first["ci_high"])
    assert float(first["mean_length"]) == 7.0
    with open(tmp_path / "out" / "ladder.json") as file:
        document = json.load(file)
    assert {k: document[k] for k in info} == info
    assert [r["name"] for r in document["ratings"]] == [r.name for r in ladder.ratings]
    assert document["ratings"][0].keys() == {"name", "rating", "stderr", "games"}
    assert not [name for name in os.listdir(tmp_path / "out") if name.endswith(".tmp")]


# --- the ladder's plot (the other plots: tests/training/test_plots.py) --------------------


def _assert_png(path):
    with open(path, "rb") as file:
        assert file.read(8) == PNG_SIGNATURE
    assert os.path.getsize(path) > 1000
    assert not os.path.exists(str(path) + ".tmp")


def test_plot_ladder__writes_a_png(played, tmp_path):
    _, _, results, _ = played
    path = tmp_path / "plots" / "ladder.png"
    plots.plot_ladder(_ladder(results), str(path), title="tic_tac_toe")
    _assert_png(path)


# --- the entry point ------------------------------------------------------------------------


def _evaluate(*args):
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    command = [sys.executable, "-m", "alphazero_jax.cli.evaluate", "--game=tic_tac_toe", *args]
    return subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


def test_evaluate__writes_results_ladder_and_plot(tmp_path):
    done = _evaluate("--agents=random,greedy", "--games=10", f"--output={tmp_path}")
    assert done.returncode == 0, done.stderr
    assert "[1/1] random vs greedy" in done.stdout
    assert "rank" in done.stdout and str(tmp_path) in done.stdout
    with open(tmp_path / "results.csv") as file:
        assert len(list(csv.DictReader(file))) == 1
    with open(tmp_path / "ladder.json") as file:
        assert {r["name"] for r in json.load(file)["ratings"]} == {"random", "greedy"}
    _assert_png(tmp_path / "ladder.png")


def test_evaluate__bad_spec_exits_with_the_valid_specs(tmp_path):
    done = _evaluate("--agents=random,minimax:x", f"--output={tmp_path}")
    assert done.returncode != 0
    assert "minimax:x" in done.stderr and "Valid specs" in done.stderr
    assert "Traceback" not in done.stderr


def test_evaluate__anchor_not_among_agents_is_reported(tmp_path):
    done = _evaluate("--agents=greedy,minimax:2", f"--output={tmp_path}")
    assert done.returncode != 0
    assert "--anchor='random' is not among the agents" in done.stderr
    assert "Add random to --agents" in done.stderr
    assert "Traceback" not in done.stderr
    assert not os.listdir(tmp_path)
