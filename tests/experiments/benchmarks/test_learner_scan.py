"""The learner-scan benchmark (the design page's figures on the update inside `lax.scan`)
runs on a tiny network and reports each way of running the update (no timed assertions:
its numbers are for people)."""

import pytest

from experiments.benchmarks import learner_scan


@pytest.mark.slow  # a minute on two busy cores: it compiles five programs
def test_benchmark_learner_scan__reports_every_way_of_running_the_update(capsys):
    times = learner_scan.run(
        channels=4, blocks=1, batch_size=8, updates=2, repeats=1, unrolled=True
    )
    assert list(times) == ["forward", "gradient", "update", "scan", "unrolled"]
    assert all(seconds > 0 for seconds in times.values())
    assert "x the update alone" in capsys.readouterr().out
