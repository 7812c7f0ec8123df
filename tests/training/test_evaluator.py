"""Evaluation inside training: Elo records, plot and JSON in the run directory, gating,
and an exact resume of all of it; config errors for the new sections."""

import json
import os
import signal

import jax
import ml_collections
import numpy as np
import pytest

from alphazero_jax import agents, checkpoints, configs, games, networks, runs
from alphazero_jax.agents import pretrained
from alphazero_jax.evaluation import arena, gating
from alphazero_jax.evaluation.arena import Record
from alphazero_jax.training import evaluator, run_evaluation, train


def _config(num_iterations, rule="score"):
    config = configs.get_config("tic_tac_toe", "smoke")
    config.num_iterations = num_iterations
    # The raw policy (simulations=0) keeps the evaluation matches quick to compile.
    config.evaluation.update(every=2, games=8, opponents=("random",), num_past=1, simulations=0)
    config.gating.update(rule=rule, threshold=0.55, games=8)
    return config


def _elo(workdir):
    with open(os.path.join(workdir, "elo.json")) as file:
        return json.load(file)


@pytest.mark.long
def test_train_evaluation__writes_elo_history_plot_and_resumes_exactly(tmp_path):
    straight_dir, resumed_dir = str(tmp_path / "straight"), str(tmp_path / "resumed")
    straight = train.train_and_evaluate(_config(4), straight_dir)
    train.train_and_evaluate(_config(2), resumed_dir)
    resumed = train.train_and_evaluate(_config(4), resumed_dir)

    elo = _elo(straight_dir)
    assert [r["iteration"] for r in elo["history"]] == [2, 4]
    assert elo["baselines"] == {"random": 0.0}
    second = elo["history"][1]
    assert set(second["scores"]) == {"random", "iteration 2"}
    assert all(np.isfinite([r["elo"], r["elo_stderr"]]).all() for r in elo["history"])
    assert "accepted" in second and 0 <= second["gating_score"] <= 1
    with open(os.path.join(straight_dir, "elo.png"), "rb") as file:
        assert file.read(8) == b"\x89PNG\r\n\x1a\n"

    # Gating and the pool of earlier networks survive the restart: same games, same state.
    resumed_elo = _elo(resumed_dir)
    for a, b in zip(elo["history"], resumed_elo["history"], strict=True):
        assert a["scores"] == b["scores"] and a["elo"] == pytest.approx(b["elo"])
        assert a["accepted"] == b["accepted"]
    for a, b in zip(jax.tree.leaves(straight), jax.tree.leaves(resumed), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.slow
@pytest.mark.long
def test_train_evaluation__a_stop_inside_an_evaluation_saves_and_resumes_exactly(
    tmp_path, monkeypatch
):
    # Ctrl-C arrives during the first evaluation's second match (the time limit takes the
    # same way out): the evaluation is dropped, the run saves and stops, and on resume it
    # evaluates that iteration first, exactly as the uninterrupted run did.
    config = _config(4)
    config.evaluation.opponents = ("random", "greedy")
    straight_dir, stopped_dir = str(tmp_path / "straight"), str(tmp_path / "stopped")
    straight = train.train_and_evaluate(config, straight_dir)

    real_play, plays = arena.play, []

    def play_then_interrupt(*args, **kwargs):
        plays.append(args[1].name)
        if len(plays) == 2:
            signal.raise_signal(signal.SIGINT)
        return real_play(*args, **kwargs)

    monkeypatch.setattr(arena, "play", play_then_interrupt)
    train.train_and_evaluate(config, stopped_dir)
    monkeypatch.undo()
    assert len(plays) == 2  # random vs greedy, then the network's first match: no more
    manager = runs.checkpoint_manager(stopped_dir)
    assert checkpoints.latest_step(manager) == 2
    assert checkpoints.restore_metadata(manager)["evaluation"]["history"] == []
    manager.close()
    assert not os.path.exists(os.path.join(stopped_dir, "elo.json"))  # nothing recorded

    resumed = train.train_and_evaluate(config, stopped_dir)
    for a, b in zip(_elo(straight_dir)["history"], _elo(stopped_dir)["history"], strict=True):
        assert a["iteration"] == b["iteration"] and a["scores"] == b["scores"]
        assert a["elo"] == pytest.approx(b["elo"]) and a["accepted"] == b["accepted"]
    for a, b in zip(jax.tree.leaves(straight), jax.tree.leaves(resumed), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _tiny_evaluator(*, num_games: int):
    """A Tic-Tac-Toe evaluator of a tiny raw-policy network against greedy (and random)."""
    game = games.make("tic_tac_toe")
    apply_fn, variables = networks.make_network(game, channels=8, blocks=1, value_hidden=8)
    made = evaluator.make_evaluator(
        game,
        apply_fn,
        {"policy": "puct"},
        num_simulations=0,
        baselines=[agents.from_spec(game, s) for s in gating.opponent_specs(["greedy"])],
        num_games=num_games,
    )
    return made, variables


def test_evaluator__rates_baselines_and_a_network_against_them():
    made, variables = _tiny_evaluator(num_games=8)
    assert [agent.name for agent in made.baselines] == ["random", "greedy"]  # anchor first
    ratings = evaluator.rate_baselines(made, jax.random.key(0))
    assert ratings["random"] == 0.0 and ratings["greedy"] > 0
    rated = evaluator.rate_network(
        made, variables, name="net", ratings=ratings, key=jax.random.key(1)
    )
    assert [r.opponent for r in rated.results] == ["random", "greedy"]
    assert rated.rating.name == "net" and np.isfinite(rated.rating.rating)
    assert all(r.total.num_games == 8 for r in rated.results)


def test_evaluator__holds_its_matches_and_each_compiles_once_per_run():
    made, variables = _tiny_evaluator(num_games=4)
    ratings = {"random": 0.0, "greedy": 100.0}
    evaluator.rate_network(made, variables, name="net 0", ratings=ratings, key=jax.random.key(0))
    evaluator.rate_network(
        made,
        variables,
        name="net 1",
        ratings={**ratings, "net 0": 50.0},
        past=[("net 0", variables)],
        key=jax.random.key(0),
    )
    evaluator.gate(
        made, variables, variables, rule="score", threshold=0.5, num_games=4, key=jax.random.key(1)
    )
    assert [match.run._cache_size() for match in made.baseline_matches] == [1, 1]
    assert made.network_match.run._cache_size() == 1  # the earlier network and gating


@pytest.mark.parametrize(
    ("record", "rule", "threshold", "expected"),
    [
        (Record(13, 0, 10), "win_ratio", 1.3, True),  # 13 >= 1.3 x 10
        (Record(12, 1, 10), "win_ratio", 1.3, False),
        (Record(0, 20, 0), "win_ratio", 1.3, False),  # no win, no progress
        (Record(11, 0, 9), "score", 0.55, True),  # 11/20 = 0.55
        (Record(10, 1, 9), "score", 0.55, False),  # 10.5/20 = 0.525
    ],
)
def test_gating__rules_by_hand(record, rule, threshold, expected):
    assert gating.passes(record, rule=rule, threshold=threshold) is expected


def test_gating__each_rule_has_its_own_default_threshold():
    assert gating.gating_threshold("win_ratio", 0) == 1.3
    assert gating.gating_threshold("score", 0) == 0.55
    assert gating.gating_threshold("win_ratio", 2.0) == 2.0  # given: kept
    assert gating.gating_threshold("score", 0.6) == 0.6
    with pytest.raises(ValueError, match=r"expects a threshold in \[1.0, inf\].*got 0.55"):
        gating.gating_threshold("win_ratio", 0.55)


def test_run_evaluation__a_gated_run_starts_with_its_first_network_as_the_best(tmp_path):
    """A run's evaluation with gating on (in make test: the long tests train with it) takes
    the rule's own threshold for 0, holds the first network as the one to beat, and refuses
    a threshold the rule cannot use."""
    variables = {"params": {"w": np.arange(3.0)}}
    settings = {"every": 1, "num_past": 0, "seed": 0}
    gated = run_evaluation.RunEvaluation(
        None, str(tmp_path), variables, gating=("score", 0.0, 8), **settings
    )
    assert gated.gating and np.array_equal(gated.best["params"]["w"], np.arange(3.0))
    ungated = run_evaluation.RunEvaluation(
        None, str(tmp_path), variables, gating=("none", 0.0, 0), **settings
    )
    assert not ungated.gating and ungated.best is None
    with pytest.raises(ValueError, match=r"gating rule 'score' .* got 0.3"):
        run_evaluation.RunEvaluation(
            None, str(tmp_path), variables, gating=("score", 0.3, 8), **settings
        )


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"evaluation.games": 7}, "config.evaluation.games must be even"),
        ({"gating.games": 3}, "config.gating.games must be even"),
        ({"evaluation.opponents": ("random", "minimax:x")}, "config.evaluation.opponents"),
        ({"evaluation.every": 0}, "needs evaluations"),
        ({"gating.rule": "sometimes"}, "config.gating.rule must be one of"),
        ({"gating.rule": "win_ratio"}, "loses more than it wins"),  # _config's 0.55
        ({"gating.rule": "score", "gating.threshold": 0.45}, "loses more than it wins"),
        ({"gating.rule": "score", "gating.threshold": 1.5}, "no candidate can pass"),
    ],
)
def test_train_evaluation__bad_settings_fail_before_training(tmp_path, overrides, message):
    config = _config(2)
    for key, value in overrides.items():
        section, name = key.split(".")
        config[section][name] = value
    with pytest.raises(ValueError, match=message):
        train.train_and_evaluate(config, str(tmp_path / "run"))
    assert not (tmp_path / "run").exists()


