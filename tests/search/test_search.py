"""Known-answer searches with a random network: taking a win and blocking a loss pin the
signs of rewards, discounts and values; terminal and full-board roots stay finite."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import positions
import pytest

from alphazero_jax import games, networks, search

# (game, settings, moves, the one right action, why)
KNOWN_ANSWERS = [
    ("connect_four", {}, "112233", 3, "X wins at once in column 4"),
    ("connect_four", {}, "17273", 3, "O must block X's bottom-row three in column 4"),
    ("tic_tac_toe", {}, "a1 a2 b1 b2", 8, "X wins at once on c1"),
    ("tic_tac_toe", {}, "a1 b2 b1", 8, "O must block c1 (and then holds the draw)"),
]
# Gumbel's sequential halving drops half the root moves after a first round of equal
# visits; with an untrained network a move's loss two plies down shows only after a few
# dozen visits, so Gumbel needs more simulations than PUCT to block reliably.
SEARCH_SETTINGS = {
    "puct": {"num_simulations": 64},
    "gumbel": {"num_simulations": 512, "max_num_considered_actions": 16},
}


@functools.cache
def _random_network(name):
    game = games.make(name)
    return networks.make_network(game, channels=8, blocks=1, key=jax.random.key(7))


@functools.cache
def _search(name, policy):
    game = games.make(name)
    apply_fn, _ = _random_network(name)
    return jax.jit(search.make_search(game, apply_fn, policy=policy, **SEARCH_SETTINGS[policy]))


def _batch(game, move_lists):
    return games.replay_batch(game, [game.actions_from_text(m) for m in move_lists])


@pytest.mark.parametrize("policy", ("puct", "gumbel"))
@pytest.mark.parametrize(("name", "settings", "moves", "answer", "why"), KNOWN_ANSWERS)
def test_search__finds_the_one_right_move(policy, name, settings, moves, answer, why):
    game = games.make(name, **settings)
    _, variables = _random_network(name)
    states = _batch(game, [moves] * 4)
    for seed in range(3):
        output = _search(name, policy)(variables, jax.random.key(seed), states)
        greedy = jnp.zeros(len(states.terminal), bool)
        key = jax.random.key(seed)
        chosen = np.asarray(search.choose_action(output, key, policy=policy, sample=greedy))
        assert (chosen == answer).all(), f"{why}: {policy} chose {chosen} (seed {seed})"


@pytest.mark.parametrize("policy", ("puct", "gumbel"))
def test_search__no_nan_at_terminal_roots_and_full_boards(policy):
    game = games.make("connect_four")
    _, variables = _random_network("connect_four")
    draw = "452132145671363423737227774246535165114566"
    states = _batch(game, [draw, draw[:-1], draw[:-2], "4455667", ""])
    output = _search("connect_four", policy)(variables, jax.random.key(0), states)
    for name, value in [
        ("action_weights", output.action_weights),
        ("node_values", output.search_tree.node_values),
        ("children_values", output.search_tree.children_values),
        ("children_prior_logits", output.search_tree.children_prior_logits),
    ]:
        assert np.isfinite(np.asarray(value)).all(), name
    # One legal move left: the search chooses it.
    chosen = search.choose_action(
        output, jax.random.key(1), policy=policy, sample=jnp.ones(5, bool)
    )
    assert int(chosen[1]) == game.actions_from_text(draw[-1])[0]


def test_search__recurrent_fn_rewards_the_player_who_moved():
    """X completes four: reward +1 for X (the mover), discount 0, value 0."""
    game = games.make("connect_four")
    apply_fn, variables = _random_network("connect_four")
    recurrent_fn = search.make_recurrent_fn(game, apply_fn)
    states = _batch(game, ["112233", "112233"])
    output, next_states = recurrent_fn(variables, None, jnp.array([3, 4]), states)
    np.testing.assert_array_equal(np.asarray(output.reward), [1.0, 0.0])
    np.testing.assert_array_equal(np.asarray(output.discount), [0.0, -1.0])
    assert float(output.value[0]) == 0.0 and bool(next_states.terminal[0])
    # After the end nothing more is rewarded.
    output, _ = recurrent_fn(variables, None, jnp.array([0, 0]), next_states)
    assert float(output.reward[0]) == 0.0


def test_search__discount_scales_the_next_value():
    """With a per-ply discount the next node's value counts -discount times, and nothing
    after a terminal node counts at all."""
    game = games.make("connect_four")
    apply_fn, variables = _random_network("connect_four")
    recurrent_fn = search.make_recurrent_fn(game, apply_fn, discount=0.9)
    output, _ = recurrent_fn(variables, None, jnp.array([3, 4]), _batch(game, ["112233"] * 2))
    np.testing.assert_allclose(np.asarray(output.discount), [0.0, -0.9])


def _sure_win_network(game):
    """A Tic-Tac-Toe apply_fn with uniform priors that says X wins from every position: +1
    with X to move (as many stones of the mover as of the opponent), else -1."""

    def apply_fn(variables, observations):
        del variables
        own, other = observations[..., 0].sum((1, 2)), observations[..., 1].sum((1, 2))
        value = jnp.where(own == other, 1.0, -1.0)
        logits = jnp.zeros((observations.shape[0], game.num_actions))
        return networks.NetworkOutput(logits=logits, value=value), None

    return apply_fn


@pytest.mark.parametrize("policy", ("puct", "gumbel"))
def test_search__discount_prefers_the_quicker_win(policy):
    """Tic-Tac-Toe a1 a2 b1 b2, X to move; c1 wins at once. A network sure that X wins from
    everywhere makes each move a win for X: without a discount they all look alike (Q = 1),
    with 0.9 a win later is worth at most 0.9 and the search leans to c1."""
    game = games.make("tic_tac_toe")
    states = _batch(game, ["a1 a2 b1 b2"])
    shares = {}
    for discount in (1.0, 0.9):
        search_fn = search.make_search(
            game, _sure_win_network(game), policy=policy, num_simulations=64, discount=discount
        )
        output = jax.jit(search_fn)({}, jax.random.key(0), states)
        shares[discount] = float(output.action_weights[0, 8])
    # Measured: PUCT's visit share of c1 0.41 -> 0.66, Gumbel's improved policy 0.73 -> 0.95.
    assert shares[0.9] > shares[1.0] + 0.2, shares


def _flat_network(game):
    """An apply_fn with uniform priors and value 0 everywhere: it knows nothing."""

    def apply_fn(variables, observations):
        del variables
        batch = observations.shape[0]
        logits = jnp.zeros((batch, game.num_actions))
        return networks.NetworkOutput(logits=logits, value=jnp.zeros(batch)), None

    return apply_fn


def test_search__heuristic_weight_mixes_the_heuristic_into_node_values():
    """Node values are ``(1 - w) * network + w * heuristic``, at the root and below it."""
    game = games.make("connect_four")
    apply_fn, variables = _random_network("connect_four")
    states = _batch(game, ["", "4", "4455", "112233"])
    network = apply_fn(variables, jax.vmap(game.observe)(states))[0].value
    heuristic = jax.vmap(game.heuristic)(states)
    root = search.make_root_fn(game, apply_fn, heuristic_weight=0.25)(variables, states)
    np.testing.assert_allclose(root.value, 0.75 * network + 0.25 * heuristic, atol=1e-6)
    recurrent_fn = search.make_recurrent_fn(game, apply_fn, heuristic_weight=0.25)
    output, children = recurrent_fn(variables, None, jnp.array([0, 1, 2, 0]), states)
    child_network = apply_fn(variables, jax.vmap(game.observe)(children))[0].value
    child_heuristic = jax.vmap(game.heuristic)(children)
    np.testing.assert_allclose(
        output.value, 0.75 * child_network + 0.25 * child_heuristic, atol=1e-6
    )


def _fenced_pawn():
    """The Quoridor position of the next two tests: the game, the state as a batch of one,
    and X's two moves (the way out, c5, and the dead end, c3)."""
    game = games.make("quoridor", size=5, walls=3)
    state = positions.quoridor(
        game, pawns=("c4", "a1"), walls="b2h b3v c3v a4h d1v", walls_left=(0, 0), player=0
    )
    step_back, step_up = (game.actions_from_text(m, state)[0] for m in ("c5", "c3"))
    return game, jax.tree.map(lambda x: x[None], state), step_back, step_up


