"""The measured ideas of the literature as settings (docs/training.md, "Ideas from the
literature"), each on a case worked out by hand: random opening plies, the opponent-reply
and score heads and their loss terms, each game's final score, duplicate merging in the
replay memory, forced playouts with policy target pruning, and the rising simulation
budget."""

import json
import math

import jax
import jax.numpy as jnp
import mctx
import ml_collections
import numpy as np
import pytest
import selfplay_parts

from alphazero_jax import configs, games, networks, search
from alphazero_jax.configs import plan, settings
from alphazero_jax.search import forced_playouts
from alphazero_jax.training import losses, openings, replay, run_selfplay, targets, train
from alphazero_jax.training.budgets import by_ply
from alphazero_jax.types import Sample, Trajectory


def _first_free_cell_search(game):
    """A stand-in search that always plays the first legal cell, all its weight there."""

    def search_fn(variables, key, states):
        del variables, key
        legal = jax.vmap(game.legal_action_mask)(states)
        action = jnp.argmax(legal, axis=-1).astype(jnp.int32)
        weights = jax.nn.one_hot(action, game.num_actions)
        return mctx.PolicyOutput(action=action, action_weights=weights, search_tree=None)

    return search_fn


def _first_games(random_plies, score_fn=None):
    game = games.make("tic_tac_toe")
    play = selfplay_parts.build(
        game,
        _first_free_cell_search(game),
        batch_size=64,
        num_moves=9,
        opening="random",
        opening_settings={"random_plies": random_plies},
        score_fn=score_fn,
    )
    return jax.tree.map(np.asarray, jax.jit(play)({}, jax.random.key(0)))


def test_random_opening__random_moves_open_each_game_and_are_not_trained_on():
    """Against a search that always takes the first free cell, a move anywhere else is a
    random one. With the opening ``random`` of ``random_plies=2`` each finished first game
    has an untrained prefix of 0, 1 or 2 positions (all three occur over 64 games), random
    moves only in it, and every position after it trained on; with 0 every position is
    trained on."""
    prefixes = set()
    for plies in (0, 2):
        t = _first_games(plies)
        for slot in range(64):
            if not t.ended[:, slot].any():
                continue
            end = int(np.argmax(t.ended[:, slot]))  # the first game's last position
            valid = t.valid[: end + 1, slot]
            prefix = int(np.argmax(valid))  # the untrained positions before the first valid
            assert valid[prefix:].all(), (slot, valid)
            deviations = [
                ply
                for ply in range(end)
                if np.flatnonzero(
                    t.legal_action_mask[ply, slot] & ~t.legal_action_mask[ply + 1, slot]
                )[0]
                != np.argmax(t.legal_action_mask[ply, slot])
            ]
            assert all(ply < prefix for ply in deviations), (slot, deviations, prefix)
            if plies == 0:
                assert prefix == 0
            else:
                prefixes.add(prefix)
    assert prefixes == {0, 1, 2}


def test_random_opening__plies_must_not_be_negative():
    with pytest.raises(ValueError, match="random_plies must be >= 0, got -1"):
        openings.make("random", games.make("tic_tac_toe"), random_plies=-1)


def test_youngest_slots__by_hand():
    """Plies since the opening: 5, 0, 1, in its opening (3 random plies, 2 played), 6; so
    slot 1 is the youngest, then 2, 0 and 4, and slot 3 ranks last. Ties go to the lower
    index."""
    num_moves = jnp.array([5, 0, 3, 2, 7], jnp.int32)
    opening = jnp.array([0, 0, 2, 3, 1], jnp.int32)
    early, late = by_ply.youngest_slots(num_moves - opening, 2)
    assert early.tolist() == [1, 2] and late.tolist() == [0, 4, 3]
    early, late = by_ply.youngest_slots(jnp.array([4, 2, 2, 4]), 3)
    assert early.tolist() == [1, 2, 0] and late.tolist() == [3]


