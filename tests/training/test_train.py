"""End to end: real training on the ``smoke`` presets, checkpoints, exact resume, Ctrl-C,
and configs that fail before anything compiles."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alphazero_jax import checkpoints, configs
from alphazero_jax.configs import plan, settings
from alphazero_jax.presets import othello as othello_presets
from alphazero_jax.training import train

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _smoke(game="tic_tac_toe", **overrides):
    config = configs.get_config(game, "smoke")
    for dotted, value in overrides.items():
        *path, key = dotted.split(".")
        section = config
        for name in path:
            section = section[name]
        section[key] = value
    return config


def _assert_same_tree(a, b):
    leaves_a, leaves_b = jax.tree.leaves(a), jax.tree.leaves(b)
    assert len(leaves_a) == len(leaves_b)
    for x, y in zip(leaves_a, leaves_b):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"search.num_simulation": 3}, r"unknown key config\.search\.num_simulation"),
        ({"search.num_simulations": 0}, r"config\.search\.num_simulations must be an int >= 1"),
        ({"learner.batch_size": 0}, r"config\.learner\.batch_size must be an int >= 1, got 0"),
        ({"replay.capacity": 8}, r"config\.replay\.capacity=8 must be at least"),
        ({"search.policy": "uct"}, r"config\.search\.policy must be a registered search policy"),
        ({"network.kind": "mlp"}, r"config\.network\.kind must be a registered network kind, one"),
        ({"game.settings": {"rows": 2}}, r"config\.game\.settings: .*rows must be"),
        ({"learner.schedule": "cosine", "learner.warmup_steps": 99}, r"warmup_steps=99"),
        ({"search.discount": 0.0}, r"config\.search\.discount must be a number in \(0, 1\]"),
        ({"opening.handicap_moves": -1}, r"config\.opening\.handicap_moves must be an int >= 0"),
        ({"search.heuristic_weight": 2}, r"config\.search\.heuristic_weight must be a number in"),
        ({"selfplay.root_value_weight": -0.5}, r"config\.selfplay\.root_value_weight must be"),
        ({"budget.kind": "playout_cap", "budget.fast_simulations": 0}, r"config\.budget\.fast"),
        (
            {"budget.kind": "by_ply", "budget.early_slots": 4},
            r"config\.budget: the self-play budget 'by_ply' \(alphazero_jax\.training\.budgets\."
            r"by_ply\) refused: early_slots=4 must be from 1 to below the [24] slots",
        ),
        ({"budget.kind": "uct"}, r"config\.budget\.kind must be a registered self-play budget"),
        ({"opening.kind": "book"}, r"config\.opening\.kind must be a registered opening, one of"),
        ({"learner.mixed_updates": 2}, r"config\.game\.mixed has 0 other boards and"),
        ({"game.mixed": ({"rows": 4, "cols": 4},)}, r"mixed_updates=0: expected both"),
        (
            {"game.mixed": ({"rows": 2},), "learner.mixed_updates": 1},
            r"config\.game\.mixed\[0\]: .*rows must be",
        ),
        (
            {"game.mixed": ({"rows": 4, "cols": 4},), "learner.mixed_updates": 1},
            r"network kind 'resnet' has variables of other shapes .* use network\.kind=",
        ),
    ],
)
def test_train__bad_config_fails_before_building_anything(tmp_path, overrides, message):
    config = _smoke()
    if "search.num_simulation" in overrides:  # a typo: the key does not exist yet
        config.search.num_simulation = overrides.pop("search.num_simulation")
    config = _smoke(**overrides) if overrides else config
    workdir = tmp_path / "run"
    with pytest.raises(ValueError, match=message):
        train.train_and_evaluate(config, str(workdir))
    assert not workdir.exists()


def test_train__old_configs_get_the_settings_they_were_trained_with():
    """A run written before ``search.discount`` existed was trained undiscounted, one
    written before ``search.heuristic_weight`` valued nodes by the network alone, one
    written before self-play's budget and opening were plug points searched every move in
    full from the initial position, and one written before ``selfplay.root_value_weight``
    learnt values from outcomes alone."""
    config = _smoke()
    del config.search["discount"]
    del config.search["heuristic_weight"]
    del config["budget"], config["opening"]
    del config.selfplay["root_value_weight"]
    completed = settings.complete(config)
    assert completed.search.discount == 1.0
    assert completed.search.heuristic_weight == 0.0
    assert completed.budget.kind == "full" and completed.opening.kind == "none"
    assert completed.selfplay.root_value_weight == 0.0
    assert settings.complete(_smoke(**{"search.discount": 0.9})).search.discount == 0.9


@pytest.mark.parametrize(
    ("old", "budget", "opening"),
    [
        ({}, {"kind": "full"}, {"kind": "none"}),
        (
            {"full_search_probability": 0.25, "fast_simulations": 16, "handicap_moves": 3},
            {"kind": "playout_cap", "full_search_probability": 0.25, "fast_simulations": 16},
            {"kind": "handicap", "handicap_moves": 3},
        ),
        (
            {"full_search_probability": 1.0, "fast_simulations": 0, "random_opening_plies": 2},
            {"kind": "full"},
            {"kind": "random", "random_plies": 2},
        ),
        (
            {"early_slots": 16, "early_simulations": 64, "handicap_moves": 0},
            {"kind": "by_ply", "early_slots": 16, "early_simulations": 64},
            {"kind": "none"},
        ),
    ],
)
def test_complete__a_config_of_self_play_keys_gets_the_budget_and_opening_they_chose(
    old, budget, opening
):
    """A config written when ``selfplay`` held the playout cap, the budget by ply, the
    handicap and random openings is read as the budget and opening those keys chose."""
    config = _smoke()
    del config["budget"], config["opening"]
    config.selfplay.update(old)
    completed = settings.complete(config)
    assert not set(old) & set(completed.selfplay)
    assert {k: completed.budget[k] for k in budget} == budget
    assert {k: completed.opening[k] for k in opening} == opening


def test_complete__an_old_config_that_chose_two_openings_is_refused_in_one_line():
    config = _smoke()
    del config["budget"], config["opening"]
    config.selfplay.update(handicap_moves=2, random_opening_plies=2)
    with pytest.raises(settings.ConfigError, match="choose handicap and random at once"):
        settings.complete(config)


@pytest.mark.slow
@pytest.mark.long
def test_train__othello_smoke_with_gavriilidis_2019_opponents(tmp_path):
    """6x6 Othello (a pass action, 8 symmetries) trains, and evaluates against random,
    greedy:flips and minimax:2."""
    config = _smoke("othello", num_iterations=2, **{"evaluation.every": 2, "evaluation.games": 2})
    state = train.train_and_evaluate(config, str(tmp_path))
    assert int(state.iteration) == 2
    with open(tmp_path / "elo.json") as file:
        text = file.read()
    assert all(name in text for name in othello_presets.OPPONENTS)


def test_train__batches_must_divide_over_devices():
    config = _smoke(**{"selfplay.batch_size": 6})
    with pytest.raises(ValueError, match=r"config\.selfplay\.batch_size=6 does not divide"):
        plan.read(config, num_devices=4)


def test_train__iteration_compiles_once():
    """Self-play, the update and the end of the learner's half each trace once."""
    components = train.build(_smoke())
    state = components.initial_state
    for _ in range(3):
        state, _ = components.selfplay_fn(state)
        state, metrics = components.learn_fn(state)
    jax.block_until_ready(state)
    selfplay = components.selfplay_fn.__wrapped__  # the jitted half (its faults named)
    compiled = (selfplay, components.update_fn, components.end_fn)
    assert [fn._cache_size() for fn in compiled] == [1, 1, 1]
    assert int(state.iteration) == 3 and int(state.num_positions) >= 3 * 4 * 5
    assert np.isfinite(float(metrics["loss"]))


