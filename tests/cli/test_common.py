"""The entry points' shared command-line readers: ``with_search``, a network's play-time
``config.search`` settings from ``KEY=VALUE`` items (``alphazero-judge baselines
--search``), set in a copy of its config, each value of the type of its own; a bad item
ends the program in one line. And the learning proofs' old ``--simulations=0``, and a long
error's one line. (Reading flags, old names and ``--help``: test_vocabulary.py.)"""

import pathlib

import pytest

from alphazero_jax.agents import pretrained
from alphazero_jax.cli import common
from alphazero_jax.search import mctx_search

AGENTS = pathlib.Path(__file__).resolve().parents[2] / "alphazero_jax" / "data" / "agents"
QUORIDOR = str(AGENTS / "quoridor-size5-walls3-distance_planes1")  # Gumbel, before sigma's keys
CONNECT_FOUR = str(AGENTS / "connect_four-rows6-cols7-connect4")  # PUCT with play_c_puct 1.0


def test_with_search__sets_typed_values_in_a_copy_of_the_completed_config():
    run = pretrained.restore(QUORIDOR)
    assert "play_value_scale" not in run.config.search  # exported before the setting existed
    played = common.with_search(run, ["play_value_scale=0.2", "num_simulations=8"])
    assert played.config.search.play_value_scale == 0.2
    assert played.config.search.num_simulations == 8
    assert isinstance(played.config.search.num_simulations, int)
    assert "play_value_scale" not in run.config.search and run.config.search.num_simulations == 32
    # What the judge's search is built from: Gumbel's scale is the play-time one.
    assert mctx_search.search_settings(played.config.search, play=True)["value_scale"] == 0.2
    assert common.with_search(run, []) is run


@pytest.mark.parametrize(
    ("path", "item", "message"),
    [
        (QUORIDOR, "play_value_scal=0.2", "--search: expected KEY=VALUE with a key among"),
        (QUORIDOR, "play_value_scale", "--search: expected KEY=VALUE with a key among"),
        (
            QUORIDOR,
            "play_value_scale=steep",
            "--search: play_value_scale takes values of type float; got 'steep'.",
        ),
        (QUORIDOR, "num_simulations=8.5", "--search: num_simulations takes values of type int"),
        (
            CONNECT_FOUR,
            "c_puct=2",
            "--search: c_puct is replaced in play by this network's play_c_puct=1.0",
        ),
    ],
)
def test_with_search__a_bad_item_ends_in_one_line(path, item, message, capsys):
    with pytest.raises(SystemExit) as stopped:
        common.with_search(pretrained.restore(path), [item])
    assert stopped.value.code == 2
    said = capsys.readouterr().err.strip()
    assert said.startswith("error: ") and message in said and "\n" not in said, said


def test_search_values__reads_a_plug_in_s_bool_as_a_word_not_as_a_non_empty_string(capsys):
    own = {"rescale": True}  # no setting of the package's searches is a bool; a plug-in's may be
    assert common.search_values("rescale", ["false", "0", "True"], own, "--search") == [
        False,
        False,
        True,
    ]
    with pytest.raises(SystemExit):
        common.search_values("rescale", ["no"], own, "--search")
    assert "--search: rescale takes values of type bool; got 'no'." in capsys.readouterr().err


def test_read_old_zero__reads_0_as_the_runs_own_search_with_one_notice(capsys):
    assert common.read_old_zero([-1, 128]) == [-1, 128]
    assert capsys.readouterr().err == ""
    assert common.read_old_zero([0, 128, 0]) == [-1, 128, -1]
    [said] = capsys.readouterr().err.splitlines()
    assert said.startswith("notice: --simulations=0 for the run's own search is now ")


def test_one_line__keeps_the_first_and_the_last_line_of_a_long_message():
    error = ValueError("Traceback (most recent call last):\n  File 'x.py'\n\nNameError: y\n")
    assert common.one_line(error) == "Traceback (most recent call last): NameError: y"
    assert common.one_line("bad value") == "bad value"
