"""The training plots: Elo against training time, mistake rates per set, and runs compared on
curves of mistake rates against training time."""

import os

import pytest

from alphazero_jax.training import plots

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _assert_png(path):
    with open(path, "rb") as file:
        assert file.read(8) == PNG_SIGNATURE
    assert os.path.getsize(path) > 1000
    assert not os.path.exists(str(path) + ".tmp")


def _history(count, with_opponents):
    records = [
        {"iteration": 10 * k, "seconds": 90.0 * k, "elo": 50.0 * k, "elo_stderr": 30.0}
        for k in range(count)
    ]
    for record in records if with_opponents else []:
        record["opponents"] = {"random": 0.0, "minimax:2": 400.0}
    return records


@pytest.mark.parametrize("count", [1, 5])
@pytest.mark.parametrize("with_opponents", [False, True])
def test_plot_elo_history__writes_a_png(tmp_path, count, with_opponents):
    path = tmp_path / "elo.png"
    plots.plot_elo_history(_history(count, with_opponents), str(path))
    _assert_png(path)


def test_plot_elo_history__rejects_no_records(tmp_path):
    with pytest.raises(ValueError, match="records is empty"):
        plots.plot_elo_history([], str(tmp_path / "elo.png"))


def test_plot_elo_history__names_missing_keys(tmp_path):
    with pytest.raises(ValueError, match="elo_stderr"):
        plots.plot_elo_history([{"iteration": 0, "seconds": 0.0, "elo": 0.0}], str(tmp_path / "x"))


def test_plot_mistake_rates__rejects_records_without_results(tmp_path):
    with pytest.raises(ValueError, match="no record has 'perfect_play'"):
        from alphazero_jax.training import plots

        plots.plot_mistake_rates([{"iteration": 1}], str(tmp_path / "x.png"))


def _record(seconds, rate, name="Test_L2_R2", title="Middle-Medium"):
    result = {
        "set": name,
        "title": title,
        "positions": 100,
        "mistakes": round(100 * rate),
        "mistake_rate": rate,
        "interval": [max(rate - 0.05, 0.0), rate + 0.05],
    }
    return {"iteration": int(seconds // 10), "seconds": seconds, "perfect_play": {name: result}}


def test_plot_mistake_curves__one_panel_per_set_one_line_per_run(tmp_path):
    runs = {
        "puct": [_record(600, 0.30), _record(60, 0.45), _record(1200, 0.20)],
        "gumbel": [_record(60, 0.40), _record(600, 0.25)],
    }
    runs["gumbel"][1]["perfect_play"].update(
        _record(600, 0.10, "Random_Play", "Random-Play")["perfect_play"]
    )
    path = tmp_path / "curves.png"
    figure = plots.plot_mistake_curves(runs, str(path), title="PUCT against Gumbel")
    assert path.stat().st_size > 0 and not (tmp_path / "curves.png.tmp").exists()
    middle, random_play = figure.axes
    assert [line.get_label() for line in middle.get_lines()] == ["puct", "gumbel"]
    puct = middle.get_lines()[0]
    assert list(puct.get_xdata()) == [1.0, 10.0, 20.0]  # minutes, sorted by time
    assert list(puct.get_ydata()) == pytest.approx([45.0, 30.0, 20.0])
    assert [line.get_label() for line in random_play.get_lines()] == ["gumbel"]
    assert "Random-Play" in random_play.get_title()


def test_plot_mistake_curves__a_run_without_timed_results_is_refused():
    with pytest.raises(ValueError, match=r"'seconds' and 'perfect_play' .* none for \['b'\]"):
        plots.plot_mistake_curves(
            {"a": [_record(60, 0.3)], "b": [{"iteration": 3, "perfect_play": {}}]}, None
        )