def test_search__heuristic_weight_walks_the_way_round():
    """Quoridor 5x5, X on c4 to move, no walls in hand. Walls b2h, b3v and c3v shut c4's
    column off above and to both sides, so X's shortest way to row 1 goes back through c5
    (5 steps from there; from c3, up the dead end, 7). X's only moves are c3 and c5. A
    network with uniform priors and values of 0 everywhere gives them half the visits each
    (measured: 0.50); with the heuristic (the shortest-path race) as the node values the
    search takes c5. (Measured with a weight of 0.25: c5's visit share 0.56, and 0.60 for
    Gumbel's improved policy; with 1, above 0.7.)"""
    game, states, step_back, step_up = _fenced_pawn()
    legal = np.flatnonzero(np.asarray(game.legal_action_mask(states))[0])
    assert sorted(legal) == sorted([step_back, step_up])
    search_fn = search.make_search(
        game, _flat_network(game), num_simulations=32, dirichlet_fraction=0.0, heuristic_weight=1.0
    )
    output = jax.jit(search_fn)({}, jax.random.key(0), states)
    assert float(output.action_weights[0, step_back]) > 0.7, output.action_weights[0, legal]


def test_search__gumbel_tests_the_move_the_prior_wrote_off():
    """The fenced pawn again, with a network sure of the dead end (prior 0.993 on c3,
    values 0) and a quarter of the heuristic in node values, as in the 5x5 presets. PUCT's
    32 simulations never visit c5, so a PUCT policy target repeats the prior; Gumbel's
    sequential halving gives both root moves the same visits, so c5 gets a value the
    improved policy can learn from (why the 5x5 presets search with Gumbel: the
    comments of ``alphazero_jax/presets/quoridor.py``)."""
    game, states, step_back, step_up = _fenced_pawn()

    def sure_of_the_dead_end(variables, observations):
        del variables
        batch = observations.shape[0]
        logits = jnp.zeros((batch, game.num_actions)).at[:, step_up].set(5.0)
        return networks.NetworkOutput(logits=logits, value=jnp.zeros(batch)), None

    shares = {}
    for policy in ("puct", "gumbel"):
        search_fn = search.make_search(
            game,
            sure_of_the_dead_end,
            policy=policy,
            num_simulations=32,
            dirichlet_fraction=0.0,
            gumbel_scale=0.0,
            heuristic_weight=0.25,
        )
        output = jax.jit(search_fn)({}, jax.random.key(0), states)
        shares[policy] = float(output.search_tree.summary().visit_probs[0, step_back])
    assert shares["puct"] == 0.0 and shares["gumbel"] == 0.5, shares