def _scanned_updates(components, num_updates):
    """The learner's half as one program: its updates in a rolled ``lax.scan``."""

    def learn(learner_state, buffer, key_data, num_positions):
        def step(state, index):
            return components.update_fn(state, buffer, key_data, index, num_positions)

        return jax.lax.scan(step, learner_state, jnp.arange(num_updates))

    return jax.jit(learn)


def test_train__host_updates_compute_what_a_scan_of_them_computes():
    """The K updates called from the host give the learner state and mean metrics of the
    same K updates run inside one ``lax.scan``; the key and iteration advance once."""
    config = _smoke(**{"learner.updates_per_iteration": 3})
    components = train.build(config)
    played, _ = components.selfplay_fn(components.initial_state)
    key, iteration = np.asarray(played.key), int(played.iteration)
    scanned, metrics = _scanned_updates(components, 3)(
        played.learner, played.replay, played.key, played.num_positions
    )
    jax.block_until_ready(scanned)
    learned, means = components.learn_fn(played)
    leaves = zip(jax.tree.leaves(scanned), jax.tree.leaves(learned.learner), strict=True)
    for x, y in leaves:
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-6)
    for name, values in metrics.items():
        np.testing.assert_allclose(float(means[name]), np.mean(values), rtol=1e-5, atol=1e-6)
    assert int(learned.iteration) == iteration + 1 and int(learned.learner.step) == 3
    assert not np.array_equal(np.asarray(learned.key), key)