def test_train_evaluation__old_configs_get_evaluation_off(tmp_path):
    config = configs.get_config("tic_tac_toe", "smoke").to_dict()
    del config["evaluation"], config["gating"]
    components = train.build(ml_collections.ConfigDict(config))
    assert components.evaluator is None


def test_learning_proof__goals_by_game_and_board_size():
    from alphazero_jax.evaluation import learning_proof as measures

    goals = measures.BASELINE_GOALS
    # The full-size agents' goals: 90% and 60% against minimax:3 and :4 at
    # Othello 8x8, 75% against minimax:2 at Quoridor 9x9.
    eight = measures.goals_for(games.make("othello", size=8))
    assert (eight["minimax:3"], eight["minimax:4"]) == (0.90, 0.60)
    assert measures.goals_for(games.make("othello", size=6))["minimax:2"] == 0.60
    # Another size is held to the nearest listed one: 10x10 Othello to 8x8's goals.
    assert measures.goals_for(games.make("othello", size=10)) == goals["othello"][8]
    nine = games.make("quoridor", size=9, walls=10)
    assert measures.goals_for(nine, ["greedy:path", "minimax:2"]) == {
        "greedy:path": 0.90,
        "minimax:2": 0.75,
    }
    with pytest.raises(ValueError, match=r"expected opponents among .*got \['greedy:flips'\]"):
        measures.goals_for(nine, ["random", "greedy:flips"])
    # A game with no goals of its own: the generic baselines, or the opponents named, reported.
    ttt = games.make("tic_tac_toe")
    assert measures.goals_for(ttt) == {"random": None, "greedy": None, "mcts:32": None}
    assert measures.goals_for(ttt, ["mcts:128"]) == {"mcts:128": None}