def test_search__bad_settings_fail_early():
    game = games.make("tic_tac_toe")
    apply_fn, _ = _random_network("tic_tac_toe")
    with pytest.raises(ValueError, match=r"Unknown search policy 'uct'; registered: gumbel, puct"):
        search.make_search(game, apply_fn, policy="uct")
    with pytest.raises(ValueError, match=r"Unknown setting\(s\) c for search policy 'puct'"):
        search.make_search(game, apply_fn, c=1.0)
    with pytest.raises(ValueError, match="num_simulations must be an int >= 1, got 0"):
        search.make_search(game, apply_fn, num_simulations=0)
    with pytest.raises(ValueError, match=r"discount must be in \(0, 1\], got 0"):
        search.make_search(game, apply_fn, discount=0)
    with pytest.raises(ValueError, match=r"heuristic_weight must be in \[0, 1\], got 1.5"):
        search.make_search(game, apply_fn, heuristic_weight=1.5)


def test_search_settings__self_play_as_written_play_without_noise_and_with_its_overrides():
    written = {
        "c_puct": 2.5,
        "play_c_puct": 1.0,
        "dirichlet_fraction": 0.25,
        "gumbel_scale": 1.0,
        "value_scale": 0.1,
        "play_value_scale": 0.2,
    }
    selfplay = search.search_settings(written, play=False)
    assert selfplay == {
        "c_puct": 2.5,
        "dirichlet_fraction": 0.25,
        "gumbel_scale": 1.0,
        "value_scale": 0.1,
    }
    play = search.search_settings(written, play=True)
    assert play == {
        "c_puct": 1.0,
        "dirichlet_fraction": 0.0,
        "gumbel_scale": 0.0,
        "value_scale": 0.2,
    }
    # 0 (the default, and what a config written before the key reads) keeps the setting.
    for older in ({**written, "play_c_puct": 0.0, "play_value_scale": 0.0}, {"c_puct": 2.5}):
        assert search.search_settings(older, play=True)["c_puct"] == 2.5
        assert search.search_settings(older, play=True).get("value_scale", 0.1) == 0.1
    assert written["play_c_puct"] == 1.0  # the caller's mapping is left as it was


@pytest.mark.parametrize(("value_scale", "maxvisit_init"), [(0.1, 50.0), (0.5, 4.0)])
def test_gumbel__improved_policy_is_the_prior_tilted_by_sigma_of_q(value_scale, maxvisit_init):
    """Danihelka et al. (2022): where every root move was visited, the improved
    policy is softmax(logits + (maxvisit_init + max N) * value_scale * q), q each move's
    value from the root mover's view. A tic-tac-toe root with 3 moves (X: a1 b1 c2, O: b2 a2
    c3, X to move) and 30 simulations visits all of them; computed here from the tree's own
    logits, visits and values, so a setting mctx did not receive would tilt it otherwise."""
    game = games.make("tic_tac_toe")
    apply_fn, variables = _random_network("tic_tac_toe")
    states = _batch(game, ["a1 b2 b1 a2 c2 c3"])
    run = search.make_search(
        game,
        apply_fn,
        policy="gumbel",
        num_simulations=30,
        gumbel_scale=0.0,
        value_scale=value_scale,
        maxvisit_init=maxvisit_init,
    )
    output = jax.jit(run)(variables, jax.random.key(0), states)
    tree = output.search_tree
    legal = np.asarray(game.legal_action_mask(jax.tree.map(lambda x: x[0], states)))
    visits = np.asarray(tree.children_visits[0, 0])  # batch 0, the root
    assert legal.sum() == 3 and (visits[legal] > 0).all(), visits
    q = np.asarray(tree.qvalues(np.zeros(1, np.int32))[0])
    logits = np.asarray(tree.children_prior_logits[0, 0])
    tilted = np.where(legal, logits + (maxvisit_init + visits.max()) * value_scale * q, -np.inf)
    expected = np.exp(tilted - tilted.max())
    np.testing.assert_allclose(output.action_weights[0], expected / expected.sum(), atol=1e-5)