def _marked_search(game, mark):
    """A stand-in search whose weights are ``mark`` on every legal move (so that a target
    tells which search made it, and a move sampled from them is uniformly random)."""

    def search_fn(variables, key, states):
        del variables
        legal = jax.vmap(game.legal_action_mask)(states)
        action = search.uniform_choice(key, legal)
        weights = jnp.where(legal, mark, 0.0)
        return mctx.PolicyOutput(action=action, action_weights=weights, search_tree=None)

    return search_fn


def test_budget_by_ply__each_move_the_youngest_games_get_the_early_search():
    """Tic-Tac-Toe, 8 slots of random games (so they end and restart at different times),
    3 of them searched by the early search each move: at every move exactly 3 targets
    carry its mark, and no slot it searched has played more plies than any it did not (a
    recorded position's plies are its filled cells: 9 less its legal moves)."""
    game = games.make("tic_tac_toe")
    play = selfplay_parts.build(
        game,
        {8: _marked_search(game, 0.5), 16: _marked_search(game, 0.25)},
        batch_size=8,
        num_moves=27,
        num_sampling_moves=9,  # every move sampled from the even weights: a random game
        budget="by_ply",
        budget_settings={"early_slots": 3, "early_simulations": 16},
    )
    t = jax.tree.map(np.asarray, jax.jit(play)({}, jax.random.key(0)))
    plies = 9 - t.legal_action_mask.sum(-1)
    early = t.policy.max(-1) == 0.25
    assert (early | (t.policy.max(-1) == 0.5)).all()
    assert (early.sum(1) == 3).all()
    for move in range(27):
        assert plies[move][early[move]].max() <= plies[move][~early[move]].min(), move
    assert len(set(plies[:, 0])) > 1 and len({tuple(p) for p in plies}) > 9  # games differ


def test_budget_by_ply__refuses_a_bad_number_of_slots():
    fn = _first_free_cell_search(games.make("tic_tac_toe"))
    for slots in (0, 4):
        expected = f"early_slots={slots} must be from 1 to below the 4 slots"
        with pytest.raises(ValueError, match=expected):
            by_ply.make_by_ply(lambda n: fn, num_simulations=8, batch_size=4, early_slots=slots)


def test_budget_by_ply__training_builds_both_searches_with_their_simulations(monkeypatch):
    """The smoke preset's self-play with 1 of its 4 slots at 9 simulations: training asks
    for the stage's search and the early one, and plays with them."""
    config = configs.get_config("tic_tac_toe", "smoke")
    config.budget.update(kind="by_ply", early_slots=1, early_simulations=9)
    asked = []
    make_search = search.make_search

    def recording(game, apply_fn, **settings):
        asked.append(settings["num_simulations"])
        return make_search(game, apply_fn, **settings)

    monkeypatch.setattr(search, "make_search", recording)
    components = train.build(config)
    # the search checked when the config is read; then the youngest games' and the others'
    assert asked == [config.search.num_simulations, 9, config.search.num_simulations]
    state, metrics = components.selfplay_fn(components.initial_state, None)
    assert int(metrics["positions"]) > 0 and int(state.num_positions) == int(metrics["positions"])
    assert run_selfplay.network_calls_per_move(components.plan) == 0.25 * 10 + 0.75 * (
        config.search.num_simulations + 1
    )


def test_scores__by_hand():
    """Connect Four: X wins in column 0 on the 7th ply, 35 cells empty: 36 / 43. Othello:
    Black's first move leaves 4 black discs and 1 white on 64 cells: 3 / 64. Quoridor: both
    pawns 8 steps from their goals at the start: 0."""
    four = games.make("connect_four")
    state = four.init(jax.random.key(0))
    for action in (0, 1, 0, 1, 0, 1, 0):
        state = four.step(state, jnp.int32(action))
    assert bool(state.terminal)
    assert float(games.score_fn(four)(state)) == pytest.approx(36 / 43)
    othello = games.make("othello")
    state = othello.init(jax.random.key(0))
    first = int(np.argmax(np.asarray(othello.legal_action_mask(state))))
    state = othello.step(state, jnp.int32(first))
    assert float(games.score_fn(othello)(state)) == pytest.approx(3 / 64)
    quoridor = games.make("quoridor")
    assert float(games.score_fn(quoridor)(quoridor.init(jax.random.key(0)))) == 0.0


