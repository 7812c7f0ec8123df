"""Comparing training runs on curves: mistake rates against training time, per set."""

import pytest

from alphazero_jax.training import plots


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
