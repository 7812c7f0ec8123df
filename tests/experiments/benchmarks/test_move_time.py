"""The move-time benchmark (the Connect Four card's time a move at 64 and 128 simulations)
times every agent it is given on one position, with or without an ``analyse_fn`` (no timed
assertions: its numbers are for people)."""

from experiments.benchmarks import move_time


def test_benchmark_move_time__reports_each_agent_against_the_first(capsys):
    medians = move_time.run(
        game_name="tic_tac_toe", position="b2", specs=["mcts:4", "random"], repeats=2
    )
    assert list(medians) == ["mcts:4", "random"]
    assert all(seconds > 0 for seconds in medians.values())
    out = capsys.readouterr().out
    assert "1.00x mcts:4" in out and "random" in out