def test_scores__a_game_whose_record_has_none_is_refused_in_one_line():
    games.register("scoreless", lambda: games.make("tic_tac_toe")._replace(name="scoreless"))
    with pytest.raises(
        ValueError, match="has no score in its record; games with one: connect_four"
    ):
        games.score_fn(games.make("scoreless"))


def test_selfplay__records_each_game_s_score_where_it_ends():
    """The first-free-cell games with Tic-Tac-Toe's score: where a game ends its score has
    the outcome's sign and the size (empty + 1) / 10; nowhere else is one recorded."""
    t = _first_games(0, score_fn=games.score_fn(games.make("tic_tac_toe")))
    np.testing.assert_array_equal(t.score[~t.ended], 0.0)
    np.testing.assert_array_equal(np.sign(t.score[t.ended]), t.outcome[t.ended])
    # Every first game is the same: X on cells 0, 2, 4, 6 wins on the 7th ply, 2 cells left.
    assert t.score[6, 0] == pytest.approx(3 / 10)


def test_final_score_target__is_the_game_s_score_from_each_mover_s_view():
    """One slot, two games: the first ends at move 1 with the first player's score 0.5,
    the second at move 3 with -0.2; players alternate 0, 1, 0, 1."""
    zeros = jnp.zeros((4, 1))
    trajectory = Trajectory(
        observation=jnp.zeros((4, 1, 1, 1, 1)),
        legal_action_mask=jnp.ones((4, 1, 2), bool),
        policy=jnp.zeros((4, 1, 2)),
        player=jnp.array([[0], [1], [0], [1]]),
        ended=jnp.array([[False], [True], [False], [True]]),
        valid=jnp.ones((4, 1), bool),
        value=zeros,
        outcome=zeros,
        score=jnp.array([[0.0], [0.5], [0.0], [-0.2]]),
    )
    np.testing.assert_allclose(targets.final_score(trajectory)[:, 0], [0.5, -0.5, -0.2, 0.2])
    with pytest.raises(ValueError, match="needs each game's score in the trajectory"):
        targets.final_score(trajectory._replace(score=None))


def test_resnet_heads__add_the_reply_and_score_outputs_only_when_asked():
    game = games.make("connect_four")
    observations = jnp.zeros((3, *game.observation_shape))
    plain_fn, plain = networks.make(game, channels=4, blocks=1, value_hidden=4)
    assert plain_fn(plain, observations)[0].aux == {}
    apply_fn, variables = networks.make(
        game, channels=4, blocks=1, value_hidden=4, reply_head=True, score_head=True
    )
    aux = apply_fn(variables, observations)[0].aux
    assert aux["reply"].shape == (3, 7) and aux["score"].shape == (3,)
    assert set(variables["params"]) - set(plain["params"]) == {
        "reply_conv",
        "reply_dense",
        "reply_norm",
        "score_conv",
        "score_dense",
        "score_hidden",
        "score_norm",
    }
    with pytest.raises(ValueError, match="reply_head must be True or False, got 1"):
        networks.make(game, reply_head=1)


def test_reply_and_score_losses__by_hand():
    """Reply: uniform logits over 7 moves, a one-hot reply in the first row (cross entropy
    log 7) and none in the second (0): mean log(7) / 2. Score: predictions 0.5 and 0.5
    against 1 and -0.5: mean of 0.25 and 1."""
    output = networks.NetworkOutput(
        jnp.zeros((2, 7)),
        jnp.zeros(2),
        {"reply": jnp.zeros((2, 7)), "score": jnp.array([0.5, 0.5])},
    )
    batch = Sample(
        jnp.zeros((2, 1, 1, 1)),
        jnp.zeros((2, 7)),
        jnp.zeros(2),
        {
            "reply_policy": jnp.stack([jax.nn.one_hot(3, 7), jnp.zeros(7)]),
            "final_score": jnp.array([1.0, -0.5]),
        },
    )
    assert float(losses.get("reply").fn(output, batch)) == pytest.approx(math.log(7) / 2)
    assert float(losses.get("score").fn(output, batch)) == pytest.approx(0.625)
    assert losses.get("reply").targets == ("reply_policy",)
    assert losses.get("score").outputs == ("score",)


