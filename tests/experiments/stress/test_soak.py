"""The soak test of checkpoints: training runs killed at random moments, a checkpoint write
among them, resume and end where an uninterrupted run does."""

import pytest

from experiments.stress import soak


@pytest.mark.slow
@pytest.mark.long
def test_soak__killed_runs_resume_and_end_where_an_uninterrupted_one_does(tmp_path):
    """The short version of ``python -m experiments.stress.soak``: two SIGKILLs, one of them
    inside a checkpoint write."""
    result = soak.soak(
        str(tmp_path), kills=2, iterations=8, write_share=0.5, seed=1, window_iterations=2
    )
    assert len(result.kills) == 2 and result.lost == []
    assert result.identical
