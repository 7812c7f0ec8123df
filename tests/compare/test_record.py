"""A comparison's record: written, read back, rendered into the report's own tables; a bad
record refused in one line."""

import json

import pytest

from alphazero_jax.compare import record, report
from tests.compare.test_report import PLAN, POINTS


def _made() -> report.Report:
    minutes, iteration = report.final_points(POINTS)
    comparisons = [
        report.compare_at(PLAN, POINTS, None, "minutes", minutes, 0.0),
        report.compare_at(PLAN, POINTS, None, "iteration", iteration, 1, reach=1),
    ]
    return report.Report(report.curves(PLAN, POINTS, None), comparisons, frozenset())


ABOUT = {"title": "An idea", "question": "Does it help?", "source": "Wu 2019",
         "machine": "2 CPU cores", "kept": {"idea": True}}  # fmt: skip


def test_record__round_trips_and_renders_the_reports_tables(tmp_path):
    made = _made()
    written = record.from_report(str(tmp_path), PLAN, POINTS, made, ABOUT)
    path = tmp_path / record.RECORD_FILE
    record.write(str(path), written)
    read = record.read(str(path))
    assert read == record.plain(written)  # numpy numbers as JSON ones, infinity as null
    assert read["kept"] == {"base": None, "idea": True} and read["game"] == "connect_four"
    assert record.render_tables(read) == report.tables(PLAN, made)
    assert record.render_report(read) == report.render(PLAN, made)
    judged = [(j["unit"], j["iteration"], j["value"], j["items"]) for j in read["judgements"]]
    assert judged[:2] == [("base/seed0", 1, 0.5, 4), ("base/seed0", 2, 0.25, 4)]
    assert read["judgements"][0]["checkpoint"] == "runs/base/seed0/checkpoints/1"
    (effect,) = record.effects(read)
    assert effect["arm"] == "idea" and effect["effect"].startswith("-50.0 points [")


TRANSCRIBED = {
    "format": 1, "title": "t", "question": "q", "source": None, "game": "connect_four",
    "machine": "m", "kept": {"a": False},
    "plan": {"arms": [{"name": "a", "config": "connect_four:cpu", "overrides": []}],
             "seeds": [0]},
    "transcribed": {"from": "docs/results/ablations.md", "commit": "abc1234"},
    "tables": [{"caption": "At 60 minutes", "columns": ["arm", "x"], "rows": [["a", "1%"]]}],
    "effects": [],
}  # fmt: skip


def test_record__a_transcribed_one_renders_its_tables_as_printed():
    record.validate(TRANSCRIBED)
    assert record.render_tables(TRANSCRIBED) == [
        "At 60 minutes\n\n| arm | x |\n| --- | --- |\n| a | 1% |"
    ]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"format": 2}, "bad.json.format: Input should be 1, found 2"),
        ({"title": 3}, "bad.json.title: Input should be a valid string, found 3"),
        ({"kept": {"b": True}}, "bad.json.kept: expected an arm of the plan (a)"),
        ({"judgements": []}, "transcribed record has no fields ['judgements'] (a field of"),
        (
            {"tables": [{"caption": "", "columns": ["a"], "rows": [["1", "2"]]}]},
            "bad.json.tables[0].rows[0]: expected a list of 1 cells",
        ),
        ({"transcribed": {"from": "x"}}, "bad.json.transcribed.commit: Field required"),
        ({"shown": {"table": 1}}, "bad.json.shown.table: expected an index of its 1 tables"),
        (
            {"shown": {"table": 0, "columns": [2]}},
            "bad.json.shown.columns: expected indices below 2",
        ),
        ({"shown": {"table": 0, "rows": [0, 1]}}, "bad.json.shown.rows: expected indices below 1"),
        ({"shown": {"table": 0, "headers": ["x"]}}, "bad.json.shown.headers: expected 2 strings"),
        (
            {"effects": [{"idea": "i", "arm": "a", "measure": "m", "effect": "e", "kept": 1}]},
            "bad.json.effects[0].kept: Input should be a valid boolean, found 1",
        ),
    ],
)
def test_record__a_bad_one_is_one_line(tmp_path, change, said):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**TRANSCRIBED, **change}))
    with pytest.raises(record.RecordError) as raised:
        record.read(str(path))
    assert said in str(raised.value) and "\n" not in str(raised.value)


def test_record__not_json_is_one_line(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("{")
    with pytest.raises(record.RecordError, match="expected a comparison record"):
        record.read(str(path))


def test_results_pages__a_changed_record_makes_its_page_stale():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "docs" / "_ext" / "results.py"
    spec = importlib.util.spec_from_file_location("results", path)
    results = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(results)
    page = "# A\n\n<!-- from records/a.json -->\n<!-- end -->\n"
    once = results.render_page(page, {"a.json": TRANSCRIBED})
    assert "| a | 1% |" in once and results.render_page(once, {"a.json": TRANSCRIBED}) == once
    changed = {**TRANSCRIBED, "tables": [{**TRANSCRIBED["tables"][0], "rows": [["a", "2%"]]}]}
    assert results.render_page(once, {"a.json": changed}) != once  # what --check finds stale
    effect = {"idea": "an idea", "arm": "a", "measure": "Middle-Medium", "effect": "-1.0 [-2, 0]"}
    summary = results.render_page("<!-- from records/ -->\n<!-- end -->",
                                  {"a.json": {**TRANSCRIBED, "effects": [effect]}})  # fmt: skip
    assert "Connect Four:\n\n| idea | source | effect at equal time [95%] |" in summary
    assert "| [an idea](ablations.md#t) | - | Middle-Medium: -1.0 [-2, 0] | 1 | m | no |" in summary


def _results():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "docs" / "_ext" / "results.py"
    spec = importlib.util.spec_from_file_location("results", path)
    results = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(results)
    return results


def test_record__shows_the_columns_rows_and_headers_it_names():
    table = {
        "caption": "",
        "columns": ["arm", "x", "y"],
        "rows": [["a", "1%", "2%"], ["b", "3%", "4%"]],
    }
    shown = {
        **TRANSCRIBED,
        "tables": [table],
        "shown": {"table": 0, "columns": [0, 2], "rows": [1], "headers": ["arm", "y at 60"]},
    }
    record.validate(shown)
    assert record.shown_table(shown) == "| arm | y at 60 |\n| --- | --- |\n| b | 4% |"
    assert record.shown_table({**shown, "shown": {"table": 0}}).count("\n") == 3  # all of it


def test_results_pages__an_arm_is_written_once_and_then_as_its_changes():
    results = _results()
    base = {"name": "base", "config": "connect_four:cpu", "overrides": ["--config.a=1"]}
    more = {
        "name": "more",
        "config": "connect_four:cpu",
        "overrides": ["--config.a=1", "--config.b=2"],
    }
    first = {**TRANSCRIBED, "plan": {"arms": [base], "seeds": [0, 1]}, "kept": {}}
    second = {**TRANSCRIBED, "plan": {"arms": [base, more], "seeds": [0]}, "kept": {}}
    written = results.Written()
    line = results.arms_line(first, written)
    assert line == "Arms on `connect_four:cpu`: `base`: `a=1`. Seeds 0, 1."
    line = results.arms_line(second, written)  # the preset and `base` said above
    assert line == "Arms: `base`; `more`: `base` with `b=2`."  # seed 0 alone unsaid