def _buffer_with_duplicates():
    """Four slots: position A (slots 0 and 2) with values 1 and -1 and one-hot policies on
    moves 0 and 1, position B (slot 1) with value 0.5, and slot 3 empty; A's further target
    is 2 and 4."""
    buffer = replay.init(
        capacity=4, observation_shape=(1, 2, 1), num_actions=2, targets={"extra": ()}
    )
    a, b = [[[1.0], [0.0]]], [[[0.0], [1.0]]]
    samples = Sample(
        jnp.asarray([a, b, a]),
        jnp.asarray([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]),
        jnp.asarray([1.0, 0.5, -1.0]),
        {"extra": jnp.asarray([2.0, 0.0, 4.0])},
    )
    return replay.add(buffer, samples)


def test_merge_duplicates__a_position_s_targets_are_averaged_over_its_copies():
    buffer = _buffer_with_duplicates()
    merged = replay.merge_duplicates(buffer)
    np.testing.assert_allclose(merged.value, [0.0, 0.5, 0.0, 0.0])  # slot 3: never drawn
    batch = replay.sample(buffer, jax.random.key(0), batch_size=32, merged=merged)
    is_a = np.asarray(batch.observation[:, 0, 0, 0]) == 1
    assert is_a.any() and (~is_a).any()
    np.testing.assert_allclose(np.asarray(batch.value)[is_a], 0.0)
    np.testing.assert_allclose(np.asarray(batch.policy)[is_a], 0.5)
    np.testing.assert_allclose(np.asarray(batch.targets["extra"])[is_a], 3.0)
    np.testing.assert_allclose(np.asarray(batch.value)[~is_a], 0.5)
    np.testing.assert_allclose(np.asarray(batch.policy)[~is_a], [[0.0, 1.0]] * (~is_a).sum())
    # Within a window of the newest slot only (slot 2), A is its one copy there.
    window = jnp.int32(1)
    newest = replay.merge_duplicates(buffer, window)
    np.testing.assert_allclose(newest.value, [1.0, 0.5, -1.0, 0.0])  # slot 2 alone drawable
    batch = replay.sample(buffer, jax.random.key(0), batch_size=8, window=window, merged=newest)
    np.testing.assert_allclose(np.asarray(batch.value), -1.0)
    # Off: each draw keeps its own slot's targets.
    plain = replay.sample(buffer, jax.random.key(0), batch_size=32)
    assert set(np.asarray(plain.value)[is_a].tolist()) == {1.0, -1.0}


def test_observation_hashes__tell_boards_apart_that_differ_in_one_cell():
    boards = jnp.zeros((3, 6, 7, 2)).at[1, 5, 0, 0].set(1).at[2, 5, 0, 1].set(1)
    hashes = np.asarray(replay.observation_hashes(boards))
    assert len({tuple(h) for h in hashes}) == 3
    np.testing.assert_array_equal(hashes[0], np.asarray(replay.observation_hashes(boards[:1]))[0])


def test_pruned_target__by_hand():
    """N = 16 root visits, c_puct = 1 and a vast c_puct_base: u = sqrt(16) = 4. Children
    visits 10, 4, 1, priors 0.5, 0.25, 0.25, values 0.5, 0, 0. The best's PUCT score is
    0.5 + 4 x 0.5 / 11. Child 1 keeps max(4 - floor(sqrt(2 x 0.25 x 15)), 1) = 2 visits
    (it stays below the best with 1); child 2 keeps at most 1 and is dropped: 10, 2, 0.
    With value 0.6 child 1 would beat the best with fewer visits: it keeps all 4."""
    kwargs = {"c_puct": 1.0, "c_puct_base": 1e12, "forced_k": 2.0}
    visits = jnp.array([[10, 4, 1]])
    prior = jnp.array([[0.5, 0.25, 0.25]])
    node_visits = jnp.array([16])
    target = forced_playouts.pruned_target(
        visits, prior, jnp.array([[0.5, 0.0, 0.0]]), node_visits, **kwargs
    )
    np.testing.assert_allclose(target, [[10 / 12, 2 / 12, 0.0]], rtol=1e-6)
    target = forced_playouts.pruned_target(
        visits, prior, jnp.array([[0.5, 0.6, 0.0]]), node_visits, **kwargs
    )
    np.testing.assert_allclose(target, [[10 / 14, 4 / 14, 0.0]], rtol=1e-6)