def _computations(hlo: str) -> dict[str, str]:
    """An HLO module's computations (``name {`` ... ``}`` at the margin), name -> text."""
    blocks = re.findall(r"^(?:ENTRY )?([\w.\-]+) \{\n(.*?)^\}", hlo, flags=re.M | re.S)
    return dict(blocks)


_CALLED = re.compile(r"\b(?:to_apply|body|condition|calls|branch_computations)=\{?([\w.\-, ]+)")


def _loops_with_convolutions(hlo: str) -> list[str]:
    """The bodies of an HLO module's while loops that compute a convolution, directly or in
    a computation they call."""
    computations = _computations(hlo)

    def convolves(name: str, seen: set[str]) -> bool:
        seen.add(name)
        text = computations[name]
        called = {c.strip() for group in _CALLED.findall(text) for c in group.split(",")}
        return " convolution(" in text or any(convolves(c, seen) for c in called - seen)

    bodies = re.findall(r" while\(.*?body=([\w.\-]+)", hlo)
    assert bodies or " while(" not in hlo, "a while loop whose body was not found"
    return [body for body in bodies if convolves(body, set())]


def test_train__no_gradient_step_runs_inside_a_rolled_loop():
    """XLA's CPU backend runs a convolution's gradient ~10x slower inside a rolled loop body
    (docs/design.md, "The loop"), so the learner's program is one update with no loop around
    it; the same check finds the convolutions in a ``lax.scan`` of updates (so it can
    fail)."""
    components = train.build(_smoke())
    state = components.initial_state
    args = (state.learner, state.replay, state.key, 0, state.num_positions)
    update_hlo = components.update_fn.lower(*args).as_text(dialect="hlo")
    assert " convolution(" in update_hlo and _loops_with_convolutions(update_hlo) == []
    scan_args = (*args[:3], state.num_positions)
    scan_hlo = _scanned_updates(components, 2).lower(*scan_args).as_text(dialect="hlo")
    assert _loops_with_convolutions(scan_hlo) != []


@pytest.mark.long
def test_train__every_record_says_where_its_time_went(tmp_path):
    config = _smoke(num_iterations=2, **{"evaluation.every": 1, "evaluation.games": 2})
    config.evaluation.opponents = ("random",)
    config.checkpoint_every_minutes = 1e-6  # a checkpoint after every iteration
    train.train_and_evaluate(config, str(tmp_path))
    records = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    for record in records:
        assert all(record[f"time/{name}"] >= 0.0 for name in train.TIME_KEYS), record
        assert record["time/selfplay"] > 0 and record["time/learner"] > 0
    # Record 1 is written before the first save and the evaluation at iteration 1, so
    # record 2 holds their time; the evaluation at iteration 2 comes after the last record.
    assert records[0]["time/checkpoint"] == 0.0 < records[1]["time/checkpoint"]
    assert records[1]["time/evaluation"] > 0.0
    manager = checkpoints.make_manager(str(tmp_path / "checkpoints"), max_to_keep=3)
    history = checkpoints.restore_metadata(manager)["evaluation"]["history"]
    assert [r["iteration"] for r in history] == [1, 2]  # step 2 saved again after it


def test_train__resumed_run_matches_uninterrupted_run(tmp_path):
    straight = train.train_and_evaluate(_smoke(num_iterations=4), str(tmp_path / "a"))
    train.train_and_evaluate(_smoke(num_iterations=2), str(tmp_path / "b"))
    resumed = train.train_and_evaluate(_smoke(num_iterations=4), str(tmp_path / "b"))
    _assert_same_tree(straight, resumed)
    assert int(resumed.iteration) == 4
    for name in ("config.json", "metrics.jsonl", "tensorboard"):
        assert (tmp_path / "b" / name).exists(), name
    lines = (tmp_path / "b" / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line)["iteration"] for line in lines] == [1, 2, 3, 4]
    manager = checkpoints.make_manager(str(tmp_path / "b" / "checkpoints"), max_to_keep=3)
    assert checkpoints.latest_step(manager) == 4
    assert len(checkpoints.restore_metadata(manager)["history"]) == 4


