"""New Connect Four positions drawn by the Random-Play rule and labelled by the solver."""

import pytest

from alphazero_jax.evaluation import perfect_play


def test_validation_labels__new_positions_labelled_and_resumable(tmp_path):
    """Drawn by the Random-Play rule with another seed: none in a shipped set, each kept
    one with a possible mistake, each label the solver's; a second call reuses the file."""
    from alphazero_jax.solvers import benchmark_sets
    from experiments.data import positions

    path = tmp_path / "validation_seed5.labels"
    first = positions.validation_labels(path, seed=5, count=12)
    written = path.read_text()
    assert len(written.splitlines()) == 12
    sets = [p.moves for name in benchmark_sets.SETS for p in benchmark_sets.load(name)]
    shipped = {positions.board_of(moves) for moves in sets}
    assert first.moves and not {positions.board_of(moves) for moves in first.moves} & shipped
    # The same stones by another order are the same board; other stones are not.
    assert positions.board_of("1122") == positions.board_of("2211") != positions.board_of("1221")
    assert first.mistake_possible.all()
    for index, moves in enumerate(first.moves):
        assert perfect_play.label_text(first.outcomes[index]) == positions.label(moves)
    again = positions.validation_labels(path, seed=5, count=12)
    assert again.moves == first.moves and path.read_text() == written
    with pytest.raises(ValueError, match="seed 0 draws Random-Play"):
        positions.validation_labels(tmp_path / "x.labels", seed=0, count=1)