def test_learning_proof__optimal_moves_judges_only_tic_tac_toe():
    from alphazero_jax.evaluation import learning_proof

    run = pretrained.restore(str(pretrained.directory() / "othello-size6-legal_plane1"))
    with pytest.raises(ValueError, match="expected a tic_tac_toe run; got one of othello"):
        learning_proof.optimal_moves(run, [0], jax.random.key(0))


@pytest.mark.long
def test_train__a_time_limit_stops_with_a_checkpoint_and_a_final_evaluation(
    tmp_path, monkeypatch, capsys
):
    """A run on a budget (``time_limit_minutes``, ``evaluation.final``): stopped by its time
    limit after iteration 3, it saves that iteration, evaluates it although no evaluation was
    due (every 2) and the limit is past, and its progress lines said the time left."""
    import types

    from alphazero_jax.training import session

    clock = [0.0]  # train's clock: 25 s an iteration
    monkeypatch.setattr(train, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    real_step = session.Session.step

    def step(self):
        clock[0] += 25.0
        return real_step(self)

    monkeypatch.setattr(session.Session, "step", step)
    config = _config(100, rule="none")
    config.evaluation.num_past = 0
    config.update(time_limit_minutes=1.0, checkpoint_every_minutes=100.0)
    config.evaluation.final = True
    workdir = str(tmp_path / "run")
    train.train_and_evaluate(config, workdir)
    assert [r["iteration"] for r in _elo(workdir)["history"]] == [2, 3]
    manager = runs.checkpoint_manager(workdir)
    assert checkpoints.latest_step(manager) == 3
    manager.close()
    err = capsys.readouterr().err
    assert "3/100" in err and "left of the time limit" in err

    # Without evaluation.final the same stop leaves the last network unjudged.
    config.evaluation.final = False
    clock[0] = 0.0
    other = str(tmp_path / "other")
    train.train_and_evaluate(config, other)
    assert [r["iteration"] for r in _elo(other)["history"]] == [2]


def test_run_evaluation__unevaluated_is_the_final_evaluation_s_test():
    made, variables = _tiny_evaluator(num_games=2)
    evaluation = run_evaluation.RunEvaluation(
        made, "/nonexistent", variables, every=2, num_past=0, gating=("none", 0.0, 2), seed=0
    )
    assert not evaluation.unevaluated(0) and evaluation.unevaluated(3)
    evaluation.history.append({"iteration": 3})
    assert not evaluation.unevaluated(3) and evaluation.unevaluated(4)
    off = run_evaluation.RunEvaluation(
        made, "/nonexistent", variables, every=0, num_past=0, gating=("none", 0.0, 2), seed=0
    )
    assert not off.unevaluated(3)