@pytest.fixture(scope="module")
def trained_once(tmp_path_factory):
    """A smoke run trained for one iteration; a test copies it (``_copy``) to change it."""
    workdir = tmp_path_factory.mktemp("trained_once") / "run"
    train.train_and_evaluate(_smoke(num_iterations=1), str(workdir))
    return workdir


def _copy(run, tmp_path) -> str:
    """A copy of the run ``run`` in ``tmp_path / "run"``: as if trained there."""
    shutil.copytree(run, tmp_path / "run")
    return str(tmp_path / "run")


def test_train__refuses_a_workdir_of_another_game_or_network(tmp_path, trained_once):
    workdir = _copy(trained_once, tmp_path)
    with pytest.raises(ValueError, match=r"trained with network.channels=8, .* asks for .*=16"):
        train.train_and_evaluate(_smoke(**{"network.channels": 16}), workdir)
    with pytest.raises(ValueError, match=r"trained with game.name='tic_tac_toe'"):
        train.train_and_evaluate(_smoke("connect_four"), workdir)


@pytest.mark.parametrize(
    "override, key",
    [
        ({"replay.capacity": 256}, "replay.capacity=512"),  # also the checkpoint's shape
        ({"search.num_simulations": 8}, "search.num_simulations=4"),
        ({"learner.learning_rate": 0.1}, "learner.learning_rate="),
        ({"seed": 7}, "seed=0"),
        ({"learner.schedule": "cosine", "num_iterations": 1}, "learner.schedule='constant'"),
    ],
)
def test_train__refuses_to_resume_a_run_with_settings_that_change_what_it_computes(
    tmp_path, trained_once, override, key
):
    workdir = _copy(trained_once, tmp_path)
    before = (tmp_path / "run" / "config.json").read_text()
    with pytest.raises(ValueError, match=f"trained with {re.escape(key)}.*would not continue"):
        train.train_and_evaluate(_smoke(**{"num_iterations": 2, **override}), workdir)
    assert (tmp_path / "run" / "config.json").read_text() == before  # nothing touched


def test_train__a_cosine_run_keeps_its_length_and_any_run_may_change_how_it_is_watched(
    tmp_path,
):
    cosine = {"learner.schedule": "cosine", "learner.warmup_steps": 0}
    workdir = str(tmp_path / "run")
    train.train_and_evaluate(_smoke(num_iterations=2, **cosine), workdir)
    with pytest.raises(ValueError, match=r"trained with num_iterations=2, .* asks for .*=4"):
        train.train_and_evaluate(_smoke(num_iterations=4, **cosine), workdir)
    watched = {"log_every": 2, "max_to_keep": 1, "checkpoint_every_minutes": 1.0}
    train.train_and_evaluate(_smoke(num_iterations=2, **cosine, **watched), workdir)


@pytest.mark.long
@pytest.mark.slow
def test_train__ctrl_c_saves_a_checkpoint_and_exits_cleanly(tmp_path):
    workdir = tmp_path / "run"
    command = [
        sys.executable,
        "-m",
        "experiments.train",
        "--config=tic_tac_toe:smoke",
        f"--workdir={workdir}",
        "--config.num_iterations=100000",
        "--host_devices=2",
    ]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    metrics = workdir / "metrics.jsonl"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and process.poll() is None:
        if metrics.exists() and len(metrics.read_text().splitlines()) >= 2:
            break
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    output = process.communicate(timeout=120)[0].decode()
    assert process.returncode == 0, output
    assert "saving a checkpoint and stopping" in output
    logged = len(metrics.read_text().splitlines())
    manager = checkpoints.make_manager(str(workdir / "checkpoints"), max_to_keep=3)
    assert checkpoints.latest_step(manager) == logged >= 2


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--config.num_iterations=0", "config.num_iterations must be an int >= 1, got 0."),
        ("--config.serch.policy=puct", "override names no key of the config: 'serch'"),
        ("--config=connect_four:bogus", "Unknown preset 'bogus'"),
        ("--config.search.num_simulations=many", "invalid literal for int()"),
    ],
)
def test_train_entry_point__a_config_error_is_one_line_and_status_2(tmp_path, flag, message):
    command = [
        sys.executable,
        "-m",
        "experiments.train",
        "--config=tic_tac_toe:smoke",
        f"--workdir={tmp_path / 'run'}",
        flag,
    ]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and message in errors[0], done.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.long