def test_forced_child__is_the_valid_child_furthest_below_its_forced_playouts():
    """Visits 10, 0, 1 (11 in all), priors 0.5, 0.25, 0.25: forced sqrt(2 x P x 11) are
    3.3, 2.3, 2.3; children 1 and 2 lack playouts, child 1 the most."""
    visits, prior = jnp.array([10, 0, 1]), jnp.array([0.5, 0.25, 0.25])
    lacking, child = forced_playouts.forced_child(visits, prior, jnp.ones(3, bool), forced_k=2.0)
    assert bool(lacking) and int(child) == 1
    valid = jnp.array([True, False, True])
    _, child = forced_playouts.forced_child(visits, prior, valid, forced_k=2.0)
    assert int(child) == 2
    lacking, _ = forced_playouts.forced_child(
        jnp.array([10, 5, 5]), prior, jnp.ones(3, bool), forced_k=2.0
    )
    assert not bool(lacking)


def test_puct_forced__searches_and_its_target_is_a_distribution_over_legal_moves():
    game = games.make("tic_tac_toe")
    apply_fn, variables = networks.make(game, channels=4, blocks=1, value_hidden=4)
    search_fn = search.make_search(game, apply_fn, policy="puct_forced", num_simulations=16)
    states = jax.vmap(game.init)(jax.random.split(jax.random.key(0), 2))
    states = jax.vmap(game.step)(states, jnp.array([4, 0]))  # one cell taken in each
    output = jax.jit(search_fn)(variables, jax.random.key(1), states)
    weights = np.asarray(output.action_weights)
    np.testing.assert_allclose(weights.sum(-1), 1.0, rtol=1e-6)
    assert weights[0, 4] == 0 and weights[1, 0] == 0
    assert int(output.search_tree.node_visits[0, 0]) == 17


def test_simulation_stages__each_iteration_s_simulations():
    config = ml_collections.ConfigDict(
        {"search": {"num_simulations": 64}, "selfplay": {"simulation_stages": ((100, 32),)}}
    )
    config.selfplay.simulation_stages = ((100, 32), (300, 128))  # as a flag sets it
    stages = plan.simulation_stages(config)
    assert stages == ((0, 64), (100, 32), (300, 128))
    assert [run_selfplay.stage_of(stages, i) for i in (0, 99, 100, 299, 300, 10_000)] == [
        0,
        0,
        1,
        1,
        2,
        2,
    ]
    config.selfplay.simulation_stages = ((0, 16), (50, 32))
    assert plan.simulation_stages(config) == ((0, 16), (50, 32))


def test_network_calls_per_move__the_stage_s_search_and_a_playout_cap_s_share():
    def calls(config, *iterations):
        read = plan.read(config, num_devices=1)
        return [run_selfplay.network_calls_per_move(read, i) for i in iterations or (0,)]

    config = configs.get_config("connect_four", "cpu")  # 16 simulations of Gumbel everywhere
    assert calls(config) == [17]
    config.selfplay.simulation_stages = ((0, 16), (120, 32))  # a rising budget
    assert calls(config, 0, 119, 120) == [17, 17, 33]
    # playout_cap: 64 simulations on 1 move in 4, 16 on the others
    assert calls(configs.get_config("connect_four", "playout_cap")) == [0.25 * 65 + 0.75 * 17]
    # a budget by ply: 64 simulations on 16 of the 64 slots, 16 on the others
    config = configs.get_config("connect_four", "cpu")
    config.budget.update(kind="by_ply", early_slots=16, early_simulations=64)
    assert calls(config) == [0.25 * 65 + 0.75 * 17] == [29]


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("opening.random_plies", -1, "must be an int >= 0, got -1"),
        ("selfplay.simulation_stages", ((300, 64), (100, 32)), "iterations increasing"),
        ("selfplay.simulation_stages", ((10, 0),), "simulations >= 1"),
        ("replay.merge_duplicates", 1, "must be True or False, got 1"),
        ("network.reply_head", "yes", "must be True or False, got 'yes'"),
        ("learner.aux_weights", {"reply": -1.0}, "registered loss terms to weights >= 0"),
    ],
)
def test_settings__refuse_a_bad_value_in_one_line(key, value, expected):
    tree = settings.base_config().to_dict()
    tree["game"]["name"], tree["selfplay"]["num_moves"] = "tic_tac_toe", 9
    section, name = key.split(".")
    tree[section][name] = value
    config = ml_collections.ConfigDict(tree)
    with pytest.raises(settings.ConfigError, match=f"config.{key} ") as error:
        settings.check(config)
    assert expected in str(error.value) and "\n" not in str(error.value)