@pytest.mark.parametrize(
    ("policy", "setting", "written", "played"),
    [("puct", "c_puct", 4.0, 0.25), ("gumbel", "value_scale", 0.02, 2.0)],
)
def test_play_overrides__search_as_their_setting_would_when_the_network_plays(
    policy, setting, written, played
):
    """An agent whose config says c_puct 4 and play_c_puct 0.25 searches as one whose
    c_puct is 0.25; one whose value_scale is 0.02 and play_value_scale 2 as one whose
    value_scale is 2 (Gumbel's sequential halving then keeps other moves). Each pair of
    values gives different visits, so the override is seen; an override of 0 is none."""
    from alphazero_jax import agents
    from alphazero_jax.search import mctx_search

    game = games.make("tic_tac_toe")
    apply_fn, variables = _random_network("tic_tac_toe")
    states = _batch(game, ["", "a1", "a1 b2"])

    def shares(**settings):
        analyse = agents.make_network_analysis_fn(
            game, apply_fn, {"policy": policy, **settings}, num_simulations=24
        )
        return np.asarray(jax.jit(analyse)(variables, jax.random.key(0), states).shares)

    override = f"play_{setting}"
    assert mctx_search.PLAY_OVERRIDES[override] == setting
    got = shares(**{setting: written, override: played})
    np.testing.assert_array_equal(got, shares(**{setting: played}))
    assert not np.array_equal(got, shares(**{setting: written}))
    np.testing.assert_array_equal(
        shares(**{setting: written, override: 0.0}), shares(**{setting: written})
    )


def _make_puct_again(
    game,
    apply_fn,
    *,
    num_simulations: int = 8,
    discount: float = 1.0,
    heuristic_weight: float = 0.0,
    c_puct: float = 1.25,
    tilt: float = 0.0,
):
    """A policy of one's own: PUCT, with a setting of its own that it checks."""
    if tilt < 0:
        raise ValueError(f"tilt must be >= 0, got {tilt}.")
    return search.make_puct(
        game,
        apply_fn,
        num_simulations=num_simulations,
        discount=discount,
        heuristic_weight=heuristic_weight,
        c_puct=c_puct,
    )


def _least_weighted(output, key, sample):
    """A move rule that a test can tell apart: the least weighted legal-looking move."""
    del key, sample
    return jnp.argmin(output.action_weights, axis=-1)


def test_registry__a_policy_of_one_s_own_gets_its_settings_and_its_move_rule():
    search.register("test_puct_again", _make_puct_again, choose=_least_weighted)
    assert "test_puct_again" in search.policies.available()
    assert search.policies.settings_of("test_puct_again")["tilt"] == 0.0
    game = games.make("tic_tac_toe")
    apply_fn, variables = _random_network("tic_tac_toe")
    # make_search passes the settings the factory takes (c_puct, tilt), drops the built-ins'
    # others (dirichlet_alpha) and leaves the factory's own defaults (8 simulations).
    made = search.make_search(
        game, apply_fn, policy="test_puct_again", dirichlet_alpha=0.1, c_puct=2.0, tilt=1.0
    )
    states = _batch(game, ["a1 a2 b1 b2"])
    output = jax.jit(made)(variables, jax.random.key(0), states)
    assert int(output.search_tree.summary().visit_counts.sum()) == 8
    weights = np.asarray(output.action_weights[0])
    chosen = search.choose_action(output, jax.random.key(1), policy="test_puct_again", sample=False)
    assert weights[int(chosen[0])] == weights.min()
    with pytest.raises(ValueError, match="tilt must be >= 0"):
        search.make_search(game, apply_fn, policy="test_puct_again", tilt=-1.0)


def test_registry__refuses_a_factory_without_the_common_settings_and_a_taken_name():
    def no_simulations(game, apply_fn, *, discount=1.0, heuristic_weight=0.0):
        return None

    with pytest.raises(ValueError, match="it lacks num_simulations"):
        search.register("test_incomplete", no_simulations)
    with pytest.raises(ValueError, match="taken by"):
        search.register("puct", _make_puct_again)