def test_train_entry_point__evaluation_every_0_alone_turns_evaluation_off(tmp_path):
    # The Connect Four presets judge perfect play at each evaluation; every=0 turns it off too.
    workdir = tmp_path / "run"
    command = [
        sys.executable,
        "-m",
        "experiments.train",
        "--config=connect_four:smoke",
        f"--workdir={workdir}",
        "--config.evaluation.perfect_play_positions=10",
        "--config.evaluation.every=0",
        "--config.num_iterations=1",
        "--host_devices=1",
    ]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (workdir / "checkpoints" / "1").is_dir() and not (workdir / "elo.json").exists()


def test_train__self_play_options_train(tmp_path):
    """bfloat16 inference, handicap moves, root-value targets and playout-cap
    randomisation (each tested on its own elsewhere) compile and train together; one run,
    to spend one compile."""
    overrides = {
        "selfplay.inference_dtype": "bfloat16",
        "opening.kind": "handicap",
        "opening.handicap_moves": 2,
        "selfplay.root_value_weight": 0.5,
        "budget.kind": "playout_cap",
        "budget.full_search_probability": 0.5,
        "budget.fast_simulations": 2,
    }
    state = train.train_and_evaluate(_smoke(num_iterations=1, **overrides), str(tmp_path))
    assert int(state.iteration) == 1 and int(state.num_positions) > 0


def test_train__a_replay_window_reaches_the_learner():
    """With ``replay.window_start`` the updates sample the newest positions only: from the
    same state, a window of 1 position trains another network than the whole memory, and
    ``window_start=0`` is the old uniform draw."""
    whole = train.build(_smoke())
    played, _ = whole.selfplay_fn(whole.initial_state)
    assert int(played.num_positions) > 1

    def learned(components):
        state = jax.tree.map(jnp.copy, played)  # learn_fn consumes its input
        return jax.tree.leaves(components.learn_fn(state)[0].learner.variables)

    uniform, again = learned(whole), learned(train.build(_smoke(**{"replay.window_start": 0})))
    newest = learned(train.build(_smoke(**{"replay.window_start": 1})))
    assert all(np.array_equal(x, y) for x, y in zip(uniform, again, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(uniform, newest, strict=True))


def test_train_entry_point__a_run_with_no_readable_checkpoint_is_one_line_and_status_1(
    tmp_path, trained_once
):
    """Every file of the run's only checkpoint overwritten: one line says which checkpoint,
    why, and what to do; nothing is moved or written."""
    workdir = tmp_path / "run"
    _copy(trained_once, tmp_path)
    damaged = sorted(p for p in (workdir / "checkpoints").rglob("*") if p.is_file())
    for path in damaged:
        path.write_text("garbage")
    command = [
        sys.executable,
        "-m",
        "experiments.train",
        "--config=tic_tac_toe:smoke",
        f"--workdir={workdir}",
        "--host_devices=1",
    ]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, done.stderr
    assert f"{workdir}/checkpoints/1 cannot be read" in errors[0]
    assert "another --workdir" in errors[0]
    assert sorted(p for p in (workdir / "checkpoints").rglob("*") if p.is_file()) == damaged


def test_check_workdir__a_run_written_before_keys_were_added_may_resume(tmp_path):
    """A run's config.json without the keys added since (tuples among their defaults, which
    JSON writes as lists) is the same run as its completed config."""
    config = settings.complete(_smoke())
    written = json.loads(json.dumps(config.to_dict()))
    for key, setting in settings.leaves():
        if setting.added_later:
            *sections, name = key.split(".")
            node = written
            for section in sections:
                node = node[section]
            del node[name]
    (tmp_path / "config.json").write_text(json.dumps(written))
    plan.check_workdir(str(tmp_path), config)  # no ConfigError
    config.search.num_simulations += 1
    with pytest.raises(ValueError, match=r"trained with search\.num_simulations=4"):
        plan.check_workdir(str(tmp_path), config)