def test_settings__the_ideas_are_off_by_default():
    config = settings.base_config()
    assert config.opening.kind == "none" and config.budget.kind == "full"
    assert tuple(config.selfplay.simulation_stages) == ()
    assert config.replay.merge_duplicates is False
    assert config.network.reply_head is False and config.network.score_head is False
    assert dict(config.learner.aux_weights) == {}
    assert config.search.policy == "puct"
    assert "puct_forced" in search.policies.available()


def _mixed_smoke(num_iterations):
    """Tic-Tac-Toe's smoke run on 3x3, learning on 4x4 boards (3 in a row) beside it."""
    config = configs.get_config("tic_tac_toe", "smoke")
    config.network.kind = "resnet_any_size"
    config.game.mixed = ({"rows": 4, "cols": 4},)
    config.learner.mixed_updates = 3
    config.num_iterations = num_iterations
    return config


def _assert_mixed(state, workdir, num_iterations):
    """Each iteration played a batch on the 4x4 board into its own replay memory, and the
    learner made mixed_updates updates on it besides its own."""
    (other,) = state.mixed_replay
    assert other.observation.shape[1:] == (4, 4, 2) and state.replay.observation.shape[1:3] == (
        3,
        3,
    )
    config = _mixed_smoke(num_iterations)
    assert int(state.learner.step) == num_iterations * (config.learner.updates_per_iteration + 3)
    records = [json.loads(line) for line in (workdir / "metrics.jsonl").read_text().splitlines()]
    assert len(records) == num_iterations
    assert all(r["mixed_positions"] > 0 and math.isfinite(r["mixed_loss"]) for r in records)
    assert int(other.size) == sum(r["mixed_positions"] for r in records)


def test_mixed_boards__self_play_on_each_board_and_one_network_learns_from_both(tmp_path):
    """Wu (2019): KataGo trains one network on mixed board sizes. Each iteration plays a
    batch on the other board into its own replay memory, and the learner makes
    mixed_updates updates on it besides its own (its exact resume: the test below)."""
    state = train.train_and_evaluate(_mixed_smoke(2), str(tmp_path))
    _assert_mixed(state, tmp_path, 2)


@pytest.mark.long  # three trainings, about 20 s of two cores; the test above plays and learns
def test_mixed_boards__self_play_on_each_board_one_network_learns_and_resumes_exactly(tmp_path):
    """Mixed boards as above, and a resumed run is the same as a straight one (its replay
    memory of the other board too)."""
    straight = train.train_and_evaluate(_mixed_smoke(2), str(tmp_path / "a"))
    train.train_and_evaluate(_mixed_smoke(1), str(tmp_path / "b"))
    resumed = train.train_and_evaluate(_mixed_smoke(2), str(tmp_path / "b"))
    leaves_a, leaves_b = jax.tree.leaves(straight), jax.tree.leaves(resumed)
    assert len(leaves_a) == len(leaves_b)
    for x, y in zip(leaves_a, leaves_b, strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    _assert_mixed(resumed, tmp_path / "b", 2)


def test_mixed_boards__off_by_default_and_the_state_stays_as_it_was():
    config = settings.base_config()
    assert tuple(config.game.mixed) == () and config.learner.mixed_updates == 0
    assert "mixed_replay" not in train.TrainingState.__dataclass_fields__
