"""The training benchmark runs on a smoke config and reports every mode (no timed
assertions: its numbers are for people)."""

import pytest

from alphazero_jax import configs
from experiments.benchmarks import training


def test_benchmark_training__reports_each_mode_with_rates(capsys):
    rows = training.run(
        config=configs.get_config("tic_tac_toe", "smoke"), inference_dtypes=("float32",), rounds=1
    )
    assert [row["mode"] for row in rows] == ["self-play", "loop"]
    for row in rows:
        assert row["positions_per_s"] > 0 and row["flops_per_s"] > 0
        assert row["evaluations_per_s"] * row["seconds"] == pytest.approx(
            4 * 9 * 5
        )  # slots x moves x (simulations + 1), the smoke preset searching every move
    assert "vs self-play" in capsys.readouterr().out
